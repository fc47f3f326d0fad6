package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Backups, which BGSAVE, SAVE and LASTSAVE drive (cmd_backup.go) and INFO
// persistence reports: a backup is a RocksDB checkpoint (an openable
// copy of the database, SST files hard-linked) in a new sub-directory of
// storage.backup_dir. Checkpoints never block clients: RocksDB flushes the
// memtables and copies the live WAL while writes go on.

// backups is the state INFO persistence and LASTSAVE report.
type backups struct {
	mu       sync.Mutex
	running  bool
	started  time.Time // of the one running
	lastSave time.Time // last successful checkpoint; server start until then
	lastOK   bool
	lastTook time.Duration
	lastDir  string
	saves    int64
	wg       sync.WaitGroup
}

// checkpointDir names a new checkpoint directory under backupDir.
func checkpointDir(backupDir string, now time.Time) string {
	base := filepath.Join(backupDir, "checkpoint-"+now.UTC().Format("20060102T150405.000Z"))
	dir := base
	for i := 1; ; i++ {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return dir
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// begin marks a checkpoint as running; false when one already is.
func (b *backups) begin() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running {
		return false
	}
	b.running, b.started = true, time.Now()
	b.wg.Add(1)
	return true
}

// checkpoint runs one checkpoint (begin has been called) and records the
// outcome; it returns the directory and the error.
func (s *Server) checkpoint() (string, error) {
	b := &s.backup
	defer b.wg.Done()
	start := time.Now()
	dir := checkpointDir(s.config().Storage.BackupDir, start)
	s.log.Info().Str("dir", dir).Msg("checkpoint started")
	err := s.st.Checkpoint(dir)
	took := time.Since(start)
	b.mu.Lock()
	b.running = false
	b.lastOK, b.lastTook = err == nil, took
	if err == nil {
		b.lastSave, b.lastDir = start, dir
		b.saves++
	}
	b.mu.Unlock()
	if err != nil {
		s.log.Error().Err(err).Str("dir", dir).Msg("checkpoint failed")
	} else {
		s.log.Info().Str("dir", dir).Dur("took", took).Msg("checkpoint done")
	}
	return dir, err
}

// infoPersistenceBackups writes INFO persistence's checkpoint fields.
func (s *Server) infoPersistenceBackups(w *infoWriter) {
	b := &s.backup
	b.mu.Lock()
	defer b.mu.Unlock()
	w.bool("rdb_bgsave_in_progress", b.running)
	w.int("rdb_last_save_time", b.lastSave.Unix())
	if b.lastOK {
		w.str("rdb_last_bgsave_status", "ok")
	} else {
		w.str("rdb_last_bgsave_status", "err")
	}
	w.int("rdb_last_bgsave_time_sec", int64(b.lastTook.Round(time.Second)/time.Second))
	cur := int64(-1)
	if b.running {
		cur = int64(time.Since(b.started) / time.Second)
	}
	w.int("rdb_current_bgsave_time_sec", cur)
	w.int("rdb_saves", b.saves)
	w.str("last_checkpoint_dir", b.lastDir)
}
