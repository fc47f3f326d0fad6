package types

import "sync"

// maxCursors bounds the cursor table. A forgotten cursor restarts its scan
// from the beginning, which Redis's SCAN contract allows (elements may be
// returned more than once), so eviction never loses an element.
const maxCursors = 1 << 14

// cursorTable maps the numeric cursors that SCAN and HSCAN hand out to the
// position they stand for: RocksDB iterates in key order, so a position is
// the last key returned, which does not fit in a number.
type cursorTable struct {
	mu    sync.Mutex
	next  uint64
	pos   map[uint64]cursorPos
	order []uint64 // insertion order, for eviction
}

type cursorPos struct {
	scope uint64 // db for SCAN, uid for HSCAN: a cursor is valid only in its scope
	after []byte // resume strictly after this key
}

func newCursorTable() *cursorTable {
	return &cursorTable{next: 1, pos: make(map[uint64]cursorPos)}
}

func (t *cursorTable) put(p cursorPos) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := t.next
	t.next++
	if len(t.order) >= maxCursors {
		delete(t.pos, t.order[0])
		t.order = t.order[1:]
	}
	t.pos[id] = p
	t.order = append(t.order, id)
	return id
}

// get returns where cursor id resumes in scope; nil means from the start.
func (t *cursorTable) get(id, scope uint64) []byte {
	if id == 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pos[id]
	if !ok || p.scope != scope {
		return nil
	}
	return p.after
}
