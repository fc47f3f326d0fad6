package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

func TestReadReply(t *testing.T) {
	in := "+OK\r\n-ERR no\r\n:42\r\n$3\r\nabc\r\n$-1\r\n*-1\r\n*2\r\n+QUEUED\r\n*1\r\n$2\r\nhi\r\n"
	r := bufio.NewReader(strings.NewReader(in))
	var got []string
	for {
		rep, err := readReply(r)
		if err != nil {
			break
		}
		got = append(got, rep.String())
	}
	want := []string{"+OK", "-ERR no", ":42", "$3", "$-1", "*-1", "*2[+QUEUED *1[$2]]"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"OK\r\n", "+OK\n", "$x\r\n", "*99999999\r\n", "?\r\n"} {
		if _, err := readReply(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readReply(%q) succeeded", bad)
		}
	}
}

func TestReadTxnReplies(t *testing.T) {
	ok := "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n+OK\r\n"
	if err := readTxnReplies(bufio.NewReader(strings.NewReader(ok)), 2); err != nil {
		t.Errorf("a good block: %v", err)
	}
	for _, bad := range []string{
		"+OK\r\n+QUEUED\r\n+QUEUED\r\n*-1\r\n",                     // a watch failed
		"+OK\r\n+QUEUED\r\n-ERR x\r\n-EXECABORT y\r\n",             // refused while queueing
		"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n-ERR z\r\n",     // failed inside
		"+OK\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n+OK\r\n+OK\r\n+OK\r\n", // too many replies
		"+OK\r\n+QUEUED\r\n",                                       // cut short
	} {
		if err := readTxnReplies(bufio.NewReader(strings.NewReader(bad)), 2); err == nil {
			t.Errorf("readTxnReplies(%q) succeeded", bad)
		}
	}
}

// TestSubscriberCount feeds a subscriber its frames cut at every size and
// checks the count, then a frame with a wrong byte.
func TestSubscriberCount(t *testing.T) {
	frame := appendCommand(nil, []byte("message"), []byte(fanoutChannel), []byte("payload"))
	stream := bytes.Repeat(frame, 50)
	for _, chunk := range []int{1, 7, len(frame), len(frame) + 3, len(stream)} {
		server, client := net.Pipe()
		go func() {
			for b := stream; len(b) > 0; b = b[min(chunk, len(b)):] {
				_, _ = server.Write(b[:min(chunk, len(b))])
			}
			server.Close()
		}()
		s := &subscriber{conn: client, r: bufio.NewReader(client), frame: frame}
		var received, last atomic.Int64
		_ = s.count(&received, &last)
		if received.Load() != 50 || last.Load() == 0 {
			t.Errorf("chunks of %d: received %d, last %d", chunk, received.Load(), last.Load())
		}
	}
	bad := append(bytes.Clone(frame), frame...)
	bad[len(bad)-3] = 'X'
	server, client := net.Pipe()
	go func() { _, _ = server.Write(bad); server.Close() }()
	s := &subscriber{conn: client, r: bufio.NewReader(client), frame: frame}
	var received, last atomic.Int64
	if err := s.count(&received, &last); err == nil || !strings.Contains(err.Error(), "unexpected") {
		t.Errorf("a wrong byte: err %v", err)
	}
}

// walWriter writes records as RocksDB's log::Writer does: fragments that
// never cross a 32 KiB block, a block's last bytes padded with zeros when
// a header does not fit.
type walWriter struct{ buf []byte }

func (w *walWriter) add(rec []byte) {
	for begin := true; begin || len(rec) > 0; begin = false {
		if left := walBlock - len(w.buf)%walBlock; left < walHeader {
			w.buf = append(w.buf, make([]byte, left)...)
		}
		n := min(len(rec), walBlock-len(w.buf)%walBlock-walHeader)
		end := n == len(rec)
		typ := byte(walMiddle)
		switch {
		case begin && end:
			typ = walFull
		case begin:
			typ = walFirst
		case end:
			typ = walLast
		}
		w.buf = append(w.buf, 0, 0, 0, 0) // the checksum, which walBatchCounts does not check
		w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(n))
		w.buf = append(w.buf, typ)
		w.buf = append(w.buf, rec[:n]...)
		rec = rec[n:]
	}
}

// batch is a WriteBatch of count records, padded to size bytes.
func batch(count uint32, size int) []byte {
	b := make([]byte, batchHeader, max(size, batchHeader))
	binary.LittleEndian.PutUint32(b[8:], count)
	return append(b, make([]byte, max(size-batchHeader, 0))...)
}

func TestWALBatchCounts(t *testing.T) {
	var w walWriter
	// Small batches, one that spans two blocks, and enough small ones
	// after it that a block ends with a trailer too short for a header.
	want := []uint32{1, 11}
	w.add(batch(1, 20))
	w.add(batch(11, 200))
	w.add(batch(500, 50000))
	want = append(want, 500)
	for i := range 3000 {
		w.add(batch(uint32(i), 23))
		want = append(want, uint32(i))
	}
	got, err := walBatchCounts(w.buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d batches, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("batch %d counts %d, want %d", i, got[i], want[i])
		}
	}
	// A record cut short (a write under way) is not counted; a
	// preallocated tail of zeros ends the log.
	if got, _ := walBatchCounts(w.buf[:len(w.buf)-5]); len(got) != len(want)-1 {
		t.Errorf("cut short: %d batches, want %d", len(got), len(want)-1)
	}
	if got, _ := walBatchCounts(append(bytes.Clone(w.buf), make([]byte, 100)...)); len(got) != len(want) {
		t.Errorf("zeros after: %d batches, want %d", len(got), len(want))
	}
	var short walWriter
	short.add([]byte("tiny"))
	if _, err := walBatchCounts(short.buf); err == nil {
		t.Error("a record shorter than a WriteBatch header: no error")
	}
}
