package server

import "github.com/shaledb/shale/server/types"

// DEL key [key ...], UNLINK key [key ...]
func cmdDel(c *Ctx, args [][]byte) error {
	n, err := c.DB.Del(args[1:])
	return replyInt(c, n, err)
}

// EXISTS key [key ...], TOUCH key [key ...]
func cmdExists(c *Ctx, args [][]byte) error {
	n, err := c.DB.Exists(args[1:])
	return replyInt(c, n, err)
}

// TYPE key
func cmdType(c *Ctx, args [][]byte) error {
	t, err := c.DB.Type(args[1])
	if err != nil {
		return err
	}
	c.Reply().Status(t)
	return nil
}

// expireCommand is EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT:
// key time [NX|XX|GT|LT].
func expireCommand(c *Ctx, args [][]byte, unit int64, absolute bool, name string) error {
	var cond types.ExpireCond
	for _, a := range args[3:] {
		switch {
		case is(a, "NX"):
			cond |= types.ExpireNX
		case is(a, "XX"):
			cond |= types.ExpireXX
		case is(a, "GT"):
			cond |= types.ExpireGT
		case is(a, "LT"):
			cond |= types.ExpireLT
		default:
			return errUnsupportedOption(a)
		}
	}
	if cond&types.ExpireNX != 0 && cond != types.ExpireNX {
		return errExpireFlags
	}
	if cond&types.ExpireGT != 0 && cond&types.ExpireLT != 0 {
		return errExpireGTLT
	}
	v, err := parseInt(args[2])
	if err != nil {
		return err
	}
	at, err := expireAt(v, unit, absolute, nowMs(), false, name)
	if err != nil {
		return err
	}
	ok, err := c.DB.Expire(args[1], at, cond)
	return replyIntBool(c, ok, err)
}

func cmdExpire(c *Ctx, args [][]byte) error    { return expireCommand(c, args, 1000, false, "expire") }
func cmdPExpire(c *Ctx, args [][]byte) error   { return expireCommand(c, args, 1, false, "pexpire") }
func cmdExpireAt(c *Ctx, args [][]byte) error  { return expireCommand(c, args, 1000, true, "expireat") }
func cmdPExpireAt(c *Ctx, args [][]byte) error { return expireCommand(c, args, 1, true, "pexpireat") }

// ttlCommand is TTL, PTTL, EXPIRETIME and PEXPIRETIME.
func ttlCommand(c *Ctx, key []byte, ms, absolute bool) error {
	at, now, err := c.DB.TTL(key)
	if err != nil {
		return err
	}
	v := at
	switch {
	case at < 0:
	case absolute && ms:
	case absolute:
		v = msToSeconds(at)
	case ms:
		v = at - now
	default:
		v = msToSeconds(at - now)
	}
	c.Reply().Int(v)
	return nil
}

// msToSeconds rounds non-negative ms to the nearest second, as Redis's
// (ms+500)/1000, without overflowing when ms is near math.MaxInt64 (PEXPIREAT
// k 9223372036854775807; EXPIRETIME is 9223372036854776).
func msToSeconds(ms int64) int64 {
	return ms/1000 + (ms%1000+500)/1000
}

func cmdTTL(c *Ctx, args [][]byte) error         { return ttlCommand(c, args[1], false, false) }
func cmdPTTL(c *Ctx, args [][]byte) error        { return ttlCommand(c, args[1], true, false) }
func cmdExpireTime(c *Ctx, args [][]byte) error  { return ttlCommand(c, args[1], false, true) }
func cmdPExpireTime(c *Ctx, args [][]byte) error { return ttlCommand(c, args[1], true, true) }

// PERSIST key
func cmdPersist(c *Ctx, args [][]byte) error {
	ok, err := c.DB.Persist(args[1])
	return replyIntBool(c, ok, err)
}

// RENAME key newkey
func cmdRename(c *Ctx, args [][]byte) error {
	if _, err := c.DB.Rename(args[1], args[2], types.Overwrite); err != nil {
		return err
	}
	c.signalKeyReady(c.DB.Index(), args[2]) // Redis wakes clients blocked on newkey
	c.Reply().OK()
	return nil
}

// RENAMENX key newkey
func cmdRenameNX(c *Ctx, args [][]byte) error {
	ok, err := c.DB.Rename(args[1], args[2], types.WriteNothing)
	return replyIntBoolWaking(c, c.DB.Index(), args[2], ok, err)
}

