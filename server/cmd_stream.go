package server

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"github.com/shaledb/shale/server/types"
)

// The stream commands without consumer groups: XADD, XRANGE, XREVRANGE,
// XLEN, XDEL, XTRIM, XREAD, XSETID and XINFO STREAM, as Redis 7.0's
// t_stream.c parses and answers them.

// The stream commands' errors, as Redis 7.0 words them.
const (
	errInvalidStreamID    replyError = "ERR Invalid stream ID specified as stream command argument"
	errXAddIDZero         replyError = "ERR The ID specified in XADD must be greater than 0-0"
	errXAddIDTooSmall     replyError = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	errMaxLenNegative     replyError = "ERR The MAXLEN argument must be >= 0."
	errTrimLimitNegative  replyError = "ERR The LIMIT argument must be >= 0."
	errMaxLenAndMinID     replyError = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	errLimitNoStrategy    replyError = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	errXTrimNoStrategy    replyError = "ERR syntax error, XTRIM must be called with a trimming strategy"
	errLimitWithoutApprox replyError = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	errStartIDInterval    replyError = "ERR invalid start ID for the interval"
	errEndIDInterval      replyError = "ERR invalid end ID for the interval"
	errXReadGroupOption   replyError = "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
	errXReadNoAckOption   replyError = "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."
	errXReadGreaterID     replyError = "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."
	errXReadUnbalanced    replyError = "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
	errTimeoutNotInteger  replyError = "ERR timeout is not an integer or out of range"
	errEntriesAddedNeg    replyError = "ERR entries_added must be positive"
	errSetIDMaxDeleted    replyError = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
)

// streamIDArg is how a command reads a stream ID argument.
type streamIDArg struct {
	missingSeq uint64 // the sequence of an ID given as "ms" alone
	strict     bool   // "-" and "+" are refused
	partial    bool   // "ms-*" is accepted (XADD): seqGiven false
}

// parseStreamID reads a stream ID as Redis's streamGenericParseIDOrReply:
// "-" (0-0) and "+" (the greatest ID) unless strict, "ms" (seq missingSeq),
// "ms-seq", and with partial "ms-*". Each number is read by string2ull,
// and the argument ends at its first NUL byte, as Redis reads it as a C
// string.
func parseStreamID(b []byte, how streamIDArg) (id types.StreamID, seqGiven bool, err error) {
	if len(b) > 127 {
		return id, false, errInvalidStreamID
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if how.strict {
			return id, false, errInvalidStreamID
		}
		if b[0] == '+' {
			return types.MaxStreamID, true, nil
		}
		return id, true, nil
	}
	msPart, seqPart, dash := bytes.Cut(b, []byte("-"))
	ms, ok := string2ull(msPart)
	if !ok {
		return id, false, errInvalidStreamID
	}
	id.Ms, id.Seq = ms, how.missingSeq
	if !dash {
		return id, true, nil
	}
	if how.partial && len(seqPart) == 1 && seqPart[0] == '*' {
		id.Seq = 0
		return id, false, nil
	}
	if id.Seq, ok = string2ull(seqPart); !ok {
		return id, false, errInvalidStreamID
	}
	return id, true, nil
}

// string2ull is Redis's string2ull: a strict decimal integer that is not
// negative or, failing that, whatever strtoull accepts whole: leading
// white space, a sign (a minus negates modulo 2^64), and digits that fit
// 64 bits.
func string2ull(b []byte) (uint64, bool) {
	if n, ok := types.ParseInt(b); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:]), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// The ways the stream commands read IDs.
var (
	strictID   = streamIDArg{strict: true}                // XDEL, XSETID, MINID, XREAD
	xaddID     = streamIDArg{strict: true, partial: true} // XADD's own
	rangeStart = streamIDArg{}                            // XRANGE's start
	rangeEnd   = streamIDArg{missingSeq: math.MaxUint64}  // XRANGE's end
	exclStart  = streamIDArg{strict: true}                // "(" start
	exclEnd    = streamIDArg{strict: true, missingSeq: math.MaxUint64}
)

// approxTrimLimit is the LIMIT of a "~" trim that names none: Redis's
// 100*stream-node-max-entries.
const approxTrimLimit = 10000

