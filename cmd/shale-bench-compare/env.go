package main

import (
	"os"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// environment describes the machine and the software versions of a run, so
// that the report documents itself.
type environment struct {
	benchhost.Machine
	Redis, RedisBenchmark string
	Shale                 string // shale-server --version and the git commit
	// ReleaseRocksDB: shale-server links the release build of `make
	// rocksdb-release` statically instead of Debian's shared library.
	ReleaseRocksDB bool
	// ShaleRocksDB and DebianlibRocksDB say which RocksDB each Shale
	// binary links (benchhost.RocksDBLinked); DebianlibRocksDB is "" when
	// the Debian-library binary does not exist, and DebianlibMissing then
	// says why.
	ShaleRocksDB, DebianlibRocksDB, DebianlibMissing string
}

func collectEnvironment(o options) environment {
	e := environment{
		Machine:        benchhost.ReadMachine(),
		Redis:          benchhost.CmdOutput(o.RedisBin, "--version"),
		RedisBenchmark: benchhost.CmdOutput(o.BenchBin, "--version"),
		ReleaseRocksDB: benchhost.LinksReleaseRocksDB(o.ShaleBin),
		Shale:          benchhost.ShaleVersion(o.ShaleBin),
		ShaleRocksDB:   benchhost.RocksDBLinked(o.ShaleBin),
	}
	if e.ReleaseRocksDB {
		e.RocksDB = "release build (make rocksdb-release: DEBUG_LEVEL=0, static) of " + e.RocksDB
	}
	if _, err := os.Stat(o.DebianlibBin); err != nil {
		e.DebianlibMissing = err.Error()
	} else {
		e.DebianlibRocksDB = benchhost.RocksDBLinked(o.DebianlibBin)
	}
	return e
}
