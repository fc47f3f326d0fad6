package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// results is the whole run, rewritten to the report after every size.
type results struct {
	Opts    options
	Env     environment
	Started time.Time
	Elapsed time.Duration
	Bound   memoryBound
	Sizes   []*sizeResult
}

// sizeResult is what one data set size measured. A skipped size has only
// Keys and Skipped.
type sizeResult struct {
	Keys    int
	Skipped string // why the size was not (fully) measured; "" when it was
	Shale   serverSize
	Redis   *serverSize // nil when Redis did not run at this size
	// RedisOut says why Redis did not run at this size.
	RedisOut string
	Tests    []testResult
	// Settle is how long Shale's compactions took to finish after the load,
	// at most -settle; Settled is false when they had not.
	Settle  time.Duration
	Settled bool
	Elapsed time.Duration // the size's wall time: loads, tests, disk, restarts
}

// serverSize is one server's figures at one size.
type serverSize struct {
	Strings, Hashes loadResult // what this size added
	PeakRSS         int64      // bytes: the largest VmRSS sampled during the size's load and tests
	HWM             int64      // bytes: VmHWM before the restart (since the previous start)
	UsedMemory      int64      // INFO memory used_memory after the tests
	DiskBytes       int64      // Shale: the data directory after SAVE flushed the memtables; Redis: the RDB file
	ArchiveBytes    int64      // Shale: the part of DiskBytes in WAL files kept for replicas (replication.wal_retention)
	SSTBytes        int64      // Shale: the *_sst_bytes of INFO rocksdb, summed
	SaveSeconds     float64    // the SAVE before the restart
	Stop            time.Duration
	Restart         startTimes
}

// LoadSeconds is the size's whole load time on this server.
func (s serverSize) LoadSeconds() float64 { return s.Strings.Seconds + s.Hashes.Seconds }

// ItemsPerSec is the string keys plus hash fields written per second over
// the whole load.
func (s serverSize) ItemsPerSec() float64 {
	if t := s.LoadSeconds(); t > 0 {
		return float64(s.Strings.Commands+s.Hashes.Commands*hashFields) / t
	}
	return 0
}

// diskReserve is the free space a size must leave on the work directory's
// filesystem; the machine is shared.
const diskReserve = 4 << 30

// firstDiskPerKey is the disk per string key (with its tenth of a hash)
// assumed before any size has measured it: a 100-byte string with its key
// and RocksDB's framing, and ten hash fields of about 40 bytes each.
const firstDiskPerKey = 600

