package server

import (
	"github.com/shaledb/shale/server/hll"
)

// The HyperLogLog commands. Their values are strings in Redis's own format
// (server/hll), read and rewritten under the key's lock by server/types.

// PFADD key [element ...]
func cmdPFAdd(c *Ctx, args [][]byte) error {
	updated, err := c.DB.PFAdd(args[1], args[2:])
	return replyIntBool(c, updated, err)
}

// PFCOUNT key [key ...]
func cmdPFCount(c *Ctx, args [][]byte) error {
	n, err := c.DB.PFCount(args[1:])
	if err != nil {
		return err
	}
	c.Reply().Int(n)
	return nil
}

// PFMERGE destkey [sourcekey ...]
func cmdPFMerge(c *Ctx, args [][]byte) error {
	if err := c.DB.PFMerge(args[1], args[2:]); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. Redis looks the key up and
// checks it before it reads the subcommand: a missing key is an error
// whatever the subcommand. GETREG and TODENSE turn a sparse value dense,
// and store it so.
func cmdPFDebug(c *Ctx, args [][]byte) error {
	// Shale's own gate (Redis has none for PFDEBUG): after AUTH, unlike
	// DEBUG's, which Redis checks before it; scripts come here too.
	if !c.Srv.config().Server.EnableDebugCommand {
		return errDebugDisabled
	}
	sub := args[1]
	toDense := is(sub, "GETREG") || is(sub, "TODENSE")
	v, converted, ok, err := c.DB.PFDebug(args[2], toDense)
	switch {
	case err != nil:
		return err
	case !ok:
		return errPFDebugNoKey
	}
	r := c.Reply()
	switch {
	case is(sub, "GETREG"):
		regs := hll.DenseRegisters(v)
		r.Array(len(regs))
		for _, x := range regs {
			r.Int(int64(x))
		}
	case is(sub, "DECODE"):
		if hll.IsDense(v) {
			return errPFDebugNotSparse
		}
		r.Bulk(hll.Decode(v))
	case is(sub, "ENCODING"):
		if hll.IsDense(v) {
			r.Status("dense")
		} else {
			r.Status("sparse")
		}
	case is(sub, "TODENSE"):
		r.IntBool(converted)
	default:
		return errPFDebugSubcommand(sub)
	}
	return nil
}

// PFSELFTEST
func cmdPFSelfTest(c *Ctx, args [][]byte) error {
	if err := hll.SelfTest(); err != nil {
		return replyError("ERR TESTFAILED " + err.Error())
	}
	c.Reply().OK()
	return nil
}

// hllCommands are the HyperLogLog commands' rows. PFCOUNT is read-only
// although it may store the cardinality it computed in the value, as in
// Redis, whose key spec says RW and whose (hidden) may_replicate flag keeps
// it out of read-only scripts and CLIENT PAUSE WRITE for that reason.
var hllCommands = []Command{
	cmd("pfadd", -2, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdPFAdd).keyFlags(KeyRW|KeyInsert).
		doc("Adds the specified elements to the specified HyperLogLog.", "2.8.9", "hyperloglog", "O(1) to add every element.", "key [element [element ...]]"),
	cmd("pfcount", -2, ReadOnly|MayReplicate, 1, -1, 1, cmdPFCount).
		keySpecs(KeySpec{Flags: KeyRW | KeyAccess, Begin: BeginSearch{Index: 1}, Find: FindKeys{LastKey: -1, KeyStep: 1}}.
			noted("RW because it may change the internal representation of the key, and propagate to replicas")).
		doc("Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", "2.8.9", "hyperloglog", "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.", "key [key ...]"),
	cmd("pfmerge", -2, Write|DenyOOM, 1, -1, 1, cmdPFMerge).keyFlags(KeyRW|KeyAccess|KeyInsert, KeyRO|KeyAccess).
		doc("Merge N different HyperLogLogs into a single one.", "2.8.9", "hyperloglog", "O(N) to merge N HyperLogLogs, but with high constant times.", "destkey [sourcekey [sourcekey ...]]"),
	// PFDEBUG needs server.enable_debug_command, as DEBUG does (cmdPFDebug).
	cmd("pfdebug", 3, Write|DenyOOM|Admin, 2, 2, 1, cmdPFDebug).keyFlags(KeyRW|KeyAccess).
		doc("Internal commands for debugging HyperLogLog values", "2.8.9", "hyperloglog", "N/A", "subcommand key"),
	cmd("pfselftest", 1, Admin, 0, 0, 0, cmdPFSelfTest).
		doc("An internal command for testing HyperLogLog values", "2.8.9", "hyperloglog", "N/A", ""),
}
