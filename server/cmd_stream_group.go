package server

import (
	"bytes"
	"errors"
	"math"
	"strconv"

	"github.com/shaledb/shale/server/types"
)

// The consumer groups' commands: XGROUP, XREADGROUP, XACK, XPENDING,
// XCLAIM, XAUTOCLAIM, XINFO GROUPS and XINFO CONSUMERS, as Redis 7.0's
// t_stream.c parses and answers them: each reads its arguments and looks
// its key up in Redis's order, which decides which error a bad call gets.

// The consumer groups' fixed errors, as Redis 7.0 words them.
const (
	errXGroupNoKey       replyError = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	errBusyGroup         replyError = "BUSYGROUP Consumer Group name already exists"
	errEntriesReadRange  replyError = "ERR value for ENTRIESREAD must be positive or -1"
	errXReadGroupDollar  replyError = "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."
	errXReadGroupNoGroup replyError = "ERR Missing GROUP option for XREADGROUP"
	errXClaimMinIdle     replyError = "ERR Invalid min-idle-time argument for XCLAIM"
	errXClaimIdle        replyError = "ERR Invalid IDLE option argument for XCLAIM"
	errXClaimTime        replyError = "ERR Invalid TIME option argument for XCLAIM"
	errXClaimRetryCount  replyError = "ERR Invalid RETRYCOUNT option argument for XCLAIM"
	errXAutoClaimMinIdle replyError = "ERR Invalid min-idle-time argument for XAUTOCLAIM"
	errXAutoClaimCount   replyError = "ERR COUNT must be > 0"
	errBlockedGroupGone  replyError = "NOGROUP the consumer group this client was blocked on no longer exists"
	errBlockedStreamGone replyError = "UNBLOCKED the stream key no longer exists"
)

const (
	// xautoclaimMaxCount is the greatest COUNT of XAUTOCLAIM: Redis's
	// LONG_MAX / max(sizeof(streamID), attempts_factor).
	xautoclaimMaxCount = math.MaxInt64 / 16
	// xgroupCreateMaxArgs is the longest XGROUP CREATE: both options.
	xgroupCreateMaxArgs = 8
)