// dbArg parses a database index argument. Redis reads it as a C int, so
// an index beyond 32 bits gets errIntRange before the range of databases
// is checked.
func dbArg(c *Ctx, arg []byte) (*types.DB, error) {
	n, err := parseCInt(arg)
	if err != nil {
		return nil, err
	}
	db, err := c.Srv.eng.DB(n)
	if err != nil {
		return nil, errOutOfRangeDB
	}
	return db, nil
}

// MOVE key db
func cmdMove(c *Ctx, args [][]byte) error {
	to, err := dbArg(c, args[2])
	if err != nil {
		return err
	}
	ok, err := c.DB.Move(args[1], to)
	return replyIntBoolWaking(c, to.Index(), args[1], ok, err)
}

// COPY source destination [DB destination-db] [REPLACE]
func cmdCopy(c *Ctx, args [][]byte) error {
	to := c.DB
	exists := types.WriteNothing
	for i := 3; i < len(args); i++ {
		switch {
		case is(args[i], "REPLACE"):
			exists = types.Overwrite
		case is(args[i], "DB") && i+1 < len(args):
			i++
			db, err := dbArg(c, args[i])
			if err != nil {
				return err
			}
			to = db
		default:
			return errSyntax
		}
	}
	ok, err := c.DB.Copy(args[1], to, args[2], exists)
	return replyIntBoolWaking(c, to.Index(), args[2], ok, err)
}

// KEYS pattern
func cmdKeys(c *Ctx, args [][]byte) error {
	keys, err := c.DB.Keys(args[1])
	return replyBulks(c, keys, err)
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
func cmdScan(c *Ctx, args [][]byte) error {
	cursor, err := parseCursor(args[1])
	if err != nil {
		return err
	}
	o, err := scanOptions(args[2:], true)
	if err != nil {
		return err
	}
	next, keys, err := c.DB.Scan(cursor, o)
	if err != nil {
		return err
	}
	writeScanReply(c, next, keys)
	return nil
}

// RANDOMKEY
func cmdRandomKey(c *Ctx, _ [][]byte) error {
	k, ok, err := c.DB.RandomKey()
	return replyBulkOrNull(c, k, ok, err)
}

// objectSubcommands are OBJECT's.
var objectSubcommands = []Subcommand{
	sub("encoding", 3, ReadOnly, cmdObjectEncoding, cmdDoc{"Inspect the internal encoding of a Redis object", "2.2.3", "generic", "O(1)", "key"}).tips("nondeterministic_output"),
	sub("freq", 3, ReadOnly, cmdObjectFreq, cmdDoc{"Get the logarithmic access frequency counter of a Redis object", "4.0.0", "generic", "O(1)", "key"}).tips("nondeterministic_output"),
	sub("idletime", 3, ReadOnly, cmdObjectIdleTime, cmdDoc{"Get the time since a Redis object was last accessed", "2.2.3", "generic", "O(1)", "key"}).tips("nondeterministic_output"),
	sub("refcount", 3, ReadOnly, cmdObjectRefCount, cmdDoc{"Get the number of references to the value of the key", "2.2.3", "generic", "O(1)", "key"}).tips("nondeterministic_output"),
	sub("help", 2, Loading|Stale, cmdObjectHelp, cmdDoc{"Show helpful text about the different subcommands", "6.2.0", "generic", "O(1)", ""}),
}

// OBJECT ENCODING key
func cmdObjectEncoding(c *Ctx, args [][]byte) error {
	enc, ok, err := c.DB.ObjectEncoding(args[2])
	if err != nil {
		return err
	}
	c.Reply().BulkOrNull([]byte(enc), ok)
	return nil
}

// OBJECT FREQ key: nil for a missing key, as in Redis, which looks the key
// up before it checks the policy.
func cmdObjectFreq(c *Ctx, args [][]byte) error {
	if found, err := objectKey(c, args[2]); !found {
		return err
	}
	return errNoLFU
}

// objectKey reports whether key exists, for an OBJECT subcommand that
// answers a missing key with a null: it replies the null when not.
func objectKey(c *Ctx, key []byte) (bool, error) {
	n, err := c.DB.Exists([][]byte{key})
	if err != nil || n > 0 {
		return n > 0, err
	}
	c.Reply().Null()
	return false, nil
}

// OBJECT IDLETIME key: whole seconds since the key was last read or
// written, from the access clock (access.go); nil for a missing key. Shale
// never evicts, so no LFU policy stops it from answering, as one does in
// Redis. OBJECT itself is NoTouch: asking does not reset the time.
func cmdObjectIdleTime(c *Ctx, args [][]byte) error {
	if found, err := objectKey(c, args[2]); !found {
		return err
	}
	c.Reply().Int(c.Srv.access.idle(c.DB.Index(), args[2], accessSeconds(monoNow())))
	return nil
}

// sharedRefCount is the REFCOUNT Redis reports for its shared objects: the
// integers 0 to 9999 that SET stores without maxmemory (OBJ_SHARED_REFCOUNT).
const sharedRefCount = 1<<31 - 1

// OBJECT REFCOUNT key: Shale shares no values, but it reports what Redis
// would for the same value, as OBJECT ENCODING does.
func cmdObjectRefCount(c *Ctx, args [][]byte) error {
	enc, ok, err := c.DB.ObjectEncoding(args[2])
	if err != nil {
		return err
	}
	if !ok {
		c.Reply().Null()
		return nil
	}
	var v []byte
	if enc == "int" {
		if v, _, err = c.DB.Get(args[2]); err != nil {
			return err
		}
	}
	c.Reply().Int(refCount(enc, v))
	return nil
}

// refCount is the REFCOUNT Redis reports for a value of encoding enc (v: a
// string's value): sharedRefCount for its shared integers, else 1.
func refCount(enc string, v []byte) int64 {
	if enc == "int" {
		if i, _ := types.ParseInt(v); i >= 0 && i < 10000 {
			return sharedRefCount
		}
	}
	return 1
}

// OBJECT HELP
func cmdObjectHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "object", []string{
		"ENCODING <key>",
		"    Return the kind of internal representation used in order to store the value",
		"    associated with a <key>.",
		"FREQ <key>",
		"    Return the access frequency index of the <key>. The returned integer is",
		"    proportional to the logarithm of the recent access frequency of the key.",
		"IDLETIME <key>",
		"    Return the idle time of the <key>, that is the approximated number of",
		"    seconds elapsed since the last access to the key.",
		"REFCOUNT <key>",
		"    Return the number of references of the value associated with the specified",
		"    <key>.",
	})
	return nil
}

