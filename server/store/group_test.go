package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

func lk(key string) store.LockKey { return store.LockKey{DB: 0, Key: []byte(key)} }

func mustGet(t *testing.T, st *store.Store, key string) (string, bool) {
	t.Helper()
	v, ok, err := st.Get(store.CFMeta, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return string(v), ok
}

// TestGroupWritesAtCommit: the group's writes take effect together, at
// Commit, with their counters; a failed Add leaves nothing behind.
func TestGroupWritesAtCommit(t *testing.T) {
	st := storetest.Open(t, nil)
	g := st.NewGroup()
	if !g.TryLock(lk("a")) {
		t.Fatal("TryLock a on an idle store failed")
	}
	if err := g.Add(func(b *store.Batch) error {
		b.Put(store.CFMeta, []byte("a"), []byte("1"))
		b.AddKeys(0, 1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !g.TryLock(lk("b"), lk("b")) { // a key named twice by one command
		t.Fatal("TryLock b b failed")
	}
	boom := errors.New("boom")
	if err := g.Add(func(b *store.Batch) error {
		b.Put(store.CFMeta, []byte("b"), []byte("2"))
		b.AddKeys(0, 1)
		b.Reclaim(42)
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Add returned %v, want boom", err)
	}
	if _, ok := mustGet(t, st, "a"); ok {
		t.Error("a is visible before Commit")
	}
	if g.Commands() != 2 || g.Writes() != 1 {
		t.Errorf("Commands %d Writes %d, want 2 and 1", g.Commands(), g.Writes())
	}
	commitOnlyA(t, st, g)
	if g.Active() || g.Commands() != 0 {
		t.Error("the group is not empty after Commit")
	}
}

// commitOnlyA commits g, whose Add of a succeeded and whose Add of b failed,
// and checks that only a and its counter delta were written.
func commitOnlyA(t *testing.T, st *store.Store, g *store.Group) {
	t.Helper()
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, ok := mustGet(t, st, "a"); !ok || v != "1" {
		t.Errorf("a after Commit = %q %v, want 1", v, ok)
	}
	if _, ok := mustGet(t, st, "b"); ok {
		t.Error("the failed Add's write of b was committed")
	}
	if n := st.KeyCount(0); n != 1 {
		t.Errorf("KeyCount %d, want 1: the failed Add's counter delta was kept", n)
	}
}

// TestGroupAddPanics: a command that panics in Add leaves nothing in the
// batch, so the group's earlier commands still commit alone.
func TestGroupAddPanics(t *testing.T) {
	st := storetest.Open(t, nil)
	g := st.NewGroup()
	if !g.TryLock(lk("a"), lk("b")) {
		t.Fatal("TryLock a b failed")
	}
	if err := g.Add(func(b *store.Batch) error {
		b.Put(store.CFMeta, []byte("a"), []byte("1"))
		b.AddKeys(0, 1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Add swallowed the panic")
			}
		}()
		g.Add(func(b *store.Batch) error {
			b.Put(store.CFMeta, []byte("b"), []byte("2"))
			b.AddKeys(0, 1)
			panic("bug")
		})
	}()
	commitOnlyA(t, st, g)
}

// TestGroupTryLock: a key used by an earlier command of the group, or held
// by another locker, cannot join; Commit releases everything.
func TestGroupTryLock(t *testing.T) {
	st := storetest.Open(t, nil)
	g := st.NewGroup()
	if !g.TryLock(lk("a"), lk("b")) {
		t.Fatal("TryLock a b failed")
	}
	if g.TryLock(lk("c"), lk("a")) {
		t.Fatal("a joined twice: the second command could not read the first's write")
	}
	if !g.Holds(lk("a"), lk("b")) || g.Holds(lk("c")) {
		t.Error("a failed TryLock kept a stripe, or gave back one of an earlier command")
	}
	// Another locker waits for the group's keys until Commit.
	locked := make(chan struct{})
	go func() {
		unlock := st.Lock(lk("b"))
		close(locked)
		unlock()
	}()
	select {
	case <-locked:
		t.Fatal("Lock(b) got the key while the group held it")
	case <-time.After(50 * time.Millisecond):
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	<-locked

	// A key another locker holds cannot join, and a group left with no
	// command holds nothing, the world lock included.
	unlock := st.Lock(lk("x"))
	if g.TryLock(lk("x")) {
		t.Fatal("x joined while another locker held it")
	}
	if g.Active() {
		t.Error("an empty group stays active")
	}
	done := make(chan struct{})
	go func() { st.LockWorld()(); close(done) }()
	unlock()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("LockWorld waits: the empty group kept the world lock")
	}
}

// TestGroupYieldsToLockWorld: while FLUSHDB waits for the world lock, a
// group does not start; one already open is not blocked by the waiter.
func TestGroupYieldsToLockWorld(t *testing.T) {
	st := storetest.Open(t, nil)
	g := st.NewGroup()
	if !g.TryLock(lk("a")) {
		t.Fatal("TryLock a failed")
	}
	worldDone := make(chan struct{})
	go func() {
		unlock := st.LockWorld()
		unlock()
		close(worldDone)
	}()
	time.Sleep(20 * time.Millisecond) // LockWorld now waits for the group
	if !g.TryLock(lk("b")) {
		t.Error("an open group could not add a key while LockWorld waited")
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	<-worldDone
	held := st.LockWorld()
	if g.TryLock(lk("c")) {
		t.Error("a group started while the world lock was held")
	}
	held()
}
