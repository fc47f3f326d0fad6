package server

import (
	"strings"
	"sync"
	"testing"
)

// TestLatencyGraph compares graph with LATENCY GRAPH's charts from
// redis-server 7.0.15 for the same samples.
func TestLatencyGraph(t *testing.T) {
	const now = 1_795_646_560
	for _, tc := range []struct {
		name    string
		samples []latencySample
		allTime int64
		want    string
	}{
		{"two", []latencySample{{now - 1, 50}, {now, 20}}, 50,
			"command - high 50 ms, low 20 ms (all time high 50 ms)\n" + strings.Repeat("-", 80) + "\n" +
				"# \n| \n| \n|_\n  \n10\nss\n"},
		{"one", []latencySample{{now, 50}}, 50,
			"command - high 50 ms, low 50 ms (all time high 50 ms)\n" + strings.Repeat("-", 80) + "\n" +
				" \n \n \n_\n \n0\ns\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := graph("command", tc.samples, tc.allTime, now); got != tc.want {
				t.Errorf("graph:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}

// TestLatencyMonitor checks the series' rules: one sample per second, the
// highest; at most latencyHistoryLen of them; RESET in any case.
func TestLatencyMonitor(t *testing.T) {
	var m latencyMonitor
	m.init(10)
	m.add("command", 12, 100)
	m.add("command", 30, 100)
	m.add("command", 20, 100)
	samples, allTime, ok := m.history("command")
	if !ok || allTime != 30 || len(samples) != 1 || samples[0] != (latencySample{100, 30}) {
		t.Fatalf("history = %v, %d, %v; want one sample {100 30}, all time 30", samples, allTime, ok)
	}
	for i := range int64(latencyHistoryLen + 10) {
		m.add("command", 11+i, 200+i)
	}
	samples, _, _ = m.history("command")
	if len(samples) != latencyHistoryLen || samples[0].at != 210 || samples[len(samples)-1].at != 200+latencyHistoryLen+9 {
		t.Fatalf("history keeps %d samples from %d to %d; want %d, the newest", len(samples), samples[0].at, samples[len(samples)-1].at, latencyHistoryLen)
	}
	if _, _, ok := m.history("COMMAND"); ok {
		t.Error("history found COMMAND: names are exact")
	}
	if n := m.reset([][]byte{[]byte("COMMAND"), []byte("command")}); n != 1 {
		t.Errorf("reset = %d, want 1", n)
	}
	if l := m.latest(); len(l) != 0 {
		t.Errorf("latest after reset = %v", l)
	}
}

// TestAccessClock checks idle times and the generations' floor.
func TestAccessClock(t *testing.T) {
	var a accessClock
	a.init(2)
	a.touch(0, []byte("k"), 10)
	if got := a.idle(0, []byte("k"), 15); got != 5 {
		t.Errorf("idle = %d, want 5", got)
	}
	if got := a.idle(1, []byte("k"), 15); got != 15 {
		t.Errorf("idle of the same name in db 1 = %d, want 15 (never touched)", got)
	}
	a.swapDBs(0, 1)
	if got := a.idle(1, []byte("k"), 15); got != 5 {
		t.Errorf("idle after SWAPDB = %d, want 5", got)
	}
	// Fill k's shard past two generations: k's entry is dropped, and its
	// idle time is then counted from the floor, the second-last rotation,
	// at 21 or later.
	shard := a.hash(1, []byte("k")) % accessShards
	for i, n := 0, 0; n < accessShardCap*2; i++ {
		key := []byte{byte(i), byte(i >> 8), byte(i >> 16), byte(i >> 24)}
		if a.hash(0, key)%accessShards == shard {
			a.touch(0, key, 20+uint32(n/(accessShardCap/2)))
			n++
		}
	}
	got := a.idle(1, []byte("k"), 30)
	if got < 5 || got > 30-21 {
		t.Errorf("idle of a dropped key = %d, want between 5 and 9", got)
	}
}

// TestAccessClockConcurrent touches, reads and swaps from several
// goroutines at once, for the race detector.
func TestAccessClockConcurrent(t *testing.T) {
	var a accessClock
	a.init(2)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20_000 {
				key := []byte{byte(g), byte(i), byte(i >> 8)}
				a.touch(i%2, key, uint32(i/1000))
				a.idle(i%2, key, uint32(i/1000))
				if i%5000 == 0 {
					a.swapDBs(0, 1)
				}
			}
		}()
	}
	wg.Wait()
}
