package types

import (
	"testing"
	"time"
)

// TestWalkViewLetsLocksGo: a walk of more than WalkLockedUpTo records
// reads a snapshot taken under the key's lock and lets the lock go, so a
// writer of the key goes ahead while the walk still sees the state it
// loaded; a short walk keeps the lock.
func TestWalkViewLetsLocksGo(t *testing.T) {
	d, _ := newTestDB(t)
	key := []byte("l")
	if _, err := d.RPush(key, fields(WalkLockedUpTo)); err != nil { // 2 elements each
		t.Fatal(err)
	}
	unlock := d.lock(key)
	defer func() { unlock() }()
	ks := &keyState{}
	if err := d.loadList(ks, key); err != nil {
		t.Fatal(err)
	}
	v, done := d.walkView(ks.m.Size, &unlock)
	defer done()
	pushed := make(chan error, 1)
	go func() {
		_, err := d.RPush(key, bs("late"))
		pushed <- err
	}()
	select {
	case err := <-pushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a writer of the key still waits for the walk's lock")
	}
	got, err := v.listRange(ks, 0, ks.m.Size, false)
	if err != nil || len(got) != 2*WalkLockedUpTo {
		t.Fatalf("the walk read %d elements, %v; want the %d it loaded", len(got), err, 2*WalkLockedUpTo)
	}
	if n, _ := d.LLen(key); n != 2*WalkLockedUpTo+1 {
		t.Errorf("LLEN after the late push = %d, want %d", n, 2*WalkLockedUpTo+1)
	}

	small, done2 := d.walkView(WalkLockedUpTo, &unlock)
	defer done2()
	if small != d {
		t.Error("a short walk got a snapshot view")
	}
}
