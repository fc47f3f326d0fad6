package store_test

import (
	"testing"
	"time"

	"github.com/shaledb/shale/server/store/storetest"
)

// TestKeyLockWaits: Lock and Group.Wait count a wait only when a stripe
// was busy, and then from Lock's call until it held the stripe.
func TestKeyLockWaits(t *testing.T) {
	st := storetest.Open(t, nil)
	st.Lock(lk("a"))()
	st.Lock(lk("a"), lk("b"))()
	if n := st.WaitStats().KeyLock.Count(); n != 0 {
		t.Fatalf("uncontended locks counted %d waits", n)
	}

	const hold = 20 * time.Millisecond
	tests := []struct {
		name string
		lock func() // takes lk("a") (and maybe more), then releases all
	}{
		{"one key", func() { st.Lock(lk("a"))() }},
		{"two keys", func() { st.Lock(lk("b"), lk("a"))() }},
		{"group", func() {
			g := st.NewGroup()
			if !g.TryLock(lk("c")) {
				t.Error("TryLock c on an idle stripe failed")
			}
			g.Wait(lk("a"))
			if err := g.Commit(); err != nil {
				t.Error(err)
			}
		}},
	}
	var waited time.Duration // the waiters' time in Lock, all subtests so far
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unlock := st.Lock(lk("a"))
			done := make(chan time.Duration)
			go func() {
				start := time.Now()
				tt.lock()
				done <- time.Since(start)
			}()
			time.Sleep(hold)
			unlock()
			var took time.Duration
			select {
			case took = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the waiter never got the lock")
			}
			waited += took
			w := st.WaitStats().KeyLock
			if w.Count() != uint64(i+1) {
				t.Fatalf("%d waits counted, want %d", w.Count(), i+1)
			}
			if w.Sum <= 0 || w.Sum > waited.Seconds() {
				t.Errorf("wait total %.6fs, want above 0 and at most the waiters' %v", w.Sum, waited)
			}
		})
	}
}