// parseAddOrTrim reads XADD's (xadd) or XTRIM's options from args[2:], as
// Redis's streamParseAddOrTrimArgsOrReply, and returns them with the
// index of XADD's ID ("*" or explicit; len(args) when missing).
func parseAddOrTrim(args [][]byte, xadd bool) (a types.XAddArgs, idIdx int, err error) {
	limitGiven := false
	limit := int64(0)
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			return a, i, finishTrim(&a.Trim, xadd, limitGiven, limit)
		case is(opt, "MAXLEN") && more > 0, is(opt, "MINID") && more > 0:
			if a.Trim.Strategy != types.TrimNone {
				return a, 0, errMaxLenAndMinID
			}
			a.Trim.Approx = false
			if next := args[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				a.Trim.Approx = next[0] == '~'
				i++
			}
			if is(opt, "MAXLEN") {
				n, err := parseInt(args[i+1])
				if err != nil {
					return a, 0, err
				}
				if n < 0 {
					return a, 0, errMaxLenNegative
				}
				a.Trim.Strategy, a.Trim.MaxLen = types.TrimMaxLen, uint64(n)
			} else {
				id, _, err := parseStreamID(args[i+1], strictID)
				if err != nil {
					return a, 0, err
				}
				a.Trim.Strategy, a.Trim.MinID = types.TrimMinID, id
			}
			i++
		case is(opt, "LIMIT") && more > 0:
			n, err := parseInt(args[i+1])
			if err != nil {
				return a, 0, err
			}
			if n < 0 {
				return a, 0, errTrimLimitNegative
			}
			limit, limitGiven = n, true
			i++
		case xadd && is(opt, "NOMKSTREAM"):
			a.NoMkStream = true
		case xadd:
			id, seqGiven, err := parseStreamID(opt, xaddID)
			if err != nil {
				return a, 0, err
			}
			a.ID, a.IDGiven, a.SeqGiven = id, true, seqGiven
			return a, i, finishTrim(&a.Trim, xadd, limitGiven, limit)
		default:
			return a, 0, errSyntax
		}
	}
	return a, i, finishTrim(&a.Trim, xadd, limitGiven, limit)
}

