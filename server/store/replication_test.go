package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/metadata"
	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
	"github.com/shaledb/shale/subkey"
)

// follow applies every batch the primary's log holds from the replica's
// next sequence number on, and returns what the batches changed.
func follow(t *testing.T, primary, replica *store.Store) []store.Applied {
	return followBy(t, primary, replica, 64<<10)
}

// followBy is follow reading the log maxBytes at a time.
func followBy(t *testing.T, primary, replica *store.Store, maxBytes int) []store.Applied {
	t.Helper()
	r := primary.ReadWAL(replica.LastSequence() + 1)
	defer r.Close()
	var out []store.Applied
	for {
		batches, err := r.Next(maxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if len(batches) == 0 {
			return out
		}
		for _, b := range batches {
			a, err := replica.Apply(b.Seq, b.Rep)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
	}
}

// sameRecords fails the test unless every column family holds the same
// records in both stores.
func sameRecords(t *testing.T, a, b *store.Store) {
	t.Helper()
	for _, cf := range store.AllCFs() {
		var ra, rb [][2][]byte
		for _, side := range []struct {
			st  *store.Store
			dst *[][2][]byte
		}{{a, &ra}, {b, &rb}} {
			err := side.st.Iterate(cf, nil, nil, false, func(k, v []byte) bool {
				*side.dst = append(*side.dst, [2][]byte{bytes.Clone(k), bytes.Clone(v)})
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(ra) != len(rb) {
			t.Fatalf("%s: %d records on the primary, %d on the replica", cf, len(ra), len(rb))
		}
		for i := range ra {
			if !bytes.Equal(ra[i][0], rb[i][0]) || !bytes.Equal(ra[i][1], rb[i][1]) {
				t.Fatalf("%s record %d: %q=%q on the primary, %q=%q on the replica", cf, i, ra[i][0], ra[i][1], rb[i][0], rb[i][1])
			}
		}
	}
}

// TestReplicaFollowsLog: a replica made from a checkpoint and fed the
// primary's log holds the same records at the same sequence number, its
// counters and database map follow, a deleted big key's uid reaches its
// reclaimer, and a promoted replica allocates above every uid the primary
// reserved.
func TestReplicaFollowsLog(t *testing.T) {
	primary := storetest.Open(t, nil)
	writeHash(t, primary, "before", 10)

	rcfg := storetest.Config(t)
	cp := filepath.Join(t.TempDir(), "cp")
	if err := primary.Checkpoint(cp); err != nil {
		t.Fatal(err)
	}
	replica := storetest.Open(t, &rcfg)
	if err := replica.Reinstall(cp); err != nil {
		t.Fatal(err)
	}
	if replica.LastSequence() != primary.LastSequence() {
		t.Fatalf("checkpoint at %d, primary at %d", replica.LastSequence(), primary.LastSequence())
	}

	uid := writeHash(t, primary, "big", 100)
	writeBatch(t, primary, func(b *store.Batch) { b.AddKeys(0, 2); b.AddExpires(0, 1) })
	writeBatch(t, primary, func(b *store.Batch) { b.PutLibrary("lib", []byte("#!lua name=lib")) })
	writeBatch(t, primary, func(b *store.Batch) { b.AddKeys(1, 5) })
	writeBatch(t, primary, func(b *store.Batch) { b.ResetKeys(1) })
	writeBatch(t, primary, func(b *store.Batch) { b.AddKeys(1, 3) })
	writeBatch(t, primary, func(b *store.Batch) { b.SwapDB(0, 1) })
	deleteHash(t, primary, "big", uid, true)
	applied := follow(t, primary, replica)

	if got, want := replica.LastSequence(), primary.LastSequence(); got != want {
		t.Fatalf("replica at %d, primary at %d", got, want)
	}
	sameRecords(t, primary, replica)
	for db := range 2 {
		if p, r := primary.KeyCount(db), replica.KeyCount(db); p != r {
			t.Errorf("db %d: %d keys on the primary, %d on the replica", db, p, r)
		}
		if p, r := primary.ExpiresCount(db), replica.ExpiresCount(db); p != r {
			t.Errorf("db %d: %d expires on the primary, %d on the replica", db, p, r)
		}
	}
	if replica.PhysicalDB(0) != 1 {
		t.Errorf("replica's db 0 is physical %d after SWAPDB, want 1", replica.PhysicalDB(0))
	}
	var functions, allKeys bool
	var keys []string
	for _, a := range applied {
		functions = functions || a.Functions
		allKeys = allKeys || a.AllKeys
		for _, k := range a.Keys {
			keys = append(keys, fmt.Sprintf("%d:%s", k.DB, k.Key))
		}
	}
	if !functions || !allKeys {
		t.Errorf("applied: functions %v, all keys (SWAPDB) %v; want both", functions, allKeys)
	}
	if len(keys) == 0 || keys[0] != "0:big" {
		t.Errorf("applied keys %q, want 0:big first", keys)
	}
	replica.ReclaimNow()
	if n := count(t, replica, store.CFSubkey); n != 10 {
		t.Errorf("replica holds %d sub-keys after reclaiming the deleted hash, want the 10 of the live one", n)
	}

	if err := replica.ReloadUIDs(); err != nil {
		t.Fatal(err)
	}
	next, err := replica.NewUID()
	if err != nil {
		t.Fatal(err)
	}
	if next <= uid {
		t.Errorf("promoted replica allocated uid %d, not above the primary's %d", next, uid)
	}
	raw, _, _ := primary.Get(store.CFDefault, metadata.KeyUIDHighWater)
	mark, _ := metadata.DecodeU64(raw)
	if next < mark {
		t.Errorf("promoted replica allocated uid %d below the primary's high-water mark %d", next, mark)
	}
}

// TestApplyOutOfOrder: a batch that is not the next one is refused and
// changes nothing.
func TestApplyOutOfOrder(t *testing.T) {
	primary := storetest.Open(t, nil)
	replica := storetest.Open(t, nil)
	writeHash(t, primary, "a", 1)
	writeHash(t, primary, "b", 1)
	r := primary.ReadWAL(replica.LastSequence() + 2)
	defer r.Close()
	batches, err := r.Next(1 << 20)
	if err == nil && len(batches) > 0 {
		before := replica.LastSequence()
		if _, err := replica.Apply(batches[0].Seq, batches[0].Rep); !errors.Is(err, store.ErrOutOfOrder) {
			t.Fatalf("Apply of batch %d at %d: %v, want ErrOutOfOrder", batches[0].Seq, before, err)
		}
		if replica.LastSequence() != before {
			t.Fatal("a refused batch was written")
		}
	}
}

// TestRecoverReinstall: a crash between Reinstall's renames leaves the old
// database beside a missing one, which goes back in place; with the new
// one in place, the old one is removed.
func TestRecoverReinstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir+".old", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir+".old", "CURRENT"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := store.RecoverReinstall(dir + "/"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err != nil {
		t.Fatalf("the old database is not back: %v", err)
	}
	if err := os.MkdirAll(dir+".old", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := store.RecoverReinstall(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir + ".old"); !os.IsNotExist(err) {
		t.Fatalf("the old database is still there beside the new one: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err != nil {
		t.Fatalf("the new database is gone: %v", err)
	}
}

// TestReadWALGone: once the log that held a sequence number was deleted
// (past replication.wal_retention), reading from it fails with ErrWALGone,
// and neither crashes nor skips ahead; the log's tail still reads.
func TestReadWALGone(t *testing.T) {
	cfg := storetest.Config(t)
	cfg.Replication.WALRetention = conf.Duration{Duration: time.Second}
	cfg.Replication.WALRetentionBytes = 0
	st := storetest.Open(t, &cfg)
	writeHash(t, st, "old", 3)
	if err := st.Flush(); err != nil { // the log file becomes obsolete: archived
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond)
	writeHash(t, st, "new", 3)
	tail := st.LastSequence()
	if err := st.Flush(); err != nil { // the purge of archived files older than 1s runs
		t.Fatal(err)
	}
	r := st.ReadWAL(1)
	defer r.Close()
	if _, err := r.Next(1 << 20); !errors.Is(err, store.ErrWALGone) {
		t.Fatalf("reading from sequence 1: %v, want ErrWALGone", err)
	}
	writeHash(t, st, "newer", 1)
	r2 := st.ReadWAL(tail + 1)
	defer r2.Close()
	batches, err := r2.Next(1 << 20)
	if err != nil || len(batches) == 0 || batches[0].Seq != tail+1 {
		t.Fatalf("reading the tail from %d: %d batches, %v", tail+1, len(batches), err)
	}
}

// TestReinstallBadCheckpoint: a checkpoint that does not open leaves the
// store on its old database, open and whole.
func TestReinstallBadCheckpoint(t *testing.T) {
	st := storetest.Open(t, nil)
	writeHash(t, st, "kept", 5)
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "CURRENT"), []byte("MANIFEST-999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := st.Reinstall(bad)
	if err == nil || errors.Is(err, store.ErrUnusable) {
		t.Fatalf("Reinstall of a broken checkpoint: %v, want an error that is not ErrUnusable", err)
	}
	if n := count(t, st, store.CFSubkey); n != 5 {
		t.Fatalf("after the failed reinstall the store holds %d sub-keys, want the 5 it had", n)
	}
	writeHash(t, st, "after", 1) // and takes writes
}

// TestReadWALInSteps: a reader whose calls stop at their byte bound, one
// batch each, goes on from the next batch call after call: a replica fed
// that way ends with the primary's records.
func TestReadWALInSteps(t *testing.T) {
	primary := storetest.Open(t, nil)
	replica := storetest.Open(t, nil)
	cp := filepath.Join(t.TempDir(), "cp")
	if err := primary.Checkpoint(cp); err != nil {
		t.Fatal(err)
	}
	if err := replica.Reinstall(cp); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		writeHash(t, primary, fmt.Sprintf("h%d", i), 50)
	}
	if applied := followBy(t, primary, replica, 1); len(applied) < 20 {
		t.Fatalf("%d batches applied, want at least 20", len(applied))
	}
	sameRecords(t, primary, replica)
}

// TestReadOnlyStore: a replica's store refuses writes and uid blocks, but
// takes an empty batch (a transaction of reads), and takes writes again
// once promoted.
func TestReadOnlyStore(t *testing.T) {
	st := storetest.Open(t, nil)
	st.SetReadOnly(true)
	b := st.NewBatch()
	if err := st.Write(b); err != nil {
		t.Fatalf("an empty batch on a read-only store: %v", err)
	}
	b.Put(store.CFDefault, []byte("k"), []byte("v"))
	if err := st.Write(b); !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("a write on a read-only store: %v, want ErrReadOnly", err)
	}
	b.Release()
	st.SetReadOnly(false)
	writeHash(t, st, "promoted", 1)
}

// TestAppliedMembers: a replicated batch that writes only members of a
// key names their uid, and KeyOfUID the key, so that the replica's
// watchers and tracking clients hear of it.
func TestAppliedMembers(t *testing.T) {
	primary := storetest.Open(t, nil)
	replica := storetest.Open(t, nil)
	cp := filepath.Join(t.TempDir(), "cp")
	uid := writeHash(t, primary, "m", 3)
	if err := primary.Checkpoint(cp); err != nil {
		t.Fatal(err)
	}
	if err := replica.Reinstall(cp); err != nil {
		t.Fatal(err)
	}
	writeBatch(t, primary, func(b *store.Batch) {
		b.Put(store.CFSubkey, subkey.AppendKey(nil, uid, []byte("f0000001")), []byte("new"))
	})
	applied := follow(t, primary, replica)
	if len(applied) != 1 || len(applied[0].Keys) != 0 || len(applied[0].UIDs) != 1 || applied[0].UIDs[0] != uid {
		t.Fatalf("applied %+v, want one batch naming uid %d and no metadata key", applied, uid)
	}
	k, ok := replica.KeyOfUID(uid)
	if !ok || k.DB != 0 || string(k.Key) != "m" {
		t.Fatalf("KeyOfUID(%d) = %+v %v, want db 0 key m", uid, k, ok)
	}
	if _, ok := replica.KeyOfUID(uid + 1000); ok {
		t.Fatal("KeyOfUID of a uid nobody owns found a key")
	}
}
