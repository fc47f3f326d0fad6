package server

import (
	"bytes"

	"github.com/shaledb/shale/server/types"
)

// The bitmap commands: bit operations on string values (types/bitmap.go).
// Their argument checks follow Redis 7.0's bitops.c, order included.

// cstr is b up to its first NUL byte: what Redis's strcasecmp and strlen
// see of an argument.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// isWord reports whether arg names the upper-case word opt, as Redis's
// strcasecmp compares them (up to a NUL).
func isWord(arg []byte, opt string) bool { return is(cstr(arg), opt) }

// bitOffset parses a bit offset as Redis's getBitOffsetFromArgument: a
// non-negative integer whose byte is below proto-max-bulk-len or, for
// BITFIELD (fieldBits > 0), "#n": the n-th field of fieldBits bits.
func bitOffset(c *Ctx, arg []byte, fieldBits uint) (uint64, error) {
	hash := fieldBits > 0 && len(arg) > 0 && arg[0] == '#'
	if hash {
		arg = arg[1:]
	}
	n, ok := types.ParseInt(arg)
	if !ok {
		return 0, errBitOffset
	}
	if hash {
		n *= int64(fieldBits) // wraps as Redis's multiplication does; a wrapped offset is caught below or taken as Redis takes it
	}
	if n < 0 || n>>3 >= int64(c.Srv.config().Server.ProtoMaxBulkLen) {
		return 0, errBitOffset
	}
	return uint64(n), nil
}

// SETBIT key offset value
func cmdSetBit(c *Ctx, args [][]byte) error {
	off, err := bitOffset(c, args[2], 0)
	if err != nil {
		return err
	}
	on, ok := types.ParseInt(args[3])
	if !ok || on&^1 != 0 {
		return errBitValue
	}
	old, err := c.DB.SetBit(args[1], off, on == 1)
	return replyIntBool(c, old, err)
}

// GETBIT key offset
func cmdGetBit(c *Ctx, args [][]byte) error {
	off, err := bitOffset(c, args[2], 0)
	if err != nil {
		return err
	}
	bit, err := c.DB.GetBit(args[1], off)
	return replyIntBool(c, bit, err)
}

// bitUnit parses BYTE|BIT: true for BIT.
func bitUnit(arg []byte) (bool, error) {
	switch {
	case isWord(arg, "BIT"):
		return true, nil
	case isWord(arg, "BYTE"):
		return false, nil
	}
	return false, errSyntax
}

// BITCOUNT key [start end [BYTE|BIT]]
func cmdBitCount(c *Ctx, args [][]byte) error {
	// Redis 7.0 looks the key up first: a missing key counts 0 whatever
	// the range, so the range is parsed only for an existing string.
	n, err := c.DB.BitCount(args[1], func() (r types.BitRange, err error) {
		switch len(args) {
		case 2:
			return r, nil
		case 4, 5:
		default:
			return r, errSyntax
		}
		r.Given, r.EndGiven = true, true
		if r.Start, err = parseInt(args[2]); err != nil {
			return r, err
		}
		if r.End, err = parseInt(args[3]); err != nil {
			return r, err
		}
		if len(args) == 5 {
			r.Bits, err = bitUnit(args[4])
		}
		return r, err
	})
	return replyInt(c, n, err)
}

// BITPOS key bit [start [end [BYTE|BIT]]]
func cmdBitPos(c *Ctx, args [][]byte) error {
	bit, err := parseInt(args[2])
	if err != nil {
		return err
	}
	if bit != 0 && bit != 1 {
		return errBitPosBit
	}
	// As BITCOUNT, the range is parsed only for an existing string, and
	// in Redis's order: start, the unit, then end.
	n, err := c.DB.BitPos(args[1], bit == 1, func() (r types.BitRange, err error) {
		switch len(args) {
		case 3:
			return r, nil
		case 4, 5, 6:
		default:
			return r, errSyntax
		}
		r.Given = true
		if r.Start, err = parseInt(args[3]); err != nil {
			return r, err
		}
		if len(args) == 6 {
			if r.Bits, err = bitUnit(args[5]); err != nil {
				return r, err
			}
		}
		if len(args) >= 5 {
			r.EndGiven = true
			r.End, err = parseInt(args[4])
		}
		return r, err
	})
	return replyInt(c, n, err)
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]
func cmdBitOp(c *Ctx, args [][]byte) error {
	var op types.BitOperation
	switch {
	case isWord(args[1], "AND"):
		op = types.BitAnd
	case isWord(args[1], "OR"):
		op = types.BitOr
	case isWord(args[1], "XOR"):
		op = types.BitXor
	case isWord(args[1], "NOT"):
		op = types.BitNot
	default:
		return errSyntax
	}
	if op == types.BitNot && len(args) != 4 {
		return errBitOpNot
	}
	n, err := c.DB.BitOp(op, args[2], args[3:])
	return replyInt(c, n, err)
}

// bitfieldType parses a BITFIELD type as Redis's
// getBitfieldTypeFromArgument: i1 to i64 or u1 to u63, the letter in
// lower case.
func bitfieldType(arg []byte) (signed bool, bits uint, err error) {
	arg = cstr(arg) // Redis reads the width with strlen
	if len(arg) == 0 || (arg[0] != 'i' && arg[0] != 'u') {
		return false, 0, errBitfieldType
	}
	signed = arg[0] == 'i'
	n, ok := types.ParseInt(arg[1:])
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return false, 0, errBitfieldType
	}
	return signed, uint(n), nil
}

