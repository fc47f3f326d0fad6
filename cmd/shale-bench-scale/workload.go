package main

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// test is one measured command under one key distribution.
type test struct {
	Cmd  string // GET, SET, HGET or HSET
	Dist string // uniform or zipfian
}

func (t test) String() string { return t.Cmd + " " + t.Dist }

var (
	commands      = []string{"GET", "SET", "HGET", "HSET"}
	distributions = []string{"uniform", "zipfian"}
)

func allTests() []test {
	var ts []test
	for _, d := range distributions {
		for _, c := range commands {
			ts = append(ts, test{Cmd: c, Dist: d})
		}
	}
	return ts
}

// testResult is one run of a test against one server.
type testResult struct {
	Server string
	Keys   int // the data set's size
	Test   test
	Round  int
	Ops    uint64
	// Misses counts GET and HGET replies that found nothing: every key and
	// field read was loaded, so a miss is a bug, and the report says so.
	Misses         uint64
	Seconds        float64
	P50, P99, P999 time.Duration
}

func (r testResult) OpsPerSec() float64 { return float64(r.Ops) / r.Seconds }

// appendRequest appends the test's command on key number n (a hash's number
// for HGET and HSET) to dst.
func appendRequest(dst []byte, t test, n int, r *rand.Rand, v *values) []byte {
	var key, field [32]byte
	switch t.Cmd {
	case "GET":
		return appendCommand(dst, []byte("GET"), appendStringKey(key[:0], n))
	case "SET":
		return appendCommand(dst, []byte("SET"), appendStringKey(key[:0], n), v.Get(r, stringBytes))
	case "HGET":
		return appendCommand(dst, []byte("HGET"), appendHashKey(key[:0], n), appendField(field[:0], r.IntN(hashFields)))
	default:
		return appendCommand(dst, []byte("HSET"), appendHashKey(key[:0], n), appendField(field[:0], r.IntN(hashFields)), v.Get(r, hashValueBytes))
	}
}

// runTest drives the server with clients connections, each sending one
// request and waiting for its reply, for the duration, choosing keys among
// the keys loaded (hashes: hashCount(keys)) by the test's distribution. The
// SETs and HSETs overwrite loaded keys and fields, so the data set keeps its
// size.
func runTest(addr string, clients int, dur time.Duration, t test, keys int, vals *values, seed uint64) (testResult, error) {
	res := testResult{Keys: keys, Test: t}
	space := keys
	if t.Cmd == "HGET" || t.Cmd == "HSET" {
		space = hashCount(keys)
	}
	conns := make([]*conn, clients)
	for i := range conns {
		c, err := dial(addr)
		if err != nil {
			return res, err
		}
		defer c.Close()
		conns[i] = c
	}
	hists := make([]benchhost.Histogram, clients)
	misses := make([]uint64, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	begin := time.Now()
	deadline := begin.Add(dur)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			keys := newChooser(t.Dist, r, space)
			_ = c.c.SetDeadline(deadline.Add(time.Minute))
			for {
				sent := time.Now()
				if sent.After(deadline) {
					return
				}
				c.buf = appendRequest(c.buf[:0], t, keys.Next(), r, vals)
				if _, err := c.c.Write(c.buf); err != nil {
					errs[i] = err
					return
				}
				isNil, err := discardReply(c.r)
				if err != nil {
					errs[i] = fmt.Errorf("%v: %w", t, err)
					return
				}
				hists[i].Record(time.Since(sent))
				if isNil {
					misses[i]++
				}
			}
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(begin).Seconds()
	var all benchhost.Counts
	for i := range hists {
		all.Add(&hists[i])
		res.Misses += misses[i]
		if errs[i] != nil {
			return res, errs[i]
		}
	}
	res.Ops = uint64(all.Total())
	res.P50, res.P99, res.P999 = all.Percentile(50), all.Percentile(99), all.Percentile(99.9)
	return res, nil
}
