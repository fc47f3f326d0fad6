package metadata

// functionKeyPrefix starts the default-CF key of every FUNCTION library.
const functionKeyPrefix = "shale:function:"

// AppendFunctionKey appends the default-CF key of the FUNCTION library
// named lib to dst and returns the extended slice: "shale:function:"
// followed by the library's name, verbatim (Redis's library names are
// letters, digits and underscores, and case-sensitive). Its value is the
// library's code, verbatim, shebang included.
func AppendFunctionKey(dst []byte, lib string) []byte {
	dst = append(dst, functionKeyPrefix...)
	return append(dst, lib...)
}

// FunctionKeyRange returns the bounds [lower, upper) of every library's key
// in the default CF, for iterating or deleting them all.
func FunctionKeyRange() (lower, upper []byte) {
	lower = []byte(functionKeyPrefix)
	upper = []byte(functionKeyPrefix)
	upper[len(upper)-1]++ // ':' + 1: past every key that starts with the prefix
	return lower, upper
}

// FunctionKeyLib returns the library name in a key made by
// AppendFunctionKey, and false for a key that is not one.
func FunctionKeyLib(key []byte) (string, bool) {
	if len(key) <= len(functionKeyPrefix) || string(key[:len(functionKeyPrefix)]) != functionKeyPrefix {
		return "", false
	}
	return string(key[len(functionKeyPrefix):]), true
}