var keyspaceCommands = []Command{
	cmd("del", -2, Write|Grouped, 1, -1, 1, cmdDel).keyFlags(KeyRM|KeyDelete).tips("request_policy:multi_shard", "response_policy:agg_sum").
		doc("Delete a key", "1.0.0", "generic", "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).", "key [key ...]"),
	cmd("unlink", -2, Write|Fast|Grouped, 1, -1, 1, cmdDel).keyFlags(KeyRM|KeyDelete).tips("request_policy:multi_shard", "response_policy:agg_sum").
		doc("Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", "4.0.0", "generic", "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.", "key [key ...]"),
	cmd("exists", -2, ReadOnly|Fast|Grouped|NoTouch, 1, -1, 1, cmdExists).keyFlags(KeyRO).tips("request_policy:multi_shard", "response_policy:agg_sum").
		doc("Determine if a key exists", "1.0.0", "generic", "O(N) where N is the number of keys to check.", "key [key ...]"),
	cmd("touch", -2, ReadOnly|Fast, 1, -1, 1, cmdExists).keyFlags(KeyRO).tips("request_policy:multi_shard", "response_policy:agg_sum").
		doc("Alters the last access time of a key(s). Returns the number of existing keys specified.", "3.2.1", "generic", "O(N) where N is the number of keys that will be touched.", "key [key ...]"),
	cmd("type", 2, ReadOnly|Fast|Grouped|NoTouch, 1, 1, 1, cmdType).keyFlags(KeyRO).
		doc("Determine the type stored at key", "1.0.0", "generic", "O(1)", "key"),
	cmd("expire", -3, Write|Fast|Grouped, 1, 1, 1, cmdExpire).keyFlags(KeyRW|KeyUpdate).
		doc("Set a key's time to live in seconds", "1.0.0", "generic", "O(1)", "key seconds [NX|XX|GT|LT]"),
	cmd("pexpire", -3, Write|Fast|Grouped, 1, 1, 1, cmdPExpire).keyFlags(KeyRW|KeyUpdate).
		doc("Set a key's time to live in milliseconds", "2.6.0", "generic", "O(1)", "key milliseconds [NX|XX|GT|LT]"),
	cmd("expireat", -3, Write|Fast|Grouped, 1, 1, 1, cmdExpireAt).keyFlags(KeyRW|KeyUpdate).
		doc("Set the expiration for a key as a UNIX timestamp", "1.2.0", "generic", "O(1)", "key unix-time-seconds [NX|XX|GT|LT]"),
	cmd("pexpireat", -3, Write|Fast|Grouped, 1, 1, 1, cmdPExpireAt).keyFlags(KeyRW|KeyUpdate).
		doc("Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0", "generic", "O(1)", "key unix-time-milliseconds [NX|XX|GT|LT]"),
	cmd("ttl", 2, ReadOnly|Fast|Grouped|NoTouch, 1, 1, 1, cmdTTL).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Get the time to live for a key in seconds", "1.0.0", "generic", "O(1)", "key"),
	cmd("pttl", 2, ReadOnly|Fast|Grouped|NoTouch, 1, 1, 1, cmdPTTL).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Get the time to live for a key in milliseconds", "2.6.0", "generic", "O(1)", "key"),
	cmd("expiretime", 2, ReadOnly|Fast|Grouped|NoTouch, 1, 1, 1, cmdExpireTime).keyFlags(KeyRO|KeyAccess).
		doc("Get the expiration Unix timestamp for a key", "7.0.0", "generic", "O(1)", "key"),
	cmd("pexpiretime", 2, ReadOnly|Fast|Grouped|NoTouch, 1, 1, 1, cmdPExpireTime).keyFlags(KeyRO|KeyAccess).
		doc("Get the expiration Unix timestamp for a key in milliseconds", "7.0.0", "generic", "O(1)", "key"),
	cmd("persist", 2, Write|Fast|Grouped, 1, 1, 1, cmdPersist).keyFlags(KeyRW|KeyUpdate).
		doc("Remove the expiration from a key", "2.2.0", "generic", "O(1)", "key"),
	cmd("rename", 3, Write, 1, 2, 1, cmdRename).keyFlags(KeyRW|KeyAccess|KeyDelete, KeyOW|KeyUpdate).
		doc("Rename a key", "1.0.0", "generic", "O(1)", "key newkey"),
	cmd("renamenx", 3, Write|Fast, 1, 2, 1, cmdRenameNX).keyFlags(KeyRW|KeyAccess|KeyDelete, KeyOW|KeyInsert).
		doc("Rename a key, only if the new key does not exist", "1.0.0", "generic", "O(1)", "key newkey"),
	cmd("move", 3, Write|Fast|UnnamedKeys, 1, 1, 1, cmdMove).keyFlags(KeyRW|KeyAccess|KeyUpdate).
		doc("Move a key to another database", "1.0.0", "generic", "O(1)", "key db"),
	cmd("copy", -3, Write|DenyOOM|UnnamedKeys, 1, 2, 1, cmdCopy).keyFlags(KeyRO|KeyAccess, KeyOW|KeyUpdate).
		doc("Copy a key", "6.2.0", "generic", "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.", "source destination [DB destination-db] [REPLACE]"),
	cmd("keys", 2, ReadOnly, 0, 0, 0, cmdKeys).acl(ACLKeyspace|ACLDangerous).tips("request_policy:all_shards", "nondeterministic_output_order").
		doc("Find all keys matching the given pattern", "1.0.0", "generic", "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.", "pattern"),
	cmd("scan", -2, ReadOnly, 0, 0, 0, cmdScan).tips("nondeterministic_output", "request_policy:special").
		doc("Incrementally iterate the keys space", "2.8.0", "generic", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.", "cursor [MATCH pattern] [COUNT count] [TYPE type]"),
	cmd("randomkey", 1, ReadOnly, 0, 0, 0, cmdRandomKey).tips("request_policy:all_shards", "nondeterministic_output").
		doc("Return a random key from the keyspace", "1.0.0", "generic", "O(1)", ""),
	cmd("object", -2, ReadOnly|NoTouch, 2, 2, 1, nil).withSubcommands(objectSubcommands).
		doc("A container for object introspection commands", "2.2.3", "generic", "Depends on subcommand.", "subcommand [arg ...]"),
}
