package server

import (
	"math"
	"strconv"

	"github.com/tidwall/redcon"
)

// Reply writes a command's reply, in the shape Redis 7.0 gives it, on the
// connection the dispatcher handed the command. Handlers name the shape
// (Map, Set, Double, Bool, ...) and Reply encodes it in the protocol the
// client chose with HELLO, so that the protocol is known here alone.
//
// RESP2 encodes the RESP3 shapes the way Redis does for a RESP2 client: a
// map is a flat array of keys and values, a set an array, a double a bulk
// string, a boolean the integer 1 or 0, a push an array, a null $-1 or *-1.
//
// Reply writes through conn, never around it: conn may be the connection's
// replyCounter (output limits) or a mutedConn (CLIENT REPLY OFF or SKIP),
// and each must see every reply.
type Reply struct {
	conn  redcon.Conn
	resp3 bool // the client said HELLO 3
}

// Reply returns the writer for the reply of the command c runs, on c.Conn as
// it is now: CLIENT REPLY ON and blockOn swap c.Conn from or to a
// mutedConn, so take a new Reply after them rather than keep one across.
func (c *Ctx) Reply() Reply { return Reply{conn: c.Conn, resp3: c.resp3} }

// header writes a RESP3 aggregate or scalar header: kind, then n.
func (r Reply) header(kind byte, n int) {
	r.conn.WriteRaw(strconv.AppendInt([]byte{kind}, int64(n), 10))
	r.conn.WriteRaw(crlf)
}

var crlf = []byte("\r\n")

// Array starts an array of n elements; the caller writes them next.
func (r Reply) Array(n int) { r.conn.WriteArray(n) }

// Map starts a map of n key-value pairs; the caller writes 2n elements,
// each key followed by its value. RESP2: an array of 2n; RESP3: %n.
func (r Reply) Map(n int) {
	if r.resp3 {
		r.header('%', n)
		return
	}
	r.conn.WriteArray(2 * n)
}

// Set starts a set of n members. RESP2: an array of n; RESP3: ~n.
func (r Reply) Set(n int) {
	if r.resp3 {
		r.header('~', n)
		return
	}
	r.conn.WriteArray(n)
}

// Push starts an out-of-band message of n elements (a pub/sub message, a
// client-tracking invalidation). RESP2: an array of n; RESP3: >n.
func (r Reply) Push(n int) {
	if r.resp3 {
		r.header('>', n)
		return
	}
	r.conn.WriteArray(n)
}

// Pairs starts an array of n pairs, such as ZRANGE WITHSCORES' members and
// scores; each pair starts with Pair. RESP2: one flat array of 2n; RESP3:
// an array of n two-element arrays.
func (r Reply) Pairs(n int) {
	if r.resp3 {
		r.conn.WriteArray(n)
		return
	}
	r.conn.WriteArray(2 * n)
}

// Pair starts one pair of a Pairs array. RESP2: nothing; RESP3: *2.
func (r Reply) Pair() {
	if r.resp3 {
		r.conn.WriteArray(2)
	}
}

// Bulk replies a bulk string.
func (r Reply) Bulk(b []byte) { r.conn.WriteBulk(b) }

// BulkString replies a bulk string.
func (r Reply) BulkString(s string) { r.conn.WriteBulkString(s) }

// Verbatim replies text meant to be shown as is: INFO, CLIENT INFO, CLIENT
// LIST. RESP2: a bulk string; RESP3: a verbatim string of format txt.
func (r Reply) Verbatim(s string) { r.VerbatimFormat("txt", s) }

// VerbatimFormat replies s as a verbatim string of the given format (three
// characters in Redis, which pads or cuts it to three), for a script's
// {verbatim_string=...}. RESP2: a bulk string.
func (r Reply) VerbatimFormat(format, s string) {
	if !r.resp3 {
		r.conn.WriteBulkString(s)
		return
	}
	f := []byte((format + "   ")[:3])
	r.header('=', len(s)+4)
	r.conn.WriteRaw(append(append(append(f, ':'), s...), crlf...))
}

// BigNumber replies s, the decimal text of an integer of any size, for a
// script's {big_number=...}. RESP2: a bulk string; RESP3: (s.
func (r Reply) BigNumber(s string) {
	if !r.resp3 {
		r.conn.WriteBulkString(s)
		return
	}
	r.conn.WriteRaw(append(append([]byte{'('}, s...), crlf...))
}

// Int replies an integer.
func (r Reply) Int(n int64) { r.conn.WriteInt64(n) }

// Uint replies an unsigned integer, for counters past MaxInt64.
func (r Reply) Uint(n uint64) { r.conn.WriteUint64(n) }

// Status replies a simple string, +s. s holds no CR or LF.
func (r Reply) Status(s string) { r.conn.WriteString(s) }

// OK replies +OK.
func (r Reply) OK() { r.conn.WriteString("OK") }

// Error replies an error, -text; text is already the wire text (errorText).
// Only the dispatcher writes errors: handlers return them.
func (r Reply) Error(text string) { r.conn.WriteError(text) }

// Null replies a null where Redis sends a null bulk string (GET of a missing
// key). RESP2: $-1; RESP3: _.
func (r Reply) Null() {
	if r.resp3 {
		r.conn.WriteRaw(null3)
		return
	}
	r.conn.WriteNull()
}

