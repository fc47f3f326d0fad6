// Package storetest opens throw-away stores for tests: a temp dir, small
// RocksDB buffers, a test logger, and Close at cleanup.
package storetest

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/store"
)

// Config returns the configuration Open uses, for tests that reopen a dir.
func Config(t testing.TB) conf.Config {
	cfg := conf.Default()
	cfg.Storage.Dir = t.TempDir()
	cfg.RocksDB.BlockCacheBytes = 8 << 20
	cfg.RocksDB.WriteBufferBytes = 4 << 20
	return cfg
}

// Open opens a store on cfg (Config(t) when nil) and closes it at cleanup.
func Open(t testing.TB, cfg *conf.Config) *store.Store {
	t.Helper()
	if cfg == nil {
		c := Config(t)
		cfg = &c
	}
	log := zerolog.New(zerolog.NewTestWriter(t))
	if _, bench := t.(*testing.B); bench {
		log = zerolog.Nop() // benchmark output is for figures
	}
	st, err := store.Open(*cfg, log)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
