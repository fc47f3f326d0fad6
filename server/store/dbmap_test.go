package store_test

import (
	"testing"

	"github.com/shaledb/shale/server/store"
	"github.com/shaledb/shale/server/store/storetest"
)

// TestSwapDBSurvivesReopen: a swap changes the map and the counters each
// logical database reads, in one write that a reopen finds; a swap back
// restores both.
func TestSwapDBSurvivesReopen(t *testing.T) {
	cfg := storetest.Config(t)
	cfg.Server.Databases = 4
	st := storetest.Open(t, &cfg)
	writeBatch(t, st, func(b *store.Batch) {
		b.AddKeys(int(st.PhysicalDB(1)), 5)
		b.AddExpires(int(st.PhysicalDB(1)), 2)
	})
	writeBatch(t, st, func(b *store.Batch) { b.SwapDB(1, 3) })
	check := func(when string) {
		t.Helper()
		if p1, p3 := st.PhysicalDB(1), st.PhysicalDB(3); p1 != 3 || p3 != 1 {
			t.Fatalf("%s: db 1 -> %d, db 3 -> %d, want 3, 1", when, p1, p3)
		}
		if l, ok := st.LogicalDB(1); l != 3 || !ok {
			t.Fatalf("%s: LogicalDB(1) = %d, %v, want 3, true", when, l, ok)
		}
		if k1, k3, e3 := st.KeyCount(1), st.KeyCount(3), st.ExpiresCount(3); k1 != 0 || k3 != 5 || e3 != 2 {
			t.Fatalf("%s: keys db1 %d, db3 %d, expires db3 %d; want 0, 5, 2", when, k1, k3, e3)
		}
	}
	check("after swap")
	st.Close()
	st = storetest.Open(t, &cfg)
	check("after reopen")
	writeBatch(t, st, func(b *store.Batch) { b.SwapDB(3, 1) })
	st.Close()
	st = storetest.Open(t, &cfg)
	for db := range 4 {
		if p := st.PhysicalDB(db); p != uint16(db) {
			t.Fatalf("after swapping back: db %d -> %d", db, p)
		}
	}
	if k := st.KeyCount(1); k != 5 {
		t.Fatalf("after swapping back: db 1 has %d keys, want 5", k)
	}
}

// TestSwapDBFewerDatabases: a map written with more databases than are
// configured now keeps them all, so every physical database keeps its
// counters; a logical database beyond the configured ones is not one a
// client can reach.
func TestSwapDBFewerDatabases(t *testing.T) {
	cfg := storetest.Config(t)
	cfg.Server.Databases = 8
	st := storetest.Open(t, &cfg)
	writeBatch(t, st, func(b *store.Batch) { b.AddKeys(7, 3) })
	writeBatch(t, st, func(b *store.Batch) { b.SwapDB(0, 7) })
	st.Close()
	cfg.Server.Databases = 2
	st = storetest.Open(t, &cfg)
	if p, k := st.PhysicalDB(0), st.KeyCount(0); p != 7 || k != 3 {
		t.Fatalf("db 0 -> %d with %d keys, want 7 with 3", p, k)
	}
	if _, ok := st.LogicalDB(0); ok {
		t.Fatal("physical db 0 is held by logical db 7, beyond the 2 configured")
	}
}

// TestSwapDBInTransaction: a transaction reads its pending swaps, its
// counters follow them, and an abort leaves the map as it was.
func TestSwapDBInTransaction(t *testing.T) {
	st := storetest.Open(t, nil)
	writeBatch(t, st, func(b *store.Batch) { b.AddKeys(0, 4) })
	g := st.BeginTxn(true)
	if err := g.Add(func(b *store.Batch) error { b.SwapDB(0, 1); return nil }); err != nil {
		t.Fatal(err)
	}
	if p, k := g.PhysicalDB(0), g.KeyCount(1); p != 1 || k != 4 {
		t.Fatalf("in the transaction: db 0 -> %d, db 1 has %d keys; want 1, 4", p, k)
	}
	g.Abort()
	if p, k := st.PhysicalDB(0), st.KeyCount(0); p != 0 || k != 4 {
		t.Fatalf("after abort: db 0 -> %d with %d keys; want 0, 4", p, k)
	}
	g = st.BeginTxn(true)
	if err := g.Add(func(b *store.Batch) error { b.SwapDB(0, 1); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if p, k := st.PhysicalDB(0), st.KeyCount(1); p != 1 || k != 4 {
		t.Fatalf("after commit: db 0 -> %d, db 1 has %d keys; want 1, 4", p, k)
	}
}
