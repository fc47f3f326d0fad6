package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// loadKind is one of the two parts of the data set.
type loadKind struct {
	Name  string // "strings" or "hashes"
	Batch int    // commands per pipelined batch: about 64 KiB of requests
	// Append appends the command that loads key number n to dst.
	Append func(dst []byte, n int, r *rand.Rand, v *values) []byte
	// Items is the number of elements one command writes.
	Items int
}

var (
	loadStrings = loadKind{Name: "strings", Batch: 512, Items: 1,
		Append: func(dst []byte, n int, r *rand.Rand, v *values) []byte {
			dst = appendHeader(dst, '*', 3)
			dst = appendBulk(dst, []byte("SET"))
			dst = appendBulkNumbered(dst, appendStringKey, n)
			return appendBulk(dst, v.Get(r, stringBytes))
		}}
	// A hash is one HSET of all its fields.
	loadHashes = loadKind{Name: "hashes", Batch: 24, Items: hashFields,
		Append: func(dst []byte, n int, r *rand.Rand, v *values) []byte {
			dst = appendHeader(dst, '*', 2+2*hashFields)
			dst = appendBulk(dst, []byte("HSET"))
			dst = appendBulkNumbered(dst, appendHashKey, n)
			var field [4]byte
			for f := range hashFields {
				dst = appendBulk(dst, appendField(field[:0], f))
				dst = appendBulk(dst, v.Get(r, hashValueBytes))
			}
			return dst
		}}
)

// appendBulkNumbered appends key number n, as appendKey makes it, as a bulk
// string.
func appendBulkNumbered(dst []byte, appendKey func([]byte, int) []byte, n int) []byte {
	var key [32]byte
	return appendBulk(dst, appendKey(key[:0], n))
}

// loadResult is one kind's load into one server.
type loadResult struct {
	Commands int     // keys written
	Seconds  float64 // wall time
}

func (l loadResult) PerSecond() float64 {
	if l.Seconds == 0 {
		return 0
	}
	return float64(l.Commands) / l.Seconds
}

// errLoadCut reports a load stopped by the run's deadline.
var errLoadCut = errors.New("load stopped at the -max-time deadline")

// load writes key numbers [from, to) of kind into the server over conns
// connections, each sending a batch of pipelined commands and then reading
// their replies. Connections take batches from a shared counter, so a slow
// one does not hold the others back. It stops with errLoadCut when ctx ends.
func load(ctx context.Context, addr string, conns int, kind loadKind, from, to int, vals *values) (loadResult, error) {
	res := loadResult{Commands: to - from}
	if to <= from {
		return res, nil
	}
	begin := time.Now()
	var next, done atomic.Int64
	next.Store(int64(from))
	stopProgress := make(chan struct{})
	go func() {
		t := time.NewTicker(15 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopProgress:
				return
			case <-t.C:
				n := done.Load()
				logf("  %s: %d of %d %s loaded, %.0f/s", addr, n, to-from, kind.Name, float64(n)/time.Since(begin).Seconds())
			}
		}
	}()
	defer close(stopProgress)

	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := loadConn(ctx, addr, kind, to, &next, &done, vals, uint64(w)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	res.Seconds = time.Since(begin).Seconds()
	for err := range errs {
		return res, err
	}
	return res, nil
}

func loadConn(ctx context.Context, addr string, kind loadKind, to int, next, done *atomic.Int64, vals *values, seed uint64) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	r := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	for {
		if ctx.Err() != nil {
			return errLoadCut
		}
		first := int(next.Add(int64(kind.Batch))) - kind.Batch
		if first >= to {
			return nil
		}
		last := min(first+kind.Batch, to)
		c.buf = c.buf[:0]
		for n := first; n < last; n++ {
			c.buf = kind.Append(c.buf, n, r, vals)
		}
		_ = c.c.SetDeadline(time.Now().Add(5 * time.Minute))
		if _, err := c.w.Write(c.buf); err != nil {
			return err
		}
		if err := c.w.Flush(); err != nil {
			return err
		}
		for n := first; n < last; n++ {
			if _, err := discardReply(c.r); err != nil {
				return fmt.Errorf("load %s %d: %w", kind.Name, n, err)
			}
		}
		done.Add(int64(last - first))
	}
}