// parseBitfield parses BITFIELD's operations, args[2:], as Redis does
// before it looks the key up: it reports whether any is a SET or INCRBY.
func parseBitfield(c *Ctx, args [][]byte) (ops []types.BitFieldOp, writes bool, err error) {
	ov := types.OverflowWrap
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		var op types.BitFieldOp
		switch {
		case isWord(args[j], "GET") && rem >= 2:
			op.Kind = types.BitFieldGet
		case isWord(args[j], "SET") && rem >= 3:
			op.Kind = types.BitFieldSet
		case isWord(args[j], "INCRBY") && rem >= 3:
			op.Kind = types.BitFieldIncrBy
		case isWord(args[j], "OVERFLOW") && rem >= 1:
			j++
			switch {
			case isWord(args[j], "WRAP"):
				ov = types.OverflowWrap
			case isWord(args[j], "SAT"):
				ov = types.OverflowSat
			case isWord(args[j], "FAIL"):
				ov = types.OverflowFail
			default:
				return nil, false, errBitfieldOver
			}
			continue
		default:
			return nil, false, errSyntax
		}
		if op.Signed, op.Bits, err = bitfieldType(args[j+1]); err != nil {
			return nil, false, err
		}
		if op.Offset, err = bitOffset(c, args[j+2], op.Bits); err != nil {
			return nil, false, err
		}
		if op.Kind != types.BitFieldGet {
			writes = true
			if op.Value, err = parseInt(args[j+3]); err != nil {
				return nil, false, err
			}
			op.Overflow = ov
			j++
		}
		j += 2
		ops = append(ops, op)
	}
	return ops, writes, nil
}

// BITFIELD key [GET type offset | [OVERFLOW WRAP|SAT|FAIL] SET type offset
// value | [OVERFLOW WRAP|SAT|FAIL] INCRBY type offset increment ...]
func cmdBitfield(c *Ctx, args [][]byte) error { return bitfield(c, args, false) }

// BITFIELD_RO key [GET type offset ...]
func cmdBitfieldRO(c *Ctx, args [][]byte) error { return bitfield(c, args, true) }

func bitfield(c *Ctx, args [][]byte, readOnly bool) error {
	ops, writes, err := parseBitfield(c, args)
	if err != nil {
		return err
	}
	if readOnly && writes {
		return errBitfieldROSet
	}
	res, err := c.DB.BitField(args[1], ops)
	if err != nil {
		return err
	}
	r := c.Reply()
	r.Array(len(res))
	for _, v := range res {
		if v.Failed {
			r.Null()
		} else {
			r.Int(v.Value)
		}
	}
	return nil
}

var bitmapCommands = []Command{
	cmd("setbit", 4, Write|DenyOOM|Grouped, 1, 1, 1, cmdSetBit).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Sets or clears the bit at offset in the string value stored at key", "2.2.0", "bitmap", "O(1)", "key offset value"),
	cmd("getbit", 3, ReadOnly|Fast|Grouped, 1, 1, 1, cmdGetBit).keyFlags(KeyRO|KeyAccess).
		doc("Returns the bit value at offset in the string value stored at key", "2.2.0", "bitmap", "O(1)", "key offset"),
	cmd("bitcount", -2, ReadOnly, 1, 1, 1, cmdBitCount).keyFlags(KeyRO|KeyAccess).
		doc("Count set bits in a string", "2.6.0", "bitmap", "O(N)", "key [start end [BYTE|BIT]]"),
	cmd("bitpos", -3, ReadOnly, 1, 1, 1, cmdBitPos).keyFlags(KeyRO|KeyAccess).
		doc("Find first bit set or clear in a string", "2.8.7", "bitmap", "O(N)", "key bit [start [end [BYTE|BIT]]]"),
	cmd("bitop", -4, Write|DenyOOM, 2, -1, 1, cmdBitOp).keyFlags(KeyOW|KeyUpdate, KeyRO|KeyAccess).
		doc("Perform bitwise operations between strings", "2.6.0", "bitmap", "O(N)", "operation destkey key [key ...]"),
	cmd("bitfield", -2, Write|DenyOOM|Grouped, 1, 1, 1, cmdBitfield).keySpecs(keyAt(1, KeyRW|KeyAccess|KeyUpdate|KeyVariableFlags).noted("This command allows both access and modification of the key")).
		doc("Perform arbitrary bitfield integer operations on strings", "3.2.0", "bitmap", "O(1) for each subcommand specified", "key [GET encoding offset|[OVERFLOW WRAP|SAT|FAIL] SET encoding offset value|INCRBY encoding offset increment [GET encoding offset|[OVERFLOW WRAP|SAT|FAIL] SET encoding offset value|INCRBY encoding offset increment ...]]"),
	cmd("bitfield_ro", -2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdBitfieldRO).keyFlags(KeyRO|KeyAccess).
		doc("Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", "6.0.0", "bitmap", "O(1) for each subcommand specified", "key GET encoding offset [GET encoding offset ...]"),
}