// NullArray replies a null where Redis sends a null array (BLPOP's timeout,
// LPOP key count of a missing key). RESP2: *-1; RESP3: _.
func (r Reply) NullArray() {
	if r.resp3 {
		r.conn.WriteRaw(null3)
		return
	}
	r.conn.WriteRaw(nullArray)
}

var (
	nullArray = []byte("*-1\r\n")
	null3     = []byte("_\r\n")
)

// Double replies a floating-point number such as a sorted-set score.
// Redis 7.0 formats it "%.17g" with infinities as "inf" and "-inf" (1 ->
// "1", 0.1 -> "0.10000000000000001", 1e20 -> "1e+20"); RESP2 sends that
// text as a bulk string, RESP3 as a double, ",<text>".
func (r Reply) Double(f float64) {
	if r.resp3 {
		b := append([]byte{','}, formatDouble(f)...)
		r.conn.WriteRaw(append(b, crlf...))
		return
	}
	r.conn.WriteBulk(formatDouble(f))
}

// formatDouble is the RESP2 text of Double.
func formatDouble(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	}
	return strconv.AppendFloat(nil, f, 'g', 17, 64)
}

// DoubleOrNull replies f, or a Null when !ok.
func (r Reply) DoubleOrNull(f float64, ok bool) {
	if !ok {
		r.Null()
		return
	}
	r.Double(f)
}

// Bool replies a boolean. RESP2: the integer 1 or 0; RESP3: #t or #f.
// Redis 7.0's commands answer their yes-or-no questions with IntBool.
func (r Reply) Bool(b bool) {
	switch {
	case !r.resp3:
		r.IntBool(b)
	case b:
		r.conn.WriteRaw(true3)
	default:
		r.conn.WriteRaw(false3)
	}
}

var (
	true3  = []byte("#t\r\n")
	false3 = []byte("#f\r\n")
)

// IntBool replies the integer 1 when b holds, else 0, under every protocol:
// what Redis answers EXISTS-style questions with (SETNX, EXPIRE,
// SISMEMBER, ...), in RESP3 too.
func (r Reply) IntBool(b bool) {
	if b {
		r.conn.WriteInt64(1)
	} else {
		r.conn.WriteInt64(0)
	}
}

// BulkOrNull replies v, or a Null when !ok.
func (r Reply) BulkOrNull(v []byte, ok bool) {
	if !ok {
		r.Null()
		return
	}
	r.Bulk(v)
}

// Bulks replies an array of bulk strings; nil entries are Nulls.
func (r Reply) Bulks(items [][]byte) {
	r.Array(len(items))
	r.elements(items)
}

// BulkSet replies a Set of bulk strings.
func (r Reply) BulkSet(items [][]byte) {
	r.Set(len(items))
	r.elements(items)
}

// BulkMap replies a Map whose keys and values alternate in items.
func (r Reply) BulkMap(items [][]byte) {
	r.Map(len(items) / 2)
	r.elements(items)
}

// BulkPairs replies a Pairs array whose pairs' halves alternate in items.
func (r Reply) BulkPairs(items [][]byte) {
	r.Pairs(len(items) / 2)
	for i, it := range items {
		if i%2 == 0 {
			r.Pair()
		}
		r.BulkOrNull(it, it != nil)
	}
}

func (r Reply) elements(items [][]byte) {
	for _, it := range items {
		r.BulkOrNull(it, it != nil)
	}
}

// The reply helpers below end a handler that has one value or an error to
// answer: each returns err, or writes the value and returns nil.

// replyInt replies n unless err is set.
func replyInt(c *Ctx, n int64, err error) error {
	if err != nil {
		return err
	}
	c.Reply().Int(n)
	return nil
}

// replyIntBool replies b as the integer 1 or 0 unless err is set.
func replyIntBool(c *Ctx, b bool, err error) error {
	if err != nil {
		return err
	}
	c.Reply().IntBool(b)
	return nil
}

// replyBulkOrNull replies v, or a Null when !ok, unless err is set.
func replyBulkOrNull(c *Ctx, v []byte, ok bool, err error) error {
	if err != nil {
		return err
	}
	c.Reply().BulkOrNull(v, ok)
	return nil
}

// replyBulks replies items as an array unless err is set.
func replyBulks(c *Ctx, items [][]byte, err error) error {
	if err != nil {
		return err
	}
	c.Reply().Bulks(items)
	return nil
}

// replyBulkSet replies items as a Set unless err is set.
func replyBulkSet(c *Ctx, items [][]byte, err error) error {
	if err != nil {
		return err
	}
	c.Reply().BulkSet(items)
	return nil
}

// replyFirstOrNull replies the first of items, or a Null when items is
// empty, unless err is set: SPOP, SRANDMEMBER and HRANDFIELD without a count.
func replyFirstOrNull(c *Ctx, items [][]byte, err error) error {
	if err != nil {
		return err
	}
	if len(items) == 0 {
		c.Reply().Null()
	} else {
		c.Reply().Bulk(items[0])
	}
	return nil
}

// replyOK replies +OK unless err is set.
func replyOK(c *Ctx, err error) error {
	if err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}
