package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// options are the command-line flags.
type options struct {
	ShaleBin, RedisBin   string
	Out, Doc, WorkDir    string
	ShaleConfig          string // TOML appended to the harness's config
	Sizes                []int
	For, MaxTime, Settle time.Duration
	Rounds, Clients      int
	LoadConns            int
	RedisMaxBytes        int64 // Redis runs at a size only while its memory estimate stays below this
	NoRedis              bool
	PortBase             int // 0: free ports
	Quick                bool
}

func main() {
	var o options
	sizes := flag.String("sizes", "1000000,10000000,100000000", "comma-separated data set sizes, in string keys (plus a tenth as many 100-field hashes), measured in increasing order; each size adds keys to the previous one")
	flag.BoolVar(&o.Quick, "quick", false, "a run of a few minutes: sizes 100000,1000000, 2s tests, 2 rounds; writes to bin/scale-quick unless -out and -doc are given")
	flag.StringVar(&o.ShaleBin, "shale", "bin/shale-server", "shale-server binary (make build makes it)")
	flag.StringVar(&o.RedisBin, "redis-server", "/usr/bin/redis-server", "redis-server binary")
	flag.StringVar(&o.Out, "out", "docs/bench", "directory for scale.csv and the scale-*.png plots")
	flag.StringVar(&o.Doc, "doc", "docs/SCALE.md", "the Markdown report to (re)write")
	flag.StringVar(&o.WorkDir, "workdir", "", "directory for the servers' data, in its subdirectories shale/ and redis/, which the run replaces and keeps (default: a new temporary directory, removed afterwards); 100M keys need tens of GB")
	flag.StringVar(&o.ShaleConfig, "shale-config", "", "TOML text appended to Shale's configuration (default: the built-in defaults)")
	flag.DurationVar(&o.For, "for", 6*time.Second, "duration of each test run")
	flag.IntVar(&o.Rounds, "rounds", 3, "alternating rounds (Shale, Redis, Shale, Redis, ...) of each test per size; the report gives medians")
	flag.IntVar(&o.Clients, "c", 50, "clients of the load generator, one request in flight each")
	flag.IntVar(&o.LoadConns, "load-conns", 8, "pipelining connections of the loader")
	flag.DurationVar(&o.MaxTime, "max-time", 90*time.Minute, "bound on the whole run: a size whose estimated load and tests would end after it is skipped, and a load still running at it is stopped")
	flag.DurationVar(&o.Settle, "settle", 2*time.Minute, "after each load, wait at most this long for Shale's compactions to finish before measuring")
	redisMax := flag.Int64("redis-max-bytes", 12<<30, "run Redis at a size only while its estimated used_memory stays below this many bytes")
	flag.BoolVar(&o.NoRedis, "no-redis", false, "measure Shale alone")
	flag.IntVar(&o.PortBase, "port-base", 0, "Shale listens on this port and Redis on the next (default: free ports)")
	flag.Parse()
	o.RedisMaxBytes = *redisMax

	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.Quick {
		quickDefaults(&o, set, sizes)
	}
	var err error
	if o.Sizes, err = parseSizes(*sizes); err != nil {
		fatal(fmt.Errorf("-sizes: %w", err))
	}
	switch {
	case o.For < time.Second:
		fatal(errors.New("-for: want at least 1s"))
	case o.Rounds < 1 || o.Clients < 1 || o.LoadConns < 1:
		fatal(errors.New("-rounds, -c and -load-conns: want at least 1"))
	case o.MaxTime <= 0:
		fatal(errors.New("-max-time: want a positive duration"))
	}

	benchhost.StopOnSignal(stopTimeout)

	err = run(o)
	benchhost.StopAll(stopTimeout)
	if err != nil {
		fatal(err)
	}
}

// quickDefaults shrinks every flag the user did not set.
func quickDefaults(o *options, set map[string]bool, sizes *string) {
	def := func(name string, apply func()) {
		if !set[name] {
			apply()
		}
	}
	def("sizes", func() { *sizes = "100000,1000000" })
	def("out", func() { o.Out = "bin/scale-quick" })
	def("doc", func() { o.Doc = "bin/scale-quick/SCALE.md" })
	def("for", func() { o.For = 2 * time.Second })
	def("rounds", func() { o.Rounds = 2 })
	def("settle", func() { o.Settle = 20 * time.Second })
	def("max-time", func() { o.MaxTime = 15 * time.Minute })
}

// parseSizes parses the -sizes list ("1000000,10000000" or "1e6,10e6") into
// increasing, distinct sizes of at least hashEvery keys.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v != float64(int(v)) || v < hashEvery || v > 999_999_999 {
			return nil, fmt.Errorf("%q: want a whole number of keys from %d to 999999999", f, hashEvery)
		}
		sizes = append(sizes, int(v))
	}
	slices.Sort(sizes)
	return slices.Compact(sizes), nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "shale-bench-scale:", err)
	os.Exit(1)
}
