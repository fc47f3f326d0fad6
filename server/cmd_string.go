package server

import (
	"time"

	"github.com/shaledb/shale/server/types"
)

func nowMs() int64 { return time.Now().UnixMilli() }

// GET key
func cmdGet(c *Ctx, args [][]byte) error {
	v, ok, err := c.DB.Get(args[1])
	return replyBulkOrNull(c, v, ok, err)
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms|KEEPTTL]
func cmdSet(c *Ctx, args [][]byte) error {
	var o types.SetOptions
	var exp expiryArg
	for i := 3; i < len(args); i++ {
		next, matched, err := exp.parse(args, i)
		switch {
		case matched:
			if err != nil || o.KeepTTL {
				return errSyntax
			}
			i = next
		case is(args[i], "NX") && !o.XX:
			o.NX = true
		case is(args[i], "XX") && !o.NX:
			o.XX = true
		case is(args[i], "GET"):
			o.Get = true
		case is(args[i], "KEEPTTL") && !exp.given():
			o.KeepTTL = true
		default:
			return errSyntax
		}
	}
	if exp.given() {
		at, err := exp.at(nowMs(), "set")
		if err != nil {
			return err
		}
		o.ExpireMs = at
	}
	r, err := c.DB.Set(args[1], args[2], o)
	if err != nil {
		return err
	}
	switch {
	case o.Get:
		c.Reply().BulkOrNull(r.Old, r.HadOld)
	case r.Done:
		c.Reply().OK()
	default:
		c.Reply().Null()
	}
	return nil
}

// SETNX key value
func cmdSetNX(c *Ctx, args [][]byte) error {
	r, err := c.DB.Set(args[1], args[2], types.SetOptions{NX: true})
	if err != nil {
		return err
	}
	c.Reply().IntBool(r.Done)
	return nil
}