// cName is b as Redis's %s prints an sds: up to its first NUL byte.
func cName(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// errNoGroupForKey is XGROUP's and XINFO CONSUMERS' missing group.
func errNoGroupForKey(key, group []byte) replyError {
	return replyError("NOGROUP No such consumer group '" + cName(group) + "' for key name '" + cName(key) + "'")
}

// errNoKeyOrGroup is XPENDING's, XCLAIM's and XAUTOCLAIM's missing key or
// group.
func errNoKeyOrGroup(key, group []byte) replyError {
	return replyError("NOGROUP No such key '" + cName(key) + "' or consumer group '" + cName(group) + "'")
}

// groupLookupErr maps the types layer's missing key or group to the
// command's wording: noGroup for both, or, when noKey is not empty, noKey
// for a missing key.
func groupLookupErr(err error, noKey, noGroup replyError) error {
	switch {
	case errors.Is(err, types.ErrNoSuchKey) && noKey != "":
		return noKey
	case errors.Is(err, types.ErrNoSuchKey), errors.Is(err, types.ErrNoGroup):
		return noGroup
	}
	return err
}

// parseEntriesRead reads ENTRIESREAD's value: -1 (unknown) or more.
func parseEntriesRead(b []byte) (int64, error) {
	n, err := parseInt(b)
	if err != nil {
		return 0, err
	}
	if n < -1 {
		return 0, errEntriesReadRange
	}
	return n, nil
}

// parseXGroupOptions reads the options of XGROUP CREATE (MKSTREAM and
// ENTRIESREAD) or SETID (ENTRIESREAD), from args[5:], before the key is
// looked up, as Redis does.
func parseXGroupOptions(args [][]byte, create bool) (mkstream bool, entriesRead int64, err error) {
	entriesRead = -1
	for i := 5; i < len(args); i++ {
		switch {
		case create && is(args[i], "MKSTREAM"):
			mkstream = true
		case is(args[i], "ENTRIESREAD") && i+1 < len(args):
			if entriesRead, err = parseEntriesRead(args[i+1]); err != nil {
				return false, 0, err
			}
			i++
		default:
			return false, 0, errSubcommandSyntax(args)
		}
	}
	return mkstream, entriesRead, nil
}

// groupStartID reads XGROUP CREATE's (strict) or SETID's ID: "$" is the
// stream's last ID.
func groupStartID(b []byte, last types.StreamID, strict bool) (types.StreamID, error) {
	if len(b) == 1 && b[0] == '$' {
		return last, nil
	}
	how := rangeStart
	if strict {
		how = strictID
	}
	id, _, err := parseStreamID(b, how)
	return id, err
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD entries-read]
func cmdXGroupCreate(c *Ctx, args [][]byte) error {
	mkstream, entriesRead, err := parseXGroupOptions(args, true)
	if err != nil {
		return err
	}
	_, err = c.DB.XGroupCreate(args[2], args[3], mkstream, entriesRead, func(last types.StreamID) (types.StreamID, error) {
		if len(args) > xgroupCreateMaxArgs {
			return last, errSubcommandSyntax(args)
		}
		return groupStartID(args[4], last, true)
	})
	switch {
	case errors.Is(err, types.ErrNoSuchKey):
		return errXGroupNoKey
	case errors.Is(err, types.ErrBusyGroup):
		return errBusyGroup
	case err != nil:
		return err
	}
	c.Reply().OK()
	return nil
}

// XGROUP SETID key group id|$ [ENTRIESREAD entries-read]
func cmdXGroupSetID(c *Ctx, args [][]byte) error {
	_, entriesRead, err := parseXGroupOptions(args, false)
	if err != nil {
		return err
	}
	err = c.DB.XGroupSetID(args[2], args[3], entriesRead, func(last types.StreamID) (types.StreamID, error) {
		if len(args) != 5 && len(args) != 7 {
			return last, errSubcommandSyntax(args)
		}
		return groupStartID(args[4], last, false)
	})
	if err != nil {
		return groupLookupErr(err, errXGroupNoKey, errNoGroupForKey(args[2], args[3]))
	}
	c.Reply().OK()
	return nil
}

// XGROUP DESTROY key group
func cmdXGroupDestroy(c *Ctx, args [][]byte) error {
	ok, err := c.DB.XGroupDestroy(args[2], args[3])
	if err != nil {
		return groupLookupErr(err, errXGroupNoKey, errXGroupNoKey)
	}
	c.Reply().Int(boolInt(ok))
	if ok {
		// Its blocked readers get NOGROUP, as in Redis.
		c.signalKeyReady(c.DB.Index(), args[2])
	}
	return nil
}

// XGROUP CREATECONSUMER key group consumer
func cmdXGroupCreateConsumer(c *Ctx, args [][]byte) error {
	ok, err := c.DB.XGroupCreateConsumer(args[2], args[3], args[4])
	if err != nil {
		return groupLookupErr(err, errXGroupNoKey, errNoGroupForKey(args[2], args[3]))
	}
	c.Reply().Int(boolInt(ok))
	return nil
}

// XGROUP DELCONSUMER key group consumer
func cmdXGroupDelConsumer(c *Ctx, args [][]byte) error {
	n, _, err := c.DB.XGroupDelConsumer(args[2], args[3], args[4])
	if err != nil {
		return groupLookupErr(err, errXGroupNoKey, errNoGroupForKey(args[2], args[3]))
	}
	c.Reply().Int(n)
	return nil
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// XGROUP HELP
func cmdXGroupHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "xgroup", []string{
		"CREATE <key> <groupname> <id|$> [option]",
		"    Create a new consumer group. Options are:",
		"    * MKSTREAM",
		"      Create the empty stream if it does not exist.",
		"    * ENTRIESREAD entries_read",
		"      Set the group's entries_read counter (internal use).",
		"CREATECONSUMER <key> <groupname> <consumer>",
		"    Create a new consumer in the specified group.",
		"DELCONSUMER <key> <groupname> <consumer>",
		"    Remove the specified consumer.",
		"DESTROY <key> <groupname>",
		"    Remove the specified group.",
		"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
		"    Set the current group ID and entries_read counter.",
	})
	return nil
}

// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]
func cmdXReadGroup(c *Ctx, args [][]byte) error {
	x, err := parseXRead(c, args, true)
	if err != nil {
		return err
	}
	count, timeout, keys, group, consumer, noack := x.count, x.timeout, x.keys, x.group, x.consumer, x.noack
	n := len(keys)
	// history[i]: the key is read from the consumer's pending entries
	// after ids[i]; otherwise (">") its new entries.
	ids := make([]types.StreamID, n)
	history := make([]bool, n)
	for i, key := range keys {
		// Each key and its group are looked up before its ID is read.
		if err := c.DB.StreamGroupExists(key, group); err != nil {
			return groupLookupErr(err, "", replyError("NOGROUP No such key '"+cName(key)+"' or consumer group '"+cName(group)+"' in XREADGROUP with GROUP option"))
		}
		switch arg := x.ids[i]; {
		case len(arg) == 1 && arg[0] == '$':
			return errXReadGroupDollar
		case len(arg) == 1 && arg[0] == '>':
		default:
			id, _, err := parseStreamID(arg, strictID)
			if err != nil {
				return err
			}
			// Redis marks ">" with the greatest ID: giving that ID is
			// ">" too.
			ids[i], history[i] = id, id != types.MaxStreamID
		}
	}
	type read struct {
		key     []byte
		entries []types.StreamEntry
	}
	initial := true
	try := func(ks [][]byte) (bool, error) {
		var got []read
		for i, key := range ks {
			hist := initial && history[i]
			entries, err := c.DB.XReadGroup(key, group, consumer, hist, ids[i], count, noack)
			switch {
			case !initial && (errors.Is(err, types.ErrNoSuchKey) || errors.Is(err, types.ErrWrongType)):
				return false, errBlockedStreamGone
			case !initial && errors.Is(err, types.ErrNoGroup):
				return false, errBlockedGroupGone
			case err != nil:
				return false, groupLookupErr(err, "", replyError("NOGROUP No such key '"+cName(key)+"' or consumer group '"+cName(group)+"' in XREADGROUP with GROUP option"))
			}
			if hist || len(entries) > 0 {
				got = append(got, read{key, entries})
			}
		}
		initial = false
		if len(got) == 0 {
			return false, nil
		}
		r := c.Reply()
		r.KeyedPairs(len(got))
		for _, g := range got {
			r.KeyedPair()
			r.Bulk(g.key)
			writeGroupEntries(c, g.entries)
		}
		return true, nil
	}
	if timeout < 0 || anyTrue(history) {
		served, err := try(keys)
		if err == nil && !served {
			c.Reply().NullArray()
		}
		return err
	}
	return c.Srv.block(c, keys, timeout, &waiter{kind: "stream", try: try, onLoss: true})
}

// anyTrue reports whether any of bs is true.
func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// writeGroupEntries replies entries as XREADGROUP does: an entry the
// stream lost (nil Items) is its ID and a null array.
func writeGroupEntries(c *Ctx, entries []types.StreamEntry) {
	r := c.Reply()
	r.Array(len(entries))
	for i := range entries {
		if entries[i].Items == nil {
			var buf [48]byte
			r.Array(2)
			r.Bulk(entries[i].ID.AppendText(buf[:0]))
			r.NullArray()
			continue
		}
		writeEntry(c, &entries[i])
	}
}