func run(o options) error {
	for _, bin := range []string{o.ShaleBin, o.RedisBin} {
		if bin == o.RedisBin && o.NoRedis {
			continue
		}
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("%s: %w (make build builds shale-server; make deps installs redis-server)", bin, err)
		}
	}
	work := o.WorkDir
	if work != "" {
		// A previous run's data would be opened again and miscounted.
		for _, sub := range []string{"shale", "redis"} {
			if err := os.RemoveAll(filepath.Join(work, sub)); err != nil {
				return err
			}
		}
	} else {
		dir, err := benchhost.TempWorkDir("shale-bench-scale-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	r := &results{Opts: o, Started: time.Now(), Env: collectEnvironment(o)}
	deadline := r.Started.Add(o.MaxTime)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()

	port, err := pickPort(o.PortBase, 0)
	if err != nil {
		return err
	}
	shale, err := newShale(o, work, port)
	if err != nil {
		return err
	}
	if _, err := shale.start(""); err != nil {
		return err
	}
	defer shale.Stop()
	if r.Bound, err = readMemoryBound(shale.Addr); err != nil {
		return err
	}
	logf("shale on %s (pid %d); memory bound %d MiB", shale.Addr, shale.PID, r.Bound.Total()>>20)
	var rds *server
	if !o.NoRedis {
		if port, err = pickPort(o.PortBase, 1); err != nil {
			return err
		}
		if rds, err = newRedis(o, work, port); err != nil {
			return err
		}
		if _, err := rds.start(""); err != nil {
			return err
		}
		defer rds.Stop()
	}

	vals := newValues(1)
	loaded := 0
	// Seconds of each server's load per key added at the last size: a size
	// Redis no longer runs at costs Shale's load alone.
	var shaleLoadPerKey, redisLoadPerKey float64
	var otherPerKey float64 // seconds of the rest (settle, SAVE, restarts) per key at the last size
	// The data grows with the keys; the WAL archive holds the last
	// replication.wal_retention of writes, so the largest seen stands for it.
	diskPerKey, rdbPerKey, redisMemPerKey := float64(firstDiskPerKey), 0.0, 0.0
	var archive int64
	redisOut := "" // why Redis no longer runs
	if o.NoRedis {
		redisOut = "Redis not run (-no-redis)"
	}
	testTime := func(servers int) time.Duration {
		return time.Duration(len(allTests())*o.Rounds*servers) * (o.For + 200*time.Millisecond)
	}
	for _, keys := range o.Sizes {
		sr := &sizeResult{Keys: keys}
		r.Sizes = append(r.Sizes, sr)
		begin := time.Now()
		if rds != nil && redisMemPerKey > 0 && redisMemPerKey*float64(keys) > float64(o.RedisMaxBytes) {
			redisOut = fmt.Sprintf("Redis stopped before %s keys: its used_memory per key at %s keys predicts %s, above -redis-max-bytes %s",
				count(keys), count(loaded), mib(int64(redisMemPerKey*float64(keys))), mib(o.RedisMaxBytes))
			logf("%s", redisOut)
			rds.Stop()
			rds, rdbPerKey = nil, 0
		}
		if rds == nil {
			sr.RedisOut = redisOut
		}
		servers := 1
		if rds != nil {
			servers = 2
		}
		used, err := dirBytes(work)
		if err != nil {
			return err
		}
		free, err := freeDiskBytes(work)
		if err != nil {
			return err
		}
		loadPerKey := shaleLoadPerKey
		if rds != nil {
			loadPerKey += redisLoadPerKey
		}
		plan := sizePlan{Keys: keys, Loaded: loaded, LoadPerKey: loadPerKey, OtherPerKey: otherPerKey, Tests: testTime(servers),
			Left: time.Until(deadline), MaxTime: o.MaxTime, DiskPerKey: diskPerKey, RDBPerKey: rdbPerKey,
			Archive: archive, Used: used, Free: free}
		sr.Skipped = plan.SkipReason()
		if sr.Skipped != "" {
			logf("%d keys: %s", keys, sr.Skipped)
			continue
		}
		logf("%d keys: loading %d strings and %d hashes", keys, keys-loaded, hashCount(keys)-hashCount(loaded))
		err = measureSize(ctx, o, sr, shale, rds, loaded, vals)
		sr.Elapsed = time.Since(begin)
		if errors.Is(err, errLoadCut) {
			sr.Skipped = fmt.Sprintf("load stopped at -max-time %v after %v", o.MaxTime, sr.Elapsed.Round(time.Second))
			logf("%d keys: %s", keys, sr.Skipped)
			continue // the larger sizes are skipped: no time is left
		}
		if err != nil {
			return fmt.Errorf("%d keys: %w", keys, err)
		}
		added := float64(keys - loaded)
		loadSeconds := sr.Shale.LoadSeconds()
		shaleLoadPerKey = sr.Shale.LoadSeconds() / added
		if sr.Redis != nil {
			loadSeconds += sr.Redis.LoadSeconds()
			redisLoadPerKey = sr.Redis.LoadSeconds() / added
			rdbPerKey = float64(sr.Redis.DiskBytes) / float64(keys)
			redisMemPerKey = float64(sr.Redis.UsedMemory) / float64(keys)
		}
		otherPerKey = max(0, sr.Elapsed.Seconds()-loadSeconds-testTime(servers).Seconds()) / float64(keys)
		diskPerKey = float64(sr.Shale.DiskBytes-sr.Shale.ArchiveBytes) / float64(keys)
		archive = max(archive, sr.Shale.ArchiveBytes)
		loaded = keys
		r.Elapsed = time.Since(r.Started)
		if err := writeReport(r); err != nil {
			return err
		}
		logf("%d keys: done in %v", keys, sr.Elapsed.Round(time.Second))
	}
	r.Elapsed = time.Since(r.Started)
	return writeReport(r)
}

// measureSize loads keys [loaded, sr.Keys) into both servers, one after the
// other, then runs the tests in alternating rounds, then measures the disk
// and restarts each server on its data.
func measureSize(ctx context.Context, o options, sr *sizeResult, shale, rds *server, loaded int, vals *values) error {
	servers := []*server{shale}
	sr.Redis = nil
	if rds != nil {
		servers = append(servers, rds)
		sr.Redis = &serverSize{}
	}
	figures := func(s *server) *serverSize {
		if s == shale {
			return &sr.Shale
		}
		return sr.Redis
	}
	samplers := make([]*rssSampler, len(servers))
	for i, s := range servers {
		samplers[i] = sampleRSS(s)
	}
	stopSamplers := func() {
		for i, s := range servers {
			if samplers[i] != nil {
				figures(s).PeakRSS = samplers[i].Stop()
				samplers[i] = nil
			}
		}
	}
	defer stopSamplers()

	for _, s := range servers {
		f := figures(s)
		var err error
		if f.Strings, err = load(ctx, s.Addr, o.LoadConns, loadStrings, loaded, sr.Keys, vals); err != nil {
			return err
		}
		if f.Hashes, err = load(ctx, s.Addr, o.LoadConns, loadHashes, hashCount(loaded), hashCount(sr.Keys), vals); err != nil {
			return err
		}
		logf("  %s: loaded in %.1fs (%.0f strings/s, %.0f hash fields/s)", s.Name, f.LoadSeconds(),
			f.Strings.PerSecond(), f.Hashes.PerSecond()*hashFields)
	}
	var err error
	if sr.Settle, sr.Settled, err = settle(shale.Addr, o.Settle); err != nil {
		return err
	}
	logf("  shale: compactions settled: %v after %v", sr.Settled, sr.Settle.Round(time.Second))

	for round := range o.Rounds {
		for ti, t := range allTests() {
			for _, s := range servers {
				res, err := runTest(s.Addr, o.Clients, o.For, t, sr.Keys, vals, uint64(round*100+ti))
				if err != nil {
					return fmt.Errorf("%s %v: %w", s.Name, t, err)
				}
				res.Server, res.Round = s.Name, round
				sr.Tests = append(sr.Tests, res)
				logf("  round %d %-13s %-5s %8.0f ops/s  p50 %6.2f ms  p99 %6.2f ms", round+1, t, s.Name,
					res.OpsPerSec(), ms(res.P50), ms(res.P99))
			}
		}
	}
	stopSamplers()

	for _, s := range servers {
		f := figures(s)
		if f.HWM, err = benchhost.ProcStatusBytes(s.PID, "VmHWM"); err != nil {
			return err
		}
		mem, err := info(s.Addr, "memory")
		if err != nil {
			return err
		}
		f.UsedMemory, _ = strconv.ParseInt(mem["used_memory"], 10, 64)
		if err := measureDisk(s, f); err != nil {
			return err
		}
		probe := string(appendStringKey(nil, sr.Keys/2))
		f.Stop = s.Stop()
		if f.Restart, err = s.start(probe); err != nil {
			return fmt.Errorf("restart: %w", err)
		}
		logf("  %s: %d MiB on disk; stopped in %v, served GET %v after the restart", s.Name, f.DiskBytes>>20,
			f.Stop.Round(time.Millisecond), f.Restart.Get.Round(time.Millisecond))
	}
	return nil
}

// settle waits until Shale runs no compaction and owes none, at most limit.
func settle(addr string, limit time.Duration) (time.Duration, bool, error) {
	begin := time.Now()
	for {
		f, err := info(addr, "rocksdb")
		if err != nil {
			return 0, false, err
		}
		if f["running_compactions"] == "0" && f["pending_compaction_bytes"] == "0" && f["running_flushes"] == "0" {
			return time.Since(begin), true, nil
		}
		if time.Since(begin) >= limit {
			return time.Since(begin), false, nil
		}
		time.Sleep(time.Second)
	}
}

// measureDisk runs SAVE and measures what the data takes on disk. For
// Shale, SAVE flushes the memtables into SST files before it makes a
// checkpoint; the harness then measures the data directory and removes the
// checkpoint, whose hard links would otherwise keep the files compaction
// replaces. For Redis it is the RDB file the restart loads.
func measureDisk(s *server, f *serverSize) error {
	begin := time.Now()
	if reply, err := doString(s.Addr, 30*time.Minute, "SAVE"); err != nil || reply != "OK" {
		return fmt.Errorf("%s SAVE: %q %w", s.Name, reply, err)
	}
	f.SaveSeconds = time.Since(begin).Seconds()
	if s.Name == "redis" {
		st, err := os.Stat(filepath.Join(s.Dir, redisRDB))
		if err != nil {
			return err
		}
		f.DiskBytes = st.Size()
		return nil
	}
	backups := filepath.Join(s.Dir, "backup")
	if err := os.RemoveAll(backups); err != nil {
		return err
	}
	var err error
	if f.DiskBytes, err = dirBytes(filepath.Join(s.Dir, "data")); err != nil {
		return err
	}
	if f.ArchiveBytes, err = dirBytes(filepath.Join(s.Dir, "data", "archive")); err != nil {
		return err
	}
	rocks, err := info(s.Addr, "rocksdb")
	if err != nil {
		return err
	}
	for name, v := range rocks {
		if strings.HasSuffix(name, "_sst_bytes") {
			n, _ := strconv.ParseInt(v, 10, 64)
			f.SSTBytes += n
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// sizePlan holds what decides whether a size starts: the time left and the
// disk free, against estimates from the previous size.
type sizePlan struct {
	Keys, Loaded int
	LoadPerKey   float64       // seconds of load per added key at the previous size; 0 before any
	OtherPerKey  float64       // seconds per key of the previous size's settle, SAVE and restarts
	Tests        time.Duration // the size's tests
	Left         time.Duration // until -max-time
	MaxTime      time.Duration
	DiskPerKey   float64 // Shale's bytes per key, WAL archive excluded
	RDBPerKey    float64 // Redis's RDB bytes per key; 0 when Redis does not run
	Archive      int64   // the largest WAL archive seen
	Used, Free   int64   // bytes the work directory holds, and free on its filesystem
}

// Estimate is the size's run time: the load at the previous size's rate,
// plus half for the slowdown of a bigger data set; the settle, SAVE and
// restarts, which grow with the whole data set; and the tests.
func (p sizePlan) Estimate() time.Duration {
	seconds := p.LoadPerKey*float64(p.Keys-p.Loaded)*1.5 + p.OtherPerKey*float64(p.Keys)
	return time.Duration(seconds*float64(time.Second)) + p.Tests
}

// NeedDisk is the disk the size needs beyond what the work directory holds:
// half again the data while compaction rewrites it, plus the WAL archive.
func (p sizePlan) NeedDisk() int64 {
	return int64((p.DiskPerKey*1.5+p.RDBPerKey)*float64(p.Keys)) + p.Archive - p.Used
}

// SkipReason says why the size must not start, or "" when it may.
func (p sizePlan) SkipReason() string {
	switch {
	case p.Left <= 0:
		return fmt.Sprintf("not started: the run reached -max-time %v", p.MaxTime)
	case p.LoadPerKey > 0 && p.Estimate() > p.Left:
		return fmt.Sprintf("not started: estimated %v (the load at the previous size's rate plus half, SAVE, restarts and tests), with %v left of -max-time %v",
			p.Estimate().Round(time.Minute), p.Left.Round(time.Minute), p.MaxTime)
	case p.NeedDisk() > p.Free-diskReserve:
		return fmt.Sprintf("not started: needs about %d GiB more disk (%.0f bytes per key, half again for compaction, %d MiB of WAL archive), %d GiB free, %d GiB kept in reserve",
			p.NeedDisk()>>30, p.DiskPerKey, p.Archive>>20, p.Free>>30, int64(diskReserve)>>30)
	}
	return ""
}
