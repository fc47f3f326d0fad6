package store

// CF names a column family. The order is the order of the handles.
type CF int

// The column families; docs/ENCODING.md gives their layouts.
const (
	CFDefault     CF = iota // system records: format version, uid mark, key counters
	CFMeta                  // db · slot · key -> metadata.Meta
	CFSubkey                // uid · sub -> element value
	CFScore                 // uid · score · member -> empty
	CFBookkeeping           // uid -> type · db · key
	CFExpire                // expire_ms · db · slot · key -> empty
	numCFs
)

var cfNames = [numCFs]string{"default", "metadata", "subkey", "score", "bookkeeping", "expire"}

func (c CF) String() string {
	if c < 0 || c >= numCFs {
		return "unknown"
	}
	return cfNames[c]
}

// ParseCF returns the CF with the given name.
func ParseCF(name string) (CF, bool) {
	for i, n := range cfNames {
		if n == name {
			return CF(i), true
		}
	}
	return 0, false
}

// AllCFs lists every column family, in handle order.
func AllCFs() []CF {
	cfs := make([]CF, numCFs)
	for i := range cfs {
		cfs[i] = CF(i)
	}
	return cfs
}
