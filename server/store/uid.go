package store

import (
	"fmt"
	"sync"

	"github.com/linxGnu/grocksdb"

	"github.com/shaledb/shale/metadata"
)

// uidBlock is how many uids one fsynced high-water-mark write reserves.
const uidBlock = 4096

// uidAllocator hands out uids from [next, limit). limit is always already
// durable as the high-water mark, so a crash at any point leaves every uid
// that was handed out below the mark the next process starts from. Uids
// start at 1; 0 means "none".
type uidAllocator struct {
	mu    sync.Mutex
	s     *Store
	next  uint64
	limit uint64
}

func (a *uidAllocator) load(s *Store) error {
	a.s = s
	raw, ok, err := s.Get(CFDefault, metadata.KeyUIDHighWater)
	if err != nil {
		return err
	}
	a.next = 1
	if ok {
		if a.next, err = metadata.DecodeU64(raw); err != nil {
			return fmt.Errorf("store: uid high-water mark: %w", err)
		}
	}
	a.limit = a.next
	return nil
}

// NewUID returns a uid that was never returned before, by this process or
// any earlier one on the same directory.
func (s *Store) NewUID() (uint64, error) {
	a := &s.uids
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.next == a.limit {
		if s.readOnly.Load() {
			return 0, ErrReadOnly
		}
		mark := a.limit + uidBlock
		wo := grocksdb.NewDefaultWriteOptions()
		wo.SetSync(true)
		err := s.db.PutCF(wo, s.cfs[CFDefault], metadata.KeyUIDHighWater, metadata.EncodeU64(nil, mark))
		wo.Destroy()
		if err != nil {
			return 0, fmt.Errorf("%w: reserve uids: %w", ErrWrite, err)
		}
		a.limit = mark
		s.noteWritten()
	}
	uid := a.next
	a.next++
	return uid, nil
}
