package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

// Checkpoint writes an openable copy of the whole database, as of one
// moment, into dir, which must not exist yet (its parent is created). SST
// files are hard links when dir is on the same filesystem. RocksDB flushes
// the memtables first and copies the live WAL, so the copy holds every
// write acknowledged before the call, across all column families at one
// sequence number. Writers are not blocked.
func (s *Store) Checkpoint(dir string) error {
	if !s.beginManual() {
		return ErrClosed
	}
	defer s.endManual()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	cp, err := s.db.NewCheckpoint()
	if err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	defer cp.Destroy()
	if err := cp.CreateCheckpoint(dir, 0); err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", dir, err)
	}
	return nil
}

// Restore copies the checkpoint in from into cfg.Storage.Dir, which must be
// missing or empty, then opens and closes the result to check that it is a
// database this build reads.
func Restore(cfg conf.Config, from string, log zerolog.Logger) error {
	to := cfg.Storage.Dir
	if _, err := os.Stat(filepath.Join(from, "CURRENT")); err != nil {
		return fmt.Errorf("restore: %s is not a checkpoint (no CURRENT file): %w", from, err)
	}
	if entries, err := os.ReadDir(to); err == nil && len(entries) > 0 {
		return fmt.Errorf("restore: %s is not empty; restore into a new directory", to)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("restore: %w", err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return fmt.Errorf("restore: %s holds %s, which is not a regular file", from, e.Name())
		}
		if err := copyFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	if err := syncDir(to); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	st, err := Open(cfg, log)
	if err != nil {
		return fmt.Errorf("restore: the copy does not open: %w", err)
	}
	return st.Close()
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