// SETEX key seconds value, PSETEX key milliseconds value
func setWithTTL(c *Ctx, args [][]byte, unit int64, name string) error {
	v, err := parseInt(args[2])
	if err != nil {
		return err
	}
	at, err := expireAt(v, unit, false, nowMs(), true, name)
	if err != nil {
		return err
	}
	if _, err := c.DB.Set(args[1], args[3], types.SetOptions{ExpireMs: at}); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

func cmdSetEX(c *Ctx, args [][]byte) error  { return setWithTTL(c, args, 1000, "setex") }
func cmdPSetEX(c *Ctx, args [][]byte) error { return setWithTTL(c, args, 1, "psetex") }

// MGET key [key ...]
func cmdMGet(c *Ctx, args [][]byte) error {
	vals, err := c.DB.MGet(args[1:])
	return replyBulks(c, vals, err)
}

// MSET key value [key value ...]
func cmdMSet(c *Ctx, args [][]byte) error {
	if _, err := c.DB.MSet(args[1:], types.Overwrite); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// MSETNX key value [key value ...]
func cmdMSetNX(c *Ctx, args [][]byte) error {
	done, err := c.DB.MSet(args[1:], types.WriteNothing)
	return replyIntBool(c, done, err)
}

// GETSET key value
func cmdGetSet(c *Ctx, args [][]byte) error {
	r, err := c.DB.Set(args[1], args[2], types.SetOptions{Get: true})
	if err != nil {
		return err
	}
	c.Reply().BulkOrNull(r.Old, r.HadOld)
	return nil
}

// GETDEL key
func cmdGetDel(c *Ctx, args [][]byte) error {
	v, ok, err := c.DB.GetDel(args[1])
	return replyBulkOrNull(c, v, ok, err)
}

// GETEX key [EX s|PX ms|EXAT ts|PXAT ms|PERSIST]
func cmdGetEx(c *Ctx, args [][]byte) error {
	var o types.GetExOptions
	var exp expiryArg
	for i := 2; i < len(args); i++ {
		next, matched, err := exp.parse(args, i)
		switch {
		case matched:
			if err != nil || o.Persist {
				return errSyntax
			}
			i = next
		case is(args[i], "PERSIST") && !exp.given():
			o.Persist = true
		default:
			return errSyntax
		}
	}
	if exp.given() {
		at, err := exp.at(nowMs(), "getex")
		if err != nil {
			return getExBadTime(c, args[1], err)
		}
		o.SetExpire, o.ExpireMs = true, at
	}
	v, ok, err := c.DB.GetEx(args[1], o)
	return replyBulkOrNull(c, v, ok, err)
}

// getExBadTime answers a GETEX whose time is unusable (timeErr) as Redis
// does: it reads the key before the time, so a missing key answers nil and
// a key of another type WRONGTYPE, whatever the time says.
func getExBadTime(c *Ctx, key []byte, timeErr error) error {
	_, ok, err := c.DB.Get(key)
	switch {
	case err != nil:
		return err
	case !ok:
		c.Reply().Null()
		return nil
	}
	return timeErr
}

// APPEND key value
func cmdAppend(c *Ctx, args [][]byte) error {
	n, err := c.DB.Append(args[1], args[2])
	return replyInt(c, n, err)
}

// STRLEN key
func cmdStrLen(c *Ctx, args [][]byte) error {
	n, err := c.DB.StrLen(args[1])
	return replyInt(c, n, err)
}

// GETRANGE key start end (and SUBSTR)
func cmdGetRange(c *Ctx, args [][]byte) error {
	start, end, err := parseStartStop(args)
	if err != nil {
		return err
	}
	v, err := c.DB.GetRange(args[1], start, end)
	if err != nil {
		return err
	}
	c.Reply().Bulk(v)
	return nil
}

// SETRANGE key offset value
func cmdSetRange(c *Ctx, args [][]byte) error {
	off, err := parseInt(args[2])
	if err != nil {
		return err
	}
	n, err := c.DB.SetRange(args[1], off, args[3])
	return replyInt(c, n, err)
}

func incrBy(c *Ctx, key []byte, delta int64) error {
	n, err := c.DB.IncrBy(key, delta)
	return replyInt(c, n, err)
}

// INCR key
func cmdIncr(c *Ctx, args [][]byte) error { return incrBy(c, args[1], 1) }

// DECR key
func cmdDecr(c *Ctx, args [][]byte) error { return incrBy(c, args[1], -1) }

// INCRBY key increment
func cmdIncrBy(c *Ctx, args [][]byte) error {
	d, err := parseInt(args[2])
	if err != nil {
		return err
	}
	return incrBy(c, args[1], d)
}

// DECRBY key decrement
func cmdDecrBy(c *Ctx, args [][]byte) error {
	d, err := parseInt(args[2])
	if err != nil {
		return err
	}
	if d == -1<<63 {
		return errDecrementOverflow
	}
	return incrBy(c, args[1], -d)
}

// INCRBYFLOAT key increment
func cmdIncrByFloat(c *Ctx, args [][]byte) error {
	v, err := c.DB.IncrByFloat(args[1], args[2])
	if err != nil {
		return err
	}
	c.Reply().Bulk(v)
	return nil
}

var stringCommands = []Command{
	cmd("get", 2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdGet).keyFlags(KeyRO|KeyAccess).
		doc("Get the value of a key", "1.0.0", "string", "O(1)", "key"),
	cmd("set", -3, Write|DenyOOM|Grouped, 1, 1, 1, cmdSet).keySpecs(keyAt(1, KeyRW|KeyAccess|KeyUpdate|KeyVariableFlags).noted("RW and ACCESS due to the optional `GET` argument")).
		doc("Set the string value of a key", "1.0.0", "string", "O(1)", "key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"),
	cmd("setnx", 3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdSetNX).keyFlags(KeyOW|KeyInsert).
		doc("Set the value of a key, only if the key does not exist", "1.0.0", "string", "O(1)", "key value"),
	cmd("setex", 4, Write|DenyOOM|Grouped, 1, 1, 1, cmdSetEX).keyFlags(KeyOW|KeyUpdate).
		doc("Set the value and expiration of a key", "2.0.0", "string", "O(1)", "key seconds value"),
	cmd("psetex", 4, Write|DenyOOM|Grouped, 1, 1, 1, cmdPSetEX).keyFlags(KeyOW|KeyUpdate).
		doc("Set the value and expiration in milliseconds of a key", "2.6.0", "string", "O(1)", "key milliseconds value"),
	cmd("mget", -2, ReadOnly|Fast|Grouped, 1, -1, 1, cmdMGet).keyFlags(KeyRO|KeyAccess).tips("request_policy:multi_shard").
		doc("Get the values of all the given keys", "1.0.0", "string", "O(N) where N is the number of keys to retrieve.", "key [key ...]"),
	cmd("mset", -3, Write|DenyOOM|Grouped, 1, -1, 2, cmdMSet).shaped(pairsFrom(1, shapeArity)).keyFlags(KeyOW|KeyUpdate).tips("request_policy:multi_shard", "response_policy:all_succeeded").
		doc("Set multiple keys to multiple values", "1.0.1", "string", "O(N) where N is the number of keys to set.", "key value [key value ...]"),
	cmd("msetnx", -3, Write|DenyOOM|Grouped, 1, -1, 2, cmdMSetNX).shaped(pairsFrom(1, shapeArity)).keyFlags(KeyOW|KeyInsert).tips("request_policy:multi_shard", "response_policy:agg_min").
		doc("Set multiple keys to multiple values, only if none of the keys exist", "1.0.1", "string", "O(N) where N is the number of keys to set.", "key value [key value ...]"),
	cmd("getset", 3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdGetSet).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Set the string value of a key and return its old value", "1.0.0", "string", "O(1)", "key value"),
	cmd("getdel", 2, Write|Fast|Grouped, 1, 1, 1, cmdGetDel).keyFlags(KeyRW|KeyAccess|KeyDelete).
		doc("Get the value of a key and delete the key", "6.2.0", "string", "O(1)", "key"),
	cmd("getex", -2, Write|Fast|Grouped, 1, 1, 1, cmdGetEx).keySpecs(keyAt(1, KeyRW|KeyAccess|KeyUpdate).noted("RW and UPDATE because it changes the TTL")).
		doc("Get the value of a key and optionally set its expiration", "6.2.0", "string", "O(1)", "key [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|PERSIST]"),
	cmd("append", 3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdAppend).keyFlags(KeyRW|KeyInsert).
		doc("Append a value to a key", "2.0.0", "string", "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.", "key value"),
	cmd("strlen", 2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdStrLen).keyFlags(KeyRO).
		doc("Get the length of the value stored in a key", "2.2.0", "string", "O(1)", "key"),
	cmd("getrange", 4, ReadOnly, 1, 1, 1, cmdGetRange).keyFlags(KeyRO|KeyAccess).
		doc("Get a substring of the string stored at a key", "2.4.0", "string", "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.", "key start end"),
	cmd("substr", 4, ReadOnly, 1, 1, 1, cmdGetRange).keyFlags(KeyRO|KeyAccess).
		doc("Get a substring of the string stored at a key", "1.0.0", "string", "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.", "key start end"),
	cmd("setrange", 4, Write|DenyOOM|Grouped, 1, 1, 1, cmdSetRange).keyFlags(KeyRW|KeyUpdate).
		doc("Overwrite part of a string at key starting at the specified offset", "2.2.0", "string", "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.", "key offset value"),
	cmd("incr", 2, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdIncr).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Increment the integer value of a key by one", "1.0.0", "string", "O(1)", "key"),
	cmd("decr", 2, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdDecr).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Decrement the integer value of a key by one", "1.0.0", "string", "O(1)", "key"),
	cmd("incrby", 3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdIncrBy).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Increment the integer value of a key by the given amount", "1.0.0", "string", "O(1)", "key increment"),
	cmd("decrby", 3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdDecrBy).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Decrement the integer value of a key by the given number", "1.0.0", "string", "O(1)", "key decrement"),
	cmd("incrbyfloat", 3, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdIncrByFloat).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Increment the float value of a key by the given amount", "2.6.0", "string", "O(1)", "key increment"),
}
