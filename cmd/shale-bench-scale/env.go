package main

import "github.com/shaledb/shale/cmd/internal/benchhost"

// environment describes the machine and the versions of a run, so that the
// report documents itself.
type environment struct {
	benchhost.Machine
	Shale, Redis string
	// ReleaseRocksDB: shale-server links a release build of RocksDB
	// statically instead of Debian's shared library (built with assertions).
	ReleaseRocksDB bool
}

func collectEnvironment(o options) environment {
	e := environment{
		Machine:        benchhost.ReadMachine(),
		Shale:          benchhost.ShaleVersion(o.ShaleBin),
		Redis:          benchhost.CmdOutput(o.RedisBin, "--version"),
		ReleaseRocksDB: benchhost.LinksReleaseRocksDB(o.ShaleBin),
	}
	if e.ReleaseRocksDB {
		e.RocksDB = "release build (DEBUG_LEVEL=0, static) of " + e.RocksDB
	}
	return e
}
