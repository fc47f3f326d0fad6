package server

import (
	"errors"
	"math"

	"github.com/shaledb/shale/server/types"
)

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]. The algorithm
// is in lcs.go; this file reads the options and the keys and replies.

// lcsOptions are LCS's options.
type lcsOptions struct {
	len, idx, withMatchLen bool
	minMatchLen            int64 // a negative MINMATCHLEN reads as 0, as in Redis
}

// parseLCSOptions reads LCS's options, args[3:], in Redis's order of
// errors: a syntax or integer error first, then LEN with IDX.
func parseLCSOptions(args [][]byte) (lcsOptions, error) {
	var o lcsOptions
	for i := 3; i < len(args); i++ {
		switch {
		case is(args[i], "IDX"):
			o.idx = true
		case is(args[i], "LEN"):
			o.len = true
		case is(args[i], "WITHMATCHLEN"):
			o.withMatchLen = true
		case is(args[i], "MINMATCHLEN") && i+1 < len(args):
			n, err := parseInt(args[i+1])
			if err != nil {
				return o, err
			}
			o.minMatchLen = max(n, 0)
			i++
		default:
			return o, errSyntax
		}
	}
	if o.len && o.idx {
		return o, errLCSLenAndIdx
	}
	return o, nil
}

// lcsMaxCells bounds the table of a comparison past Redis's own bound (its
// table's bytes within proto-max-bulk-len, which CONFIG SET may raise
// without limit): 2^31 cells, 256 MiB of Shale's bits, where Redis would
// ask for 8 GiB and, failing, answer errLCSAlloc as Shale then does.
const lcsMaxCells = 1 << 31

// lcsCheckSize refuses a comparison as Redis 7.0 does before it allocates
// its table of (len(a)+1)*(len(b)+1) uint32s, and past lcsMaxCells.
func lcsCheckSize(alen, blen int, protoMaxBulkLen int64) error {
	if alen >= math.MaxUint32-1 || blen >= math.MaxUint32-1 {
		return errLCSTooLong
	}
	// Both lengths are below 2^32: the product fits in a uint64, its
	// bytes may not, and Redis's allocation fails then.
	cells := uint64(alen+1) * uint64(blen+1)
	if cells > math.MaxUint64/4 {
		return errLCSAlloc
	}
	if cells*4 > uint64(protoMaxBulkLen) {
		return errLCSProtoMaxBulkLen
	}
	if uint64(alen)*uint64(blen) > lcsMaxCells {
		return errLCSAlloc
	}
	return nil
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: Redis reads
// the keys before the options, so a wrong type is the first error.
func cmdLCS(c *Ctx, args [][]byte) error {
	a, b, err := c.DB.LCS(args[1], args[2])
	if errors.Is(err, types.ErrWrongType) {
		return errLCSNotStrings
	}
	if err != nil {
		return err
	}
	o, err := parseLCSOptions(args)
	if err != nil {
		return err
	}
	if err := lcsCheckSize(len(a), len(b), int64(c.Srv.config().Server.ProtoMaxBulkLen)); err != nil {
		return err
	}
	r := c.Reply()
	if o.len {
		r.Int(int64(lcsLength(a, b)))
		return nil
	}
	seq, matches := lcsTrace(a, b, o.minMatchLen, o.idx)
	if !o.idx {
		r.Bulk(seq)
		return nil
	}
	r.Map(2)
	r.BulkString("matches")
	r.Array(len(matches))
	for _, m := range matches {
		if o.withMatchLen {
			r.Array(3)
		} else {
			r.Array(2)
		}
		r.Array(2)
		r.Int(int64(m.aStart))
		r.Int(int64(m.aEnd))
		r.Array(2)
		r.Int(int64(m.bStart))
		r.Int(int64(m.bEnd))
		if o.withMatchLen {
			r.Int(int64(m.len()))
		}
	}
	r.BulkString("len")
	r.Int(int64(len(seq)))
	return nil
}

// lcsCommands is LCS's row.
var lcsCommands = []Command{
	cmd("lcs", -3, ReadOnly, 1, 2, 1, cmdLCS).keyFlags(KeyRO|KeyAccess).
		doc("Find longest common substring", "7.0.0", "string", "O(N*M) where N and M are the lengths of s1 and s2, respectively", "key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]"),
}
