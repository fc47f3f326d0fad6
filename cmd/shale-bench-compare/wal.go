package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Issue 16 asks that a transaction of ten writes cost one RocksDB
// WriteBatch, not ten. INFO does not count RocksDB's writes, but the
// write-ahead log does: each DB.Write appends one WAL record holding its
// WriteBatch, whose header counts the batch's records. With one client
// sending one request at a time, nothing joins its writes with another
// client's (store's writeQueue), so the WAL records added are the server's
// DB.Writes, one for one.

// The WAL's framing (RocksDB db/log_format.h, the on-disk format of every
// release): 32 KiB blocks of fragments, each with a 7-byte header
// (checksum 4, length 2 LE, type 1), or 11 bytes for the recyclable types
// (plus a log number 4). A block's last bytes, too few for a header, are
// zero padding.
const (
	walBlock           = 32 << 10
	walHeader          = 7
	walRecyclable      = 11
	walZero            = 0
	walFull, walFirst  = 1, 2
	walMiddle, walLast = 3, 4
	walRecyclableFull  = 5 // 5 to 8: the four above, recyclable
	walRecyclableLast  = 8
	batchHeader        = 12 // a WriteBatch: sequence fixed64 · count fixed32 LE
)

// walBatchCounts returns the record count of each WriteBatch in one WAL
// file's bytes, in order. A truncated last record (a write under way) is
// not counted. Records of other kinds (type 9 and above: compression and
// other metadata) are skipped.
func walBatchCounts(data []byte) ([]uint32, error) {
	var counts []uint32
	var pending []byte // a fragmented record's fragments so far
	batch := func(b []byte) error {
		if len(b) < batchHeader {
			return fmt.Errorf("WAL record of %d bytes: shorter than a WriteBatch header", len(b))
		}
		counts = append(counts, binary.LittleEndian.Uint32(b[8:batchHeader]))
		return nil
	}
	for off := 0; off < len(data); {
		if left := walBlock - off%walBlock; left < walHeader {
			off += left
			continue
		}
		if off+walHeader > len(data) {
			break
		}
		length := int(binary.LittleEndian.Uint16(data[off+4:]))
		typ := data[off+6]
		if typ == walZero {
			break // preallocated space: the end of what was written
		}
		hdr := walHeader
		if typ >= walRecyclableFull && typ <= walRecyclableLast {
			hdr, typ = walRecyclable, typ-walRecyclableFull+walFull
		}
		if off+hdr+length > len(data) {
			break
		}
		payload := data[off+hdr : off+hdr+length]
		off += hdr + length
		switch typ {
		case walFull:
			if err := batch(payload); err != nil {
				return nil, err
			}
		case walFirst:
			pending = append(pending[:0], payload...)
		case walMiddle:
			pending = append(pending, payload...)
		case walLast:
			if err := batch(append(pending, payload...)); err != nil {
				return nil, err
			}
			pending = pending[:0]
		}
	}
	return counts, nil
}

// walFileName matches a WAL file's name in a RocksDB directory.
var walFileName = regexp.MustCompile(`^[0-9]+\.log$`)

// walStats sums the WriteBatches and their records over a directory's WAL
// files.
type walStats struct{ Batches, Records int }

func readWALStats(dir string) (walStats, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return walStats{}, err
	}
	var st walStats
	for _, e := range entries {
		if !walFileName.MatchString(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return walStats{}, err
		}
		counts, err := walBatchCounts(data)
		if err != nil {
			return walStats{}, fmt.Errorf("%s: %w", e.Name(), err)
		}
		st.Batches += len(counts)
		for _, n := range counts {
			st.Records += int(n)
		}
	}
	return st, nil
}

// txnWALResult is what the WAL and INFO showed of n transactions of sets
// SETs each, and of the same SETs sent one per round trip.
type txnWALResult struct {
	Transactions, Sets int
	Txn, Plain         walStats // what each part added to the WAL
	Committed          int64    // INFO's transactions_committed, added by the transactions
}

// measureTxnWAL sends n MULTI blocks of sets SETs to a fresh Shale, one
// at a time from one client, then n×sets SETs of other new keys one per
// round trip, and reads the WAL batches each part added. Both parts create
// their keys, so that each pays the same records: a SET's own, and the
// key count's merge operand of each batch that creates keys.
func measureTxnWAL(ctx context.Context, shale *server, n, sets int) (txnWALResult, error) {
	res := txnWALResult{Transactions: n, Sets: sets}
	walDir := shale.Dir
	info := newClient(shale.Addr)
	defer info.Close()
	committed := func() (int64, error) {
		text, err := info.Info(ctx, "stats").Result()
		if err != nil {
			return 0, err
		}
		return infoInt(text, "transactions_committed")
	}
	c, r, err := dialLoad(shale.Addr, time.Now().Add(5*time.Minute))
	if err != nil {
		return res, err
	}
	defer c.Close()
	before, err := readWALStats(walDir)
	if err != nil {
		return res, err
	}
	c0, err := committed()
	if err != nil {
		return res, err
	}
	var buf []byte
	key := func(part string, i, j int) []byte { return []byte(fmt.Sprintf("wal:%s:%06d:%02d", part, i, j)) }
	for i := range n {
		buf = appendCommand(buf[:0], []byte("MULTI"))
		for j := range sets {
			buf = appendCommand(buf, []byte("SET"), key("multi", i, j), []byte("xxx"))
		}
		buf = appendCommand(buf, []byte("EXEC"))
		if _, err := c.Write(buf); err != nil {
			return res, err
		}
		if err := readTxnReplies(r, sets); err != nil {
			return res, err
		}
	}
	mid, err := readWALStats(walDir)
	if err != nil {
		return res, err
	}
	c1, err := committed()
	if err != nil {
		return res, err
	}
	for i := range n {
		for j := range sets {
			if err := plainSet(c, r, key("plain", i, j)); err != nil {
				return res, err
			}
		}
	}
	after, err := readWALStats(walDir)
	if err != nil {
		return res, err
	}
	res.Committed = c1 - c0
	res.Txn = walStats{mid.Batches - before.Batches, mid.Records - before.Records}
	res.Plain = walStats{after.Batches - mid.Batches, after.Records - mid.Records}
	return res, nil
}

// plainSet sends one SET and reads its OK.
func plainSet(c net.Conn, r *bufio.Reader, key []byte) error {
	if _, err := c.Write(appendCommand(nil, []byte("SET"), key, []byte("yyy"))); err != nil {
		return err
	}
	rep, err := readReply(r)
	if err == nil && (rep.Kind != '+' || rep.Line != "OK") {
		err = fmt.Errorf("SET: got %v", rep)
	}
	return err
}

// infoInt reads an integer field of an INFO reply.
func infoInt(info, field string) (int64, error) {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("INFO: no %s", field)
}
