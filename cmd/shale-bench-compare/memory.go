package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// shaleColumnFamilies is the number of RocksDB column families shale opens
// (default, metadata, subkey, score, bookkeeping, expire); each may hold up
// to write_buffer_bytes × max_write_buffer_number of memtables.
const shaleColumnFamilies = 6

// memoryConfig is the data set and the memory budget of the memory run.
type memoryConfig struct {
	DataBytes        int64 // field + value bytes to load
	ValueBytes       int   // bytes per hash value
	FieldsPerKey     int   // fields per hash
	BlockCacheBytes  int64 // rocksdb.block_cache_bytes
	WriteBufferBytes int64 // rocksdb.write_buffer_bytes
	WriteBuffers     int   // rocksdb.max_write_buffer_number
	Mixed            time.Duration
	Workers          int // concurrent clients of the mixed run
}

// MemtableBudget is the most memory the memtables of every column family may
// hold.
func (m memoryConfig) MemtableBudget() int64 {
	return shaleColumnFamilies * m.WriteBufferBytes * int64(m.WriteBuffers)
}

// Target is the bound on RSS: block cache + memtables + 256 MiB.
func (m memoryConfig) Target() int64 {
	return m.BlockCacheBytes + m.MemtableBudget() + 256<<20
}

// memoryResult is what the memory run measured.
type memoryResult struct {
	Keys, Fields   int
	LoadSeconds    float64
	MixedOps       int64
	MixedSeconds   float64
	PeakRSSMixed   int64 // bytes: the largest VmRSS sampled during the mixed run
	HWMTotal       int64 // bytes: VmHWM at the end (load included)
	RSSSamples     []rssSample
	SSTBytesSubkey int64
}

// rssSample is the server's resident set at one moment.
type rssSample struct {
	Seconds float64 // since the load began
	Phase   string  // "load" or "mixed"
	Bytes   int64
}

func memKey(k int) string   { return fmt.Sprintf("mem:%012d", k) }
func memField(f int) string { return fmt.Sprintf("f:%012d", f) }

// runMemory loads m.DataBytes of hashes into the shale server with the given
// PID, then runs a mixed HGET/HSET load over random keys and fields for
// m.Mixed, sampling the server's RSS four times a second throughout.
func runMemory(ctx context.Context, c *redis.Client, pid int, m memoryConfig) (memoryResult, error) {
	var res memoryResult
	perField := int64(len(memField(0)) + m.ValueBytes)
	res.Fields = int(m.DataBytes / perField)
	res.Keys = max(1, res.Fields/m.FieldsPerKey)
	res.Fields = res.Keys * m.FieldsPerKey

	// Incompressible values, so that the data on disk is as big as loaded.
	random := make([]byte, 1<<20+m.ValueBytes)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	value := func(r *rand.Rand) []byte {
		off := r.IntN(len(random) - m.ValueBytes)
		return random[off : off+m.ValueBytes]
	}

	start := time.Now()
	var phase atomic.Value
	phase.Store("load")
	stopSampling := make(chan struct{})
	sampled := make(chan error, 1)
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				sampled <- nil
				return
			case <-t.C:
			}
			rss, err := benchhost.ProcStatusBytes(pid, "VmRSS")
			if err != nil {
				sampled <- err
				return
			}
			p := phase.Load().(string)
			res.RSSSamples = append(res.RSSSamples, rssSample{time.Since(start).Seconds(), p, rss})
			if p == "mixed" {
				res.PeakRSSMixed = max(res.PeakRSSMixed, rss)
			}
		}
	}()
	stop := func() error {
		close(stopSampling)
		return <-sampled
	}

	// Load with a few pipelined clients, each owning a share of the keys.
	const loaders = 4
	var wg sync.WaitGroup
	errs := make(chan error, loaders)
	for w := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 3))
			pipe := c.Pipeline()
			for k := w; k < res.Keys; k += loaders {
				args := []any{"HSET", memKey(k)}
				for f := range m.FieldsPerKey {
					args = append(args, memField(f), value(r))
					if len(args) == 2+2*100 || f == m.FieldsPerKey-1 {
						pipe.Do(ctx, args...)
						args = []any{"HSET", memKey(k)}
					}
					if pipe.Len() == 20 {
						if _, err := pipe.Exec(ctx); err != nil {
							errs <- err
							return
						}
					}
				}
			}
			if _, err := pipe.Exec(ctx); err != nil { // an empty pipeline returns nil
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		stop()
		return res, fmt.Errorf("load: %w", err)
	}
	res.LoadSeconds = time.Since(start).Seconds()

	// Mixed: half HGET, half HSET of one random field of one random key.
	phase.Store("mixed")
	mixedStart := time.Now()
	deadline := mixedStart.Add(m.Mixed)
	var ops atomic.Int64
	errs = make(chan error, m.Workers)
	for w := range m.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 4))
			for time.Now().Before(deadline) {
				key, field := memKey(r.IntN(res.Keys)), memField(r.IntN(m.FieldsPerKey))
				var err error
				if r.IntN(2) == 0 {
					err = c.HGet(ctx, key, field).Err()
				} else {
					err = c.HSet(ctx, key, field, value(r)).Err()
				}
				if err != nil {
					errs <- err
					return
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	res.MixedSeconds = time.Since(mixedStart).Seconds()
	res.MixedOps = ops.Load()
	if err := stop(); err != nil {
		return res, err
	}
	if err := <-errs; err != nil {
		return res, fmt.Errorf("mixed run: %w", err)
	}
	hwm, err := benchhost.ProcStatusBytes(pid, "VmHWM")
	if err != nil {
		return res, err
	}
	res.HWMTotal = hwm
	if res.SSTBytesSubkey, err = sstBytes(ctx, c); err != nil {
		return res, err
	}
	return res, nil
}
