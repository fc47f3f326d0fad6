package store

import (
	"time"

	"github.com/rs/zerolog"
)

// progressEvery is how often a long background job (a full compaction, a
// big key's reclaim) logs a progress line.
const progressEvery = 5 * time.Second

// trackJob logs "background job progress" for job every interval until the
// returned function is called: the time so far, plus what fields adds (the
// column family being compacted, the bytes left to compact). Jobs that end
// within the first interval log no progress line.
func (s *Store) trackJob(job string, interval time.Duration, fields func(e *zerolog.Event)) (done func()) {
	start := time.Now()
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				e := s.log.Info().Str("job", job).Dur("elapsed", time.Since(start))
				if fields != nil {
					fields(e)
				}
				e.Msg("background job progress")
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}

// totalSSTBytes is the size of every live SST file, all column families.
func (s *Store) totalSSTBytes() uint64 {
	var n uint64
	for cf := range numCFs {
		n += s.SSTBytes(CF(cf))
	}
	return n
}

// pendingCompactionBytes is RocksDB's estimate of the bytes left to compact,
// all column families.
func (s *Store) pendingCompactionBytes() uint64 {
	var n uint64
	for cf := range numCFs {
		if v, ok := s.db.GetIntPropertyCF("rocksdb.estimate-pending-compaction-bytes", s.cfs[cf]); ok {
			n += v
		}
	}
	return n
}
