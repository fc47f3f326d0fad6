// Command shale-server runs Shale: a Redis-compatible server that keeps its
// data on disk in RocksDB. It reads flags and an optional TOML config, builds
// the logger, serves until SIGINT, SIGTERM or SHUTDOWN, then closes cleanly.
// With --restore-from it restores a checkpoint into the data directory
// instead, and exits.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server"
	"github.com/shaledb/shale/server/store"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "shale-server:", err)
		os.Exit(1)
	}
}

func run(argv []string) error {
	fs := flag.NewFlagSet("shale-server", flag.ContinueOnError)
	configPath := fs.String("config", "", "TOML config file (default: built-in defaults)")
	port := fs.Int("port", 0, "TCP port; overrides server.port")
	bind := fs.String("bind", "", "address to listen on; overrides server.bind")
	dir := fs.String("dir", "", "data directory; overrides storage.dir")
	logLevel := fs.String("log-level", "", "trace, debug, info, warn or error; overrides log.level")
	restoreFrom := fs.String("restore-from", "", "copy the checkpoint in this directory (made by BGSAVE) into the data directory (--dir or storage.dir), which must be new or empty, check that it opens, and exit")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(argv); err != nil {
		return err
	}
	if *version {
		fmt.Println("shale-server", server.Version)
		return nil
	}

	cfg := conf.Default()
	if *configPath != "" {
		var err error
		if cfg, err = conf.Load(*configPath); err != nil {
			return err
		}
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "port":
			cfg.Server.Port = *port
		case "bind":
			cfg.Server.Bind = *bind
		case "dir":
			cfg.Storage.Dir = *dir
		case "log-level":
			cfg.Log.Level = *logLevel
		}
	})
	if err := cfg.Validate(); err != nil {
		return err
	}

	log, closeLog, err := newLogger(cfg.Log)
	if err != nil {
		return err
	}
	defer closeLog()

	if *restoreFrom != "" {
		if err := store.Restore(cfg, *restoreFrom, log); err != nil {
			return err
		}
		log.Info().Str("from", *restoreFrom).Str("dir", cfg.Storage.Dir).Msg("checkpoint restored")
		return nil
	}

	setGoGC(cfg.Server.GoGCPercent, log)
	setGoMaxProcs(cfg.Server.GoMaxProcs, log)
	srv, err := server.Start(cfg, log)
	if err != nil {
		return err
	}
	srv.SetConfigFile(*configPath)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	select {
	case sig := <-sigs:
		log.Info().Str("signal", sig.String()).Msg("shutting down")
	case <-srv.ShutdownRequested():
		log.Info().Msg("shutdown requested by client")
	}
	return srv.Close()
}

// setGoGC sets the Go collector's GOGC to server.go_gc_percent, unless
// the GOGC environment variable already set it: the operator's explicit
// choice for this one process.
func setGoGC(percent int, log zerolog.Logger) {
	if env, ok := os.LookupEnv("GOGC"); ok {
		log.Info().Str("GOGC", env).Int("go_gc_percent", percent).Msg("GOGC from the environment overrides server.go_gc_percent")
		return
	}
	debug.SetGCPercent(percent)
}

// setGoMaxProcs sets Go's GOMAXPROCS to server.go_max_procs when it is
// not 0, unless the GOMAXPROCS environment variable already set it.
func setGoMaxProcs(procs int, log zerolog.Logger) {
	if procs == 0 {
		return
	}
	if env, ok := os.LookupEnv("GOMAXPROCS"); ok {
		log.Info().Str("GOMAXPROCS", env).Int("go_max_procs", procs).Msg("GOMAXPROCS from the environment overrides server.go_max_procs")
		return
	}
	runtime.GOMAXPROCS(procs)
}

// newLogger builds the one logger the program passes down.
func newLogger(c conf.Log) (zerolog.Logger, func(), error) {
	level, err := zerolog.ParseLevel(c.Level)
	if err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("log.level: %w", err)
	}
	var out io.Writer = os.Stderr
	closeFn := func() {}
	if c.File != "" {
		f, err := os.OpenFile(c.File, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return zerolog.Nop(), nil, fmt.Errorf("log.file: %w", err)
		}
		out = f
		closeFn = func() { f.Close() }
	}
	if c.Format == "console" {
		out = zerolog.ConsoleWriter{Out: out, TimeFormat: time.RFC3339, NoColor: c.File != ""}
	}
	// The level is the global threshold only, so that CONFIG SET loglevel
	// can move it either way at runtime.
	zerolog.SetGlobalLevel(level)
	return zerolog.New(out).With().Timestamp().Logger(), closeFn, nil
}
