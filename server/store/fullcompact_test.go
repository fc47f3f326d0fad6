package store_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// windowAroundNow is a full_window that is open now and for a few minutes.
func windowAroundNow() string {
	now := time.Now()
	from, to := now.Add(-time.Minute), now.Add(5*time.Minute)
	return fmt.Sprintf("%02d:%02d-%02d:%02d", from.Hour(), from.Minute(), to.Hour(), to.Minute())
}

// writeL0Files writes files flushes of n sequential metadata records of
// 1 KiB each, so that level 0 holds files non-overlapping SST files.
func writeL0Files(t *testing.T, st *store.Store, files, n int) {
	t.Helper()
	val := bytes.Repeat([]byte("v"), 1024)
	for f := range files {
		b := st.NewBatch()
		for i := range n {
			b.Put(store.CFMeta, fmt.Appendf(nil, "key:%03d:%06d", f, i), val)
		}
		if err := st.Write(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFullCompactionRunsInWindow(t *testing.T) {
	cfg := storetest.Config(t)
	cfg.RocksDB.DisableAutoCompactions = true
	st := storetest.Open(t, &cfg)
	writeL0Files(t, st, 3, 500)
	if got := st.Property(store.CFMeta, "rocksdb.num-files-at-level0"); got != "3" {
		t.Fatalf("level-0 files before = %s, want 3", got)
	}
	st.Close()

	cfg.Compaction.FullWindow = windowAroundNow()
	cfg.Compaction.FullMaxBytesPerSec = 0
	st = storetest.Open(t, &cfg)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, runs := st.FullCompactionRunning(); runs == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the full compaction did not run in its window")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := st.Property(store.CFMeta, "rocksdb.num-files-at-level0"); got != "0" {
		t.Errorf("level-0 files after the full compaction = %s, want 0", got)
	}
	// Once per window occurrence: no second run.
	time.Sleep(2500 * time.Millisecond)
	if _, runs := st.FullCompactionRunning(); runs != 1 {
		t.Errorf("runs = %d in one window, want 1", runs)
	}
}

func TestFullCompactionCancelledByClose(t *testing.T) {
	cfg := storetest.Config(t)
	cfg.RocksDB.DisableAutoCompactions = true
	st := storetest.Open(t, &cfg)
	writeL0Files(t, st, 4, 1300) // about 1.3 MiB each: one range per file
	st.Close()

	cfg.Compaction.FullWindow = windowAroundNow()
	cfg.Compaction.FullMaxBytesPerSec = 1 // waits "forever" after the first range
	st = storetest.Open(t, &cfg)
	deadline := time.Now().Add(30 * time.Second)
	for running, _ := st.FullCompactionRunning(); !running; running, _ = st.FullCompactionRunning() {
		if time.Now().After(deadline) {
			t.Fatal("the full compaction did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close during a paced full compaction took %v", took)
	}
	if _, runs := st.FullCompactionRunning(); runs != 0 {
		t.Errorf("cancelled run counted as complete")
	}
}

func TestCheckpointAndRestore(t *testing.T) {
	cfg := storetest.Config(t)
	st := storetest.Open(t, &cfg)
	put := func(key, val string) {
		b := st.NewBatch()
		b.Put(store.CFMeta, []byte(key), []byte(val))
		b.Put(store.CFSubkey, []byte(key), []byte(val+"-sub"))
		if err := st.Write(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	for i := range 100 {
		put(fmt.Sprint("before", i), fmt.Sprint(i))
	}
	cp := filepath.Join(t.TempDir(), "backups", "cp1")
	if err := st.Checkpoint(cp); err != nil {
		t.Fatal(err)
	}
	if err := st.Checkpoint(cp); err == nil {
		t.Error("a second checkpoint into the same dir succeeded")
	}
	put("after", "x")

	log := zerolog.New(zerolog.NewTestWriter(t))
	rcfg := storetest.Config(t)
	rcfg.Storage.Dir = filepath.Join(t.TempDir(), "restored")
	if err := store.Restore(rcfg, cp, log); err != nil {
		t.Fatal(err)
	}
	if err := store.Restore(rcfg, cp, log); err == nil {
		t.Error("restore into a non-empty dir succeeded")
	}
	if err := store.Restore(storetest.Config(t), t.TempDir(), log); err == nil {
		t.Error("restore from a dir that is no checkpoint succeeded")
	}
	rst := storetest.Open(t, &rcfg)
	for i := range 100 {
		for _, cf := range []store.CF{store.CFMeta, store.CFSubkey} {
			v, ok, err := rst.Get(cf, fmt.Append(nil, "before", i))
			want := fmt.Sprint(i)
			if cf == store.CFSubkey {
				want += "-sub"
			}
			if err != nil || !ok || string(v) != want {
				t.Fatalf("restored %s before%d = %q, %v, %v", cf, i, v, ok, err)
			}
		}
	}
	if _, ok, _ := rst.Get(store.CFMeta, []byte("after")); ok {
		t.Error("a write after the checkpoint is in the restored db")
	}
	st.Close()
	if err := st.Checkpoint(filepath.Join(t.TempDir(), "x")); err != store.ErrClosed {
		t.Errorf("Checkpoint after Close = %v, want ErrClosed", err)
	}
	_ = os.Remove
	_ = conf.MiB
}