// finishTrim checks the trimming options once read, and sets the limit:
// none for an exact trim, approxTrimLimit for a "~" one that names none.
func finishTrim(t *types.StreamTrim, xadd, limitGiven bool, limit int64) error {
	switch {
	case limit != 0 && t.Strategy == types.TrimNone:
		return errLimitNoStrategy
	case !xadd && t.Strategy == types.TrimNone:
		return errXTrimNoStrategy
	case limitGiven && !t.Approx:
		return errLimitWithoutApprox
	case limitGiven:
		t.Limit = limit
	case t.Approx:
		t.Limit = approxTrimLimit
	}
	return nil
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...]
func cmdXAdd(c *Ctx, args [][]byte) error {
	a, idIdx, err := parseAddOrTrim(args, true)
	if err != nil {
		return err
	}
	fields := idIdx + 1
	if fields >= len(args) || (len(args)-fields)%2 == 1 {
		return errWrongArity("xadd")
	}
	if a.IDGiven && a.SeqGiven && a.ID.IsZero() {
		return errXAddIDZero
	}
	id, added, _, err := c.DB.XAdd(args[1], a, args[fields:])
	if err != nil {
		return err
	}
	if !added {
		c.Reply().Null()
		return nil
	}
	var buf [48]byte
	c.Reply().Bulk(id.AppendText(buf[:0]))
	c.signalKeyReady(c.DB.Index(), args[1])
	return nil
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
func cmdXTrim(c *Ctx, args [][]byte) error {
	a, _, err := parseAddOrTrim(args, false)
	if err != nil {
		return err
	}
	n, err := c.DB.XTrim(args[1], a.Trim)
	if err != nil {
		return err
	}
	c.Reply().Int(n)
	return nil
}

// XRANGE key start end [COUNT count]
func cmdXRange(c *Ctx, args [][]byte) error { return xrange(c, args, false) }

// XREVRANGE key end start [COUNT count]
func cmdXRevRange(c *Ctx, args [][]byte) error { return xrange(c, args, true) }

// xrange is XRANGE and XREVRANGE, as Redis's xrangeGenericCommand: the
// bounds first, then COUNT (0 or less: the null array for a stream), then
// the key.
func xrange(c *Ctx, args [][]byte, rev bool) error {
	startArg, endArg := args[2], args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, err := parseIntervalID(startArg, rangeStart, exclStart, func(id *types.StreamID) bool {
		if *id == types.MaxStreamID {
			return false
		}
		*id = nextID(*id)
		return true
	}, errStartIDInterval)
	if err != nil {
		return err
	}
	end, err := parseIntervalID(endArg, rangeEnd, exclEnd, func(id *types.StreamID) bool {
		switch {
		case id.IsZero():
			return false
		case id.Seq == 0:
			id.Ms, id.Seq = id.Ms-1, math.MaxUint64
		default:
			id.Seq--
		}
		return true
	}, errEndIDInterval)
	if err != nil {
		return err
	}
	count := int64(-1)
	for j := 4; j < len(args); j++ {
		if !is(args[j], "COUNT") || j+1 >= len(args) {
			return errSyntax
		}
		if count, err = parseInt(args[j+1]); err != nil {
			return err
		}
		count = max(count, 0)
		j++
	}
	if count == 0 {
		// Redis looks the key up, then answers COUNT 0 with the null
		// array: a missing key still reads as empty.
		switch typ, err := c.DB.Type(args[1]); {
		case err != nil:
			return err
		case typ == "none":
			c.Reply().Array(0)
		case typ != "stream":
			return types.ErrWrongType
		default:
			c.Reply().NullArray()
		}
		return nil
	}
	entries, err := c.DB.XRange(args[1], start, end, max(count, 0), rev)
	if err != nil {
		return err
	}
	writeEntries(c, entries)
	return nil
}

// parseIntervalID reads an XRANGE bound: "(" before an ID excludes it,
// and step moves it to the first ID included (false when there is none:
// errStep).
func parseIntervalID(b []byte, plain, excl streamIDArg, step func(*types.StreamID) bool, errStep replyError) (types.StreamID, error) {
	if len(b) > 1 && b[0] == '(' {
		id, _, err := parseStreamID(b[1:], excl)
		if err != nil {
			return id, err
		}
		if !step(&id) {
			return id, errStep
		}
		return id, nil
	}
	id, _, err := parseStreamID(b, plain)
	return id, err
}

// nextID is the ID right after id, which is not the greatest.
func nextID(id types.StreamID) types.StreamID {
	if id.Seq == math.MaxUint64 {
		return types.StreamID{Ms: id.Ms + 1}
	}
	id.Seq++
	return id
}

// writeEntries replies entries: an array of [id, [field, value, ...]].
func writeEntries(c *Ctx, entries []types.StreamEntry) {
	r := c.Reply()
	r.Array(len(entries))
	for i := range entries {
		writeEntry(c, &entries[i])
	}
}

// writeEntry replies one entry: [id, [field, value, ...]].
func writeEntry(c *Ctx, e *types.StreamEntry) {
	r := c.Reply()
	var buf [48]byte
	r.Array(2)
	r.Bulk(e.ID.AppendText(buf[:0]))
	r.Bulks(e.Items)
}

// XLEN key
func cmdXLen(c *Ctx, args [][]byte) error {
	n, err := c.DB.XLen(args[1])
	if err != nil {
		return err
	}
	c.Reply().Int(n)
	return nil
}

// XDEL key id [id ...]
func cmdXDel(c *Ctx, args [][]byte) error {
	// Redis looks the key up before it reads the IDs: a missing key is 0
	// whatever they are.
	n, err := c.DB.XDel(args[1], func() ([]types.StreamID, error) {
		ids := make([]types.StreamID, len(args)-2)
		for i, a := range args[2:] {
			id, _, err := parseStreamID(a, strictID)
			if err != nil {
				return nil, err
			}
			ids[i] = id
		}
		return ids, nil
	})
	if err != nil {
		return err
	}
	c.Reply().Int(n)
	return nil
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func cmdXSetID(c *Ctx, args [][]byte) error {
	id, _, err := parseStreamID(args[2], strictID)
	if err != nil {
		return err
	}
	entriesAdded := int64(-1)
	var maxDeleted types.StreamID
	for i := 3; i < len(args); i += 2 {
		more := len(args) - 1 - i
		switch {
		case is(args[i], "ENTRIESADDED") && more > 0:
			if entriesAdded, err = parseInt(args[i+1]); err != nil {
				return err
			}
			if entriesAdded < 0 {
				return errEntriesAddedNeg
			}
		case is(args[i], "MAXDELETEDID") && more > 0:
			if maxDeleted, _, err = parseStreamID(args[i+1], strictID); err != nil {
				return err
			}
			if id.Compare(maxDeleted) < 0 {
				return errSetIDMaxDeleted
			}
		default:
			return errSyntax
		}
	}
	if err := c.DB.XSetID(args[1], id, entriesAdded, maxDeleted); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// xreadArgs are XREAD's and XREADGROUP's options, read by one parser as
// Redis reads them: GROUP and NOACK are refused for XREAD, BLOCK from a
// script for both.
type xreadArgs struct {
	count           int64
	timeout         time.Duration // -1: no BLOCK
	keys, ids       [][]byte
	group, consumer []byte // XREADGROUP's GROUP
	noack           bool
}

func parseXRead(c *Ctx, args [][]byte, readGroup bool) (xreadArgs, error) {
	x := xreadArgs{timeout: -1}
	streamsAt := 0
	for i := 1; i < len(args) && streamsAt == 0; i++ {
		more := len(args) - 1 - i
		switch {
		case is(args[i], "BLOCK") && more > 0:
			if inScript(c) {
				// Redis refuses it, rather than try once as in MULTI.
				return x, replyError("ERR " + string(args[0]) + " command is not allowed with BLOCK option from scripts")
			}
			i++
			ms, err := parseBlockMs(args[i])
			if err != nil {
				return x, err
			}
			x.timeout = ms
		case is(args[i], "COUNT") && more > 0:
			i++
			n, err := parseInt(args[i])
			if err != nil {
				return x, err
			}
			x.count = max(n, 0)
		case is(args[i], "STREAMS") && more > 0:
			streamsAt = i + 1
			if (len(args)-streamsAt)%2 != 0 {
				return x, errXReadUnbalanced // XREADGROUP's too, in Redis 7.0
			}
		case is(args[i], "GROUP") && more >= 2:
			if !readGroup {
				return x, errXReadGroupOption
			}
			x.group, x.consumer = args[i+1], args[i+2]
			i += 2
		case is(args[i], "NOACK"):
			if !readGroup {
				return x, errXReadNoAckOption
			}
			x.noack = true
		default:
			return x, errSyntax
		}
	}
	if streamsAt == 0 {
		return x, errSyntax
	}
	if readGroup && x.group == nil {
		return x, errXReadGroupNoGroup
	}
	n := (len(args) - streamsAt) / 2
	x.keys, x.ids = args[streamsAt:streamsAt+n], args[streamsAt+n:]
	return x, nil
}

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
func cmdXRead(c *Ctx, args [][]byte) error {
	x, err := parseXRead(c, args, false)
	if err != nil {
		return err
	}
	count, timeout, keys := x.count, x.timeout, x.keys
	n := len(keys)
	ids := make([]types.StreamID, n)
	for i, key := range keys {
		// Each key is looked up (its type checked) before its ID is read.
		last, err := c.DB.StreamLastID(key)
		if err != nil {
			return err
		}
		switch arg := x.ids[i]; {
		case len(arg) == 1 && arg[0] == '$':
			ids[i] = last
		case len(arg) == 1 && arg[0] == '>':
			return errXReadGreaterID
		default:
			if ids[i], _, err = parseStreamID(arg, strictID); err != nil {
				return err
			}
		}
	}
	// A blocked XREAD is woken for one key, and reads it from the ID its
	// first mention gave (Redis keeps the first of repeated keys).
	first := make(map[string]types.StreamID, n)
	for i := n - 1; i >= 0; i-- {
		first[string(keys[i])] = ids[i]
	}
	initial := true
	try := func(ks [][]byte) (bool, error) {
		after := ids
		if !initial {
			after = make([]types.StreamID, len(ks))
			for i, k := range ks {
				after[i] = first[string(k)]
			}
		}
		initial = false
		got, err := c.DB.XRead(ks, after, count)
		if err != nil || len(got) == 0 {
			return false, err
		}
		writeXRead(c, got)
		return true, nil
	}
	if timeout < 0 {
		served, err := try(keys)
		if err == nil && !served {
			c.Reply().NullArray()
		}
		return err
	}
	return c.Srv.blockOn(c, keys, timeout, "stream", try)
}

// inScript reports whether c runs a script's redis.call (or a function's):
// its replies go to a captureConn (script.go).
func inScript(c *Ctx) bool {
	_, ok := c.Conn.(*captureConn)
	return ok
}

// parseBlockMs reads XREAD's BLOCK milliseconds as Redis's
// getTimeoutFromObjectOrReply: an integer, not negative. 0 waits forever,
// and so does a time past time.Duration's range (Redis 7.0 adds it to the
// clock, overflowing, and waits for ever too).
func parseBlockMs(b []byte) (time.Duration, error) {
	ms, ok := types.ParseInt(b)
	switch {
	case !ok:
		return 0, errTimeoutNotInteger
	case ms < 0:
		return 0, errTimeoutNegative
	case ms > maxTimeoutMs:
		return 0, nil // beyond time.Duration: as good as forever
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// writeXRead replies XREAD's streams: in RESP2 an array of [key, entries],
// in RESP3 a map of key to entries.
func writeXRead(c *Ctx, streams []types.XReadStream) {
	r := c.Reply()
	r.KeyedPairs(len(streams))
	for _, s := range streams {
		r.KeyedPair()
		r.Bulk(s.Key)
		writeEntries(c, s.Entries)
	}
}

// XINFO STREAM key [FULL [COUNT count]]
func cmdXInfoStream(c *Ctx, args [][]byte) error {
	// Redis looks the key up before it reads the options.
	switch typ, err := c.DB.Type(args[2]); {
	case err != nil:
		return err
	case typ == "none":
		return types.ErrNoSuchKey
	case typ != "stream":
		return types.ErrWrongType
	}
	full, count := false, int64(10)
	switch rest := args[3:]; {
	case len(rest) == 0:
	case !is(rest[0], "FULL"):
		return errSubcommandSyntax(args)
	case len(rest) == 1:
		full = true
	case len(rest) == 3 && is(rest[1], "COUNT"):
		n, err := parseInt(rest[2])
		if err != nil {
			return err
		}
		full, count = true, max(n, 0)
	default:
		return errSubcommandSyntax(args)
	}
	info, ok, err := c.DB.XInfoStream(args[2], full, count)
	if err != nil {
		return err
	}
	if !ok {
		return types.ErrNoSuchKey
	}
	var writeGroups func() // FULL's groups (cmd_stream_group.go), read before the reply starts
	if full {
		if writeGroups, err = streamFullGroups(c, args[2], count); err != nil {
			return err
		}
	}
	r := c.Reply()
	var buf [48]byte
	h := info.Header
	if full {
		r.Map(9)
	} else {
		r.Map(10)
	}
	r.BulkString("length")
	r.Int(int64(info.Length))
	r.BulkString("radix-tree-keys")
	r.Int(int64(info.Nodes))
	r.BulkString("radix-tree-nodes")
	r.Int(int64(radixNodes(info.Nodes)))
	r.BulkString("last-generated-id")
	r.Bulk(h.LastID.AppendText(buf[:0]))
	r.BulkString("max-deleted-entry-id")
	r.Bulk(h.MaxDeletedID.AppendText(buf[:0]))
	r.BulkString("entries-added")
	r.Int(int64(h.EntriesAdded))
	r.BulkString("recorded-first-entry-id")
	r.Bulk(h.FirstID.AppendText(buf[:0]))
	if full {
		r.BulkString("entries")
		writeEntries(c, info.Entries)
		r.BulkString("groups")
		writeGroups()
		return nil
	}
	r.BulkString("groups")
	r.Int(int64(h.Groups))
	for _, e := range []struct {
		name  string
		entry *types.StreamEntry
	}{{"first-entry", info.First}, {"last-entry", info.Last}} {
		r.BulkString(e.name)
		if e.entry == nil {
			r.Null()
		} else {
			writeEntry(c, e.entry)
		}
	}
	return nil
}

// radixNodes approximates radix-tree-nodes, the nodes of Redis's radix
// tree over keys macro nodes: a node for the empty tree, two for one key,
// and about two more per key beyond (the tree's exact shape depends on
// the IDs' bytes; Redis reports 6 for 2 keys, 26 for 10).
func radixNodes(keys uint64) uint64 {
	if keys <= 1 {
		return keys + 1
	}
	return 2*keys + 2
}

// XINFO HELP
func cmdXInfoHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "xinfo", []string{
		"CONSUMERS <key> <groupname>",
		"    Show consumers of <groupname>.",
		"GROUPS <key>",
		"    Show the stream consumer groups.",
		"STREAM <key> [FULL [COUNT <count>]",
		"    Show information about the stream.",
	})
	return nil
}

// xreadKeys finds XREAD's keys as Redis's xreadGetKeys: the first half of
// what follows STREAMS, skipping BLOCK's and COUNT's values (and GROUP's
// and NOACK, for XREADGROUP) before it.
func xreadKeys(args [][]byte) []int {
	for i := 1; i < len(args); i++ {
		switch {
		case is(args[i], "BLOCK"), is(args[i], "COUNT"):
			i++
		case is(args[i], "GROUP"):
			i += 2
		case is(args[i], "NOACK"):
		case is(args[i], "STREAMS"):
			n := len(args) - i - 1
			if n == 0 || n%2 != 0 {
				return nil
			}
			return keyRange(i+1, n/2)
		default:
			return nil
		}
	}
	return nil
}

var xinfoSubcommands = []Subcommand{
	sub("stream", -3, ReadOnly, cmdXInfoStream, cmdDoc{summary: "Get information about a stream", since: "5.0.0", group: "stream", complexity: "O(1)", args: "key [FULL [COUNT count]]"}),
	sub("help", 2, Loading|Stale, cmdXInfoHelp, cmdDoc{summary: "Show helpful text about the different subcommands", since: "5.0.0", group: "stream", complexity: "O(1)"}),
}

var streamCommands = []Command{
	cmd("xadd", -5, Write|DenyOOM|Fast|Grouped, 1, 1, 1, cmdXAdd).keySpecs(keyAt(1, KeyRW|KeyUpdate).noted("UPDATE instead of INSERT because of the optional trimming feature")).tips("nondeterministic_output").
		doc("Appends a new entry to a stream", "5.0.0", "stream", "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.", "key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...]"),
	cmd("xrange", -4, ReadOnly, 1, 1, 1, cmdXRange).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of elements in a stream, with IDs matching the specified IDs interval", "5.0.0", "stream", "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).", "key start end [COUNT count]"),
	cmd("xrevrange", -4, ReadOnly, 1, 1, 1, cmdXRevRange).keyFlags(KeyRO|KeyAccess).
		doc("Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE", "5.0.0", "stream", "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).", "key end start [COUNT count]"),
	cmd("xlen", 2, ReadOnly|Fast|Grouped, 1, 1, 1, cmdXLen).keyFlags(KeyRO).
		doc("Return the number of entries in a stream", "5.0.0", "stream", "O(1)", "key"),
	cmd("xdel", -3, Write|Fast, 1, 1, 1, cmdXDel).keyFlags(KeyRW|KeyDelete).
		doc("Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.", "5.0.0", "stream", "O(1) for each single item to delete in the stream, regardless of the stream size.", "key id [id ...]"),
	cmd("xtrim", -4, Write, 1, 1, 1, cmdXTrim).keyFlags(KeyRW|KeyDelete).tips("nondeterministic_output").
		doc("Trims the stream to (approximately if '~' is passed) a certain size", "5.0.0", "stream", "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.", "key MAXLEN|MINID [=|~] threshold [LIMIT count]"),
	cmd("xread", -4, ReadOnly|Blocking, 0, 0, 0, cmdXRead).keysBy(xreadKeys).
		keySpecs(KeySpec{Flags: KeyRO | KeyAccess, Begin: BeginSearch{Keyword: "STREAMS", StartFrom: 1}, Find: FindKeys{LastKey: -1, KeyStep: 1, Limit: 2}}).
		doc("Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.", "5.0.0", "stream", "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.", "[COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]"),
	cmd("xsetid", -3, Write|DenyOOM|Fast, 1, 1, 1, cmdXSetID).keyFlags(KeyRW|KeyUpdate).
		doc("An internal command for replicating stream values", "5.0.0", "stream", "O(1)", "key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]"),
	// XINFO keeps Redis 6's COMMAND INFO, as OBJECT does: the key range
	// on the container, where the dispatcher reads it (OBJECT IDLETIME,
	// keymiss events).
	cmd("xinfo", -2, ReadOnly, 2, 2, 1, nil).withSubcommands(append(xinfoSubcommands, xinfoGroupSubcommands...)).
		doc("A container for stream introspection commands", "5.0.0", "stream", "Depends on subcommand.", "subcommand [arg ...]"),
}