// parseStrictIDs reads ids as XACK's and XCLAIM's IDs.
func parseStrictIDs(args [][]byte) ([]types.StreamID, error) {
	ids := make([]types.StreamID, len(args))
	for i, a := range args {
		id, _, err := parseStreamID(a, strictID)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// XACK key group id [id ...]
func cmdXAck(c *Ctx, args [][]byte) error {
	// Redis looks the key and group up first: without them nothing is
	// acknowledged, whatever the IDs.
	switch err := c.DB.StreamGroupExists(args[1], args[2]); {
	case errors.Is(err, types.ErrNoSuchKey), errors.Is(err, types.ErrNoGroup):
		c.Reply().Int(0)
		return nil
	case err != nil:
		return err
	}
	ids, err := parseStrictIDs(args[3:])
	if err != nil {
		return err
	}
	n, err := c.DB.XAck(args[1], args[2], ids)
	if err != nil {
		return err
	}
	c.Reply().Int(n)
	return nil
}

// parseStartID reads an interval's start, "(" excluding it.
func parseStartID(b []byte) (types.StreamID, error) {
	return parseIntervalID(b, rangeStart, exclStart, func(id *types.StreamID) bool {
		if *id == types.MaxStreamID {
			return false
		}
		*id = nextID(*id)
		return true
	}, errStartIDInterval)
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
func cmdXPending(c *Ctx, args [][]byte) error {
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		return errSyntax
	}
	var start, end types.StreamID
	var count, minIdle int64
	var consumer []byte
	if len(args) >= 6 {
		at := 3
		if is(args[3], "IDLE") {
			var err error
			if minIdle, err = parseInt(args[4]); err != nil {
				return err
			}
			if len(args) < 8 {
				return errSyntax
			}
			at += 2
		}
		var err error
		if count, err = parseInt(args[at+2]); err != nil {
			return err
		}
		count = max(count, 0)
		if start, err = parseStartID(args[at]); err != nil {
			return err
		}
		if end, err = parseIntervalID(args[at+1], rangeEnd, exclEnd, func(id *types.StreamID) bool {
			switch {
			case id.IsZero():
				return false
			case id.Seq == 0:
				id.Ms, id.Seq = id.Ms-1, math.MaxUint64
			default:
				id.Seq--
			}
			return true
		}, errEndIDInterval); err != nil {
			return err
		}
		if at+3 < len(args) {
			consumer = args[at+3]
		}
	}
	noGroup := errNoKeyOrGroup(args[1], args[2])
	r := c.Reply()
	var buf [48]byte
	if len(args) == 3 {
		s, err := c.DB.XPendingSummary(args[1], args[2])
		if err != nil {
			return groupLookupErr(err, "", noGroup)
		}
		r.Array(4)
		r.Int(s.Count)
		if s.Count == 0 {
			r.Null()
			r.Null()
			r.NullArray()
			return nil
		}
		r.Bulk(s.First.AppendText(buf[:0]))
		r.Bulk(s.Last.AppendText(buf[:0]))
		r.Array(len(s.Consumers))
		for _, cp := range s.Consumers {
			r.Array(2)
			r.Bulk(cp.Name)
			r.Bulk(strconv.AppendInt(buf[:0], cp.Pending, 10))
		}
		return nil
	}
	entries, err := c.DB.XPendingRange(args[1], args[2], start, end, count, minIdle, consumer)
	if err != nil {
		return groupLookupErr(err, "", noGroup)
	}
	r.Array(len(entries))
	for _, e := range entries {
		r.Array(4)
		r.Bulk(e.ID.AppendText(buf[:0]))
		r.Bulk(e.Consumer)
		r.Int(e.IdleMs)
		r.Int(e.Deliveries)
	}
	return nil
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
func cmdXClaim(c *Ctx, args [][]byte) error {
	if err := c.DB.StreamGroupExists(args[1], args[2]); err != nil {
		return groupLookupErr(err, "", errNoKeyOrGroup(args[1], args[2]))
	}
	minIdle, ok := types.ParseInt(args[4])
	if !ok {
		return errXClaimMinIdle
	}
	// The IDs run up to the first argument that is not one; options
	// follow.
	j := 5
	var ids []types.StreamID
	for ; j < len(args); j++ {
		id, _, err := parseStreamID(args[j], strictID)
		if err != nil {
			break
		}
		ids = append(ids, id)
	}
	a := types.ClaimArgs{RetryCount: -1}
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		var ok bool
		switch {
		case is(opt, "FORCE"):
			a.Force = true
		case is(opt, "JUSTID"):
			a.JustID = true
		case is(opt, "IDLE") && more > 0:
			j++
			if a.DeliveryMs, ok = types.ParseInt(args[j]); !ok {
				return errXClaimIdle
			}
			a.Delivery = types.ClaimIdle
		case is(opt, "TIME") && more > 0:
			j++
			if a.DeliveryMs, ok = types.ParseInt(args[j]); !ok {
				return errXClaimTime
			}
			a.Delivery = types.ClaimTime
		case is(opt, "RETRYCOUNT") && more > 0:
			j++
			if a.RetryCount, ok = types.ParseInt(args[j]); !ok {
				return errXClaimRetryCount
			}
		case is(opt, "LASTID") && more > 0:
			j++
			id, _, err := parseStreamID(args[j], strictID)
			if err != nil {
				return err
			}
			a.LastID = id
		default:
			return replyError("ERR Unrecognized XCLAIM option '" + cName(opt) + "'")
		}
	}
	claimed, err := c.DB.XClaim(args[1], args[2], args[3], max(minIdle, 0), ids, a)
	if err != nil {
		return groupLookupErr(err, "", errNoKeyOrGroup(args[1], args[2]))
	}
	writeClaimed(c, claimed, a.JustID)
	return nil
}

// writeClaimed replies the entries claimed, or with justID their IDs.
func writeClaimed(c *Ctx, claimed []types.Claimed, justID bool) {
	r := c.Reply()
	r.Array(len(claimed))
	var buf [48]byte
	for i := range claimed {
		switch {
		case justID:
			r.Bulk(claimed[i].Entry.ID.AppendText(buf[:0]))
		case !claimed[i].Found:
			r.Null()
		default:
			writeEntry(c, &claimed[i].Entry)
		}
	}
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
func cmdXAutoClaim(c *Ctx, args [][]byte) error {
	minIdle, ok := types.ParseInt(args[4])
	if !ok {
		return errXAutoClaimMinIdle
	}
	start, err := parseStartID(args[5])
	if err != nil {
		return err
	}
	count, justID := int64(100), false
	for j := 6; j < len(args); j++ {
		switch {
		case is(args[j], "COUNT") && j+1 < len(args):
			n, ok := types.ParseInt(args[j+1])
			if !ok || n < 1 || n > xautoclaimMaxCount {
				return errXAutoClaimCount
			}
			count = n
			j++
		case is(args[j], "JUSTID"):
			justID = true
		default:
			return errSyntax
		}
	}
	next, claimed, deleted, err := c.DB.XAutoClaim(args[1], args[2], args[3], max(minIdle, 0), start, count, justID)
	if err != nil {
		return groupLookupErr(err, "", errNoKeyOrGroup(args[1], args[2]))
	}
	r := c.Reply()
	var buf [48]byte
	r.Array(3)
	r.Bulk(next.AppendText(buf[:0]))
	writeClaimed(c, claimed, justID)
	r.Array(len(deleted))
	for _, id := range deleted {
		r.Bulk(id.AppendText(buf[:0]))
	}
	return nil
}

// XINFO GROUPS key
func cmdXInfoGroups(c *Ctx, args [][]byte) error {
	groups, err := c.DB.XInfoGroups(args[2])
	if err != nil {
		return err
	}
	r := c.Reply()
	var buf [48]byte
	r.Array(len(groups))
	for _, g := range groups {
		r.Map(6)
		r.BulkString("name")
		r.Bulk(g.Name)
		r.BulkString("consumers")
		r.Int(g.Consumers)
		r.BulkString("pending")
		r.Int(g.Pending)
		r.BulkString("last-delivered-id")
		r.Bulk(g.LastID.AppendText(buf[:0]))
		writeGroupProgress(r, g)
	}
	return nil
}

// XINFO CONSUMERS key group
func cmdXInfoConsumers(c *Ctx, args [][]byte) error {
	consumers, err := c.DB.XInfoConsumers(args[2], args[3])
	if err != nil {
		if errors.Is(err, types.ErrNoSuchKey) {
			return err // "ERR no such key"
		}
		return groupLookupErr(err, "", errNoGroupForKey(args[2], args[3]))
	}
	r := c.Reply()
	r.Array(len(consumers))
	for _, cs := range consumers {
		r.Map(3)
		r.BulkString("name")
		r.Bulk(cs.Name)
		r.BulkString("pending")
		r.Int(cs.Pending)
		r.BulkString("idle")
		r.Int(cs.IdleMs)
	}
	return nil
}

var xgroupSubcommands = []Subcommand{
	sub("create", -5, Write|DenyOOM, cmdXGroupCreate, cmdDoc{summary: "Create a consumer group.", since: "5.0.0", group: "stream", complexity: "O(1)", args: "key groupname id|$ [MKSTREAM] [ENTRIESREAD entries_read]"}),
	sub("setid", -5, Write, cmdXGroupSetID, cmdDoc{summary: "Set a consumer group to an arbitrary last delivered ID value.", since: "5.0.0", group: "stream", complexity: "O(1)", args: "key groupname id|$ [ENTRIESREAD entries_read]"}),
	sub("destroy", 4, Write, cmdXGroupDestroy, cmdDoc{summary: "Destroy a consumer group.", since: "5.0.0", group: "stream", complexity: "O(N) where N is the number of entries in the group's pending entries list (PEL).", args: "key groupname"}),
	sub("createconsumer", 5, Write|DenyOOM, cmdXGroupCreateConsumer, cmdDoc{summary: "Create a consumer in a consumer group.", since: "6.2.0", group: "stream", complexity: "O(1)", args: "key groupname consumername"}),
	sub("delconsumer", 5, Write, cmdXGroupDelConsumer, cmdDoc{summary: "Delete a consumer from a consumer group.", since: "5.0.0", group: "stream", complexity: "O(1)", args: "key groupname consumername"}),
	sub("help", 2, Loading|Stale, cmdXGroupHelp, cmdDoc{summary: "Show helpful text about the different subcommands", since: "5.0.0", group: "stream", complexity: "O(1)"}),
}

// xinfoGroupSubcommands are XINFO's consumer-group subcommands, which
// cmd_stream.go's XINFO row lists with its own.
var xinfoGroupSubcommands = []Subcommand{
	sub("groups", 3, ReadOnly, cmdXInfoGroups, cmdDoc{summary: "List the consumer groups of a stream", since: "5.0.0", group: "stream", complexity: "O(1)", args: "key"}),
	sub("consumers", 4, ReadOnly, cmdXInfoConsumers, cmdDoc{summary: "List the consumers in a consumer group", since: "5.0.0", group: "stream", complexity: "O(1)", args: "key groupname"}).tips("nondeterministic_output"),
}

var streamGroupCommands = []Command{
	cmd("xgroup", -2, Write, 2, 2, 1, nil).withSubcommands(xgroupSubcommands).
		doc("A container for consumer groups commands", "5.0.0", "stream", "Depends on subcommand.", "subcommand [arg ...]"),
	cmd("xreadgroup", -7, Write|Blocking, 0, 0, 0, cmdXReadGroup).keysBy(xreadKeys).
		keySpecs(KeySpec{Flags: KeyRO | KeyAccess, Begin: BeginSearch{Keyword: "STREAMS", StartFrom: 4}, Find: FindKeys{LastKey: -1, KeyStep: 1, Limit: 2}}).
		doc("Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.", "5.0.0", "stream", "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.", "GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]"),
	cmd("xack", -4, Write|Fast, 1, 1, 1, cmdXAck).keyFlags(KeyRW|KeyUpdate).
		doc("Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.", "5.0.0", "stream", "O(1) for each message ID processed.", "key group id [id ...]"),
	cmd("xpending", -3, ReadOnly, 1, 1, 1, cmdXPending).keyFlags(KeyRO|KeyAccess).tips("nondeterministic_output").
		doc("Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.", "5.0.0", "stream", "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.", "key group [[IDLE min-idle-time] start end count [consumer]]"),
	cmd("xclaim", -6, Write|Fast, 1, 1, 1, cmdXClaim).keyFlags(KeyRW|KeyUpdate).tips("nondeterministic_output").
		doc("Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.", "5.0.0", "stream", "O(log N) with N being the number of messages in the PEL of the consumer group.", "key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id]"),
	cmd("xautoclaim", -6, Write|Fast, 1, 1, 1, cmdXAutoClaim).keyFlags(KeyRW|KeyDelete).tips("nondeterministic_output").
		doc("Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.", "6.2.0", "stream", "O(1) if COUNT is small.", "key group consumer min-idle-time start [COUNT count] [JUSTID]"),
}

// signalKeysLost wakes the clients blocked in XREADGROUP on the keys the
// command removed, overwrote or moved away (facts: its write log's), as
// Redis's signalDeletedKeyAsReady: their try finds the stream gone and
// replies the UNBLOCKED error. A waiter whose stream is still there finds
// nothing new and waits on. It costs one atomic load when none waits.
func (s *Server) signalKeysLost(c *Ctx, facts []types.KeyFact) {
	if s.blocking.onLoss.Load() == 0 {
		return
	}
	for _, f := range facts {
		if f.Kind == types.KeyRemoved || f.Kind == types.KeyExpired {
			c.signalKeyReady(f.DB, f.Key)
		}
	}
	db := c.DB.Index()
	switch c.cmd.Name {
	case "rename", "renamenx", "move":
		c.signalKeyReady(db, c.args[1]) // the source is gone (or it failed: no harm)
	case "flushall", "flushdb", "swapdb":
		for _, bk := range s.blocking.lossKeys() {
			if c.cmd.Name != "flushdb" || bk.db == db {
				c.signalKeyReady(bk.db, []byte(bk.key))
			}
		}
	}
}

// consumerCreatedEvent is XCLAIM's and XAUTOCLAIM's event: the consumer
// they made, if they made it.
func consumerCreatedEvent(e *eventList, a [][]byte) {
	if e.has(types.KeyConsumerCreated, a[1]) {
		e.add(notifyStream, "xgroup-createconsumer", a[1])
	}
}

// streamFullGroups reads the groups part of XINFO STREAM FULL of key (each
// group's and consumer's first count pending entries, 0: all), and returns
// the function that writes it: XINFO STREAM (cmd_stream.go) reads it
// before its reply starts, and writes it as the reply's "groups".
func streamFullGroups(c *Ctx, key []byte, count int64) (write func(), err error) {
	groups, err := c.DB.XInfoGroupsFull(key, count)
	if err != nil {
		return nil, err
	}
	return func() {
		r := c.Reply()
		var buf [48]byte
		r.Array(len(groups))
		for _, g := range groups {
			r.Map(7)
			r.BulkString("name")
			r.Bulk(g.Name)
			r.BulkString("last-delivered-id")
			r.Bulk(g.LastID.AppendText(buf[:0]))
			writeGroupProgress(r, g.GroupInfo)
			r.BulkString("pel-count")
			r.Int(g.Pending)
			r.BulkString("pending")
			r.Array(len(g.Entries))
			for _, p := range g.Entries {
				r.Array(4)
				r.Bulk(p.ID.AppendText(buf[:0]))
				r.Bulk(p.Consumer)
				r.Int(p.DeliveryMs)
				r.Int(p.Deliveries)
			}
			r.BulkString("consumers")
			r.Array(len(g.Consumers))
			for _, cs := range g.Consumers {
				r.Map(4)
				r.BulkString("name")
				r.Bulk(cs.Name)
				r.BulkString("seen-time")
				r.Int(cs.SeenMs)
				r.BulkString("pel-count")
				r.Int(cs.Pending)
				r.BulkString("pending")
				r.Array(len(cs.Entries))
				for _, p := range cs.Entries {
					r.Array(3)
					r.Bulk(p.ID.AppendText(buf[:0]))
					r.Int(p.DeliveryMs)
					r.Int(p.Deliveries)
				}
			}
		}
	}, nil
}

// writeGroupProgress writes a group's entries-read and lag fields, as
// XINFO GROUPS and XINFO STREAM FULL show them: null when unknown.
func writeGroupProgress(r Reply, g types.GroupInfo) {
	r.BulkString("entries-read")
	if g.EntriesRead >= 0 {
		r.Int(g.EntriesRead)
	} else {
		r.Null()
	}
	r.BulkString("lag")
	if g.LagKnown {
		r.Int(g.Lag)
	} else {
		r.Null()
	}
}
