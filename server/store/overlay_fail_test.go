package store

import (
	"errors"
	"testing"

	"github.com/shaledb/shale/conf"
)

// TestQueueFailsReadersOfFailedWrites: a queued batch whose commands may
// have read a write that failed is not written, fails with ErrReadFailed,
// fails the batch queued behind it that read it in turn, and leaves no
// record in the overlay; a batch that read nothing failed is written.
func TestQueueFailsReadersOfFailedWrites(t *testing.T) {
	cfg := conf.Default()
	cfg.RocksDB.BlockCacheBytes = 8 << 20
	s, _ := openTestStore(t, cfg)

	// A first write takes ticket 1; the test then marks it failed, as the
	// leader does when RocksDB refuses a write.
	first := s.NewBatch()
	first.Put(CFMeta, []byte("first"), []byte("v"))
	if err := s.Write(first); err != nil {
		t.Fatal(err)
	}
	const failedTicket = 1
	s.ov.fail(failedTicket, failedTicket)

	batch := func(key string, from, upTo uint64) *Batch {
		b := s.NewBatch()
		b.Put(CFMeta, []byte(key), []byte("v"))
		b.readFrom, b.readUpTo = from, upTo
		return b
	}
	reader := batch("reader", failedTicket, failedTicket)
	if empty, err := s.prepareWrite(reader); empty || err != nil {
		t.Fatal(empty, err)
	}
	w := s.writes.submit(s, reader, true, false)
	chained := batch("chained", failedTicket, w.ticket)
	other := batch("other", 0, 0) // read no queued write
	for _, b := range []*Batch{chained, other} {
		if empty, err := s.prepareWrite(b); empty || err != nil {
			t.Fatal(empty, err)
		}
	}
	wc := s.writes.submit(s, chained, true, false)
	wo := s.writes.submit(s, other, true, false)
	done := make(chan error, 2)
	go func() { done <- s.writes.await(s, wc) }()
	go func() { done <- s.writes.await(s, wo) }()
	if err := s.writes.await(s, w); !errors.Is(err, ErrReadFailed) {
		t.Errorf("the reader of a failed write: %v, want ErrReadFailed", err)
	}
	errs := []error{<-done, <-done}
	failed := 0
	for _, err := range errs {
		switch {
		case errors.Is(err, ErrReadFailed):
			failed++
		case err != nil:
			t.Errorf("unexpected error %v", err)
		}
	}
	if failed != 1 {
		t.Errorf("errors %v: want the chained reader failed and the other written", errs)
	}
	for key, want := range map[string]bool{"reader": false, "chained": false, "other": true} {
		if _, found, err := s.Get(CFMeta, []byte(key)); err != nil || found != want {
			t.Errorf("%s in the store: %v %v, want %v", key, found, err, want)
		}
	}
	if n := s.ov.records.Load(); n != 0 {
		t.Errorf("%d records left in the overlay", n)
	}
}
