package main

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestKeyNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{string(appendStringKey(nil, 42)), "str:000000042"},
		{string(appendHashKey(nil, 999999999)), "hash:999999999"},
		{string(appendField(nil, 7)), "f07"},
		{string(appendField(nil, hashFields-1)), "f99"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestZipfKeys checks that zipfian choices cover exactly the key range, are
// skewed as the report says, and that the scatter is a bijection, so every
// rank has its own key.
func TestZipfKeys(t *testing.T) {
	for _, n := range []int{10, 1000, 12345, 1000000} {
		seen := make([]bool, n)
		for rank := range n {
			k := int(uint64(rank) * scatterMul % uint64(n))
			if seen[k] {
				t.Fatalf("n %d: rank %d maps to key %d twice", n, rank, k)
			}
			seen[k] = true
		}
	}
	const n, draws = 1000000, 200000
	z := newChooser("zipfian", rand.New(rand.NewPCG(5, 6)), n)
	counts := map[int]int{}
	for range draws {
		k := z.Next()
		if k < 0 || k >= n {
			t.Fatalf("key %d outside [0, %d)", k, n)
		}
		counts[k]++
	}
	freq := make([]int, 0, len(counts))
	for _, c := range counts {
		freq = append(freq, c)
	}
	slices.Sort(freq)
	slices.Reverse(freq)
	hot := 0
	for _, c := range freq[:min(len(freq), n/100)] {
		hot += c
	}
	// zipfS's comment: the hottest 1% of keys take about 80% of requests.
	if share := float64(hot) / draws; share < 0.75 || share > 0.9 {
		t.Errorf("hottest 1%% of keys took %.2f of the draws; want 0.75..0.9", share)
	}
	u := newChooser("uniform", rand.New(rand.NewPCG(7, 8)), 10)
	for range 1000 {
		if k := u.Next(); k < 0 || k >= 10 {
			t.Fatalf("uniform key %d outside [0, 10)", k)
		}
	}
}

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "1000000,10000000", want: []int{1000000, 10000000}},
		{in: "1e7, 1e6,1e6", want: []int{1000000, 10000000}},
		{in: "5", wantErr: true},
		{in: "1.5", wantErr: true},
		{in: "1e9", wantErr: true},
		{in: "x", wantErr: true},
	} {
		got, err := parseSizes(tc.in)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("parseSizes(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestSizePlan(t *testing.T) {
	const gib = 1 << 30
	base := sizePlan{Keys: 10000000, Loaded: 1000000, LoadPerKey: 20e-6, Tests: 5 * time.Minute,
		Left: time.Hour, MaxTime: 90 * time.Minute, DiskPerKey: 300, Used: 1 * gib, Free: 50 * gib}
	for _, tc := range []struct {
		name   string
		change func(*sizePlan)
		want   string // prefix of the reason; "" to start
	}{
		{"fits", func(*sizePlan) {}, ""},
		// 9M keys × 20 µs × 1.5 = 4.5 min of load, plus 5 min of tests.
		{"no time", func(p *sizePlan) { p.Left = 9 * time.Minute }, "not started: estimated 10m0s"},
		// Plus 10M × 6 µs of SAVE and restarts: 1 minute.
		{"no time for the rest", func(p *sizePlan) { p.Left, p.OtherPerKey = 10*time.Minute, 6e-6 }, "not started: estimated 11m0s"},
		{"first size has no estimate", func(p *sizePlan) { p.LoadPerKey, p.Left = 0, time.Minute }, ""},
		{"deadline passed", func(p *sizePlan) { p.Left = 0 }, "not started: the run reached"},
		// 10M × 300 B × 1.5 = 4.2 GiB, less the 1 GiB there.
		{"disk", func(p *sizePlan) { p.Free = 7 * gib }, "not started: needs about 3 GiB more disk"},
		{"disk with the archive", func(p *sizePlan) { p.Free, p.Archive = 8*gib, 2*gib }, "not started: needs about 5 GiB more disk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			tc.change(&p)
			got := p.SkipReason()
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
