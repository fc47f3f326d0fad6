package compaction

import (
	"github.com/shaledb/shale/metadata"
)

// ExpiryGraceMs is how long after its expiry time a key's records stay safe
// from the filters. A command that read the key just before it expired may
// still be writing a new TTL (EXPIRE, PERSIST run under the key lock, not
// under the filter's snapshot); the grace keeps its sub-keys until that write
// has long landed. Reads treat the key as absent from ExpireMs on, so the
// grace costs only a little disk.
const ExpiryGraceMs = 5000

// Verdict is a filter's decision about one owner uid.
type Verdict uint8

const (
	// Keep: the owner is alive, or the filter could not prove it dead.
	Keep Verdict = iota
	// Dead: the owner is gone for good; its records may be dropped.
	Dead
)

// Owner is what one consistent snapshot says about a uid's owner.
type Owner struct {
	BookFound bool   // bookkeeping[uid] exists
	Book      []byte // its raw value, when BookFound
	MetaFound bool   // the metadata record that Book names exists
	Meta      []byte // its raw value, when MetaFound
	SnapMs    int64  // wall-clock ms taken before the snapshot was opened
	// Replica: the database is a replica's, where an expired key is not
	// dead until its primary's deletion arrives: by the primary's clock,
	// it may not have expired yet, and a PERSIST may still save it.
	Replica bool
}

// MetaKeyFor returns the metadata-CF key that a raw bookkeeping value names,
// appended to dst.
func MetaKeyFor(dst, book []byte) ([]byte, error) {
	bk, err := metadata.DecodeBook(book)
	if err != nil {
		return dst, err
	}
	return metadata.AppendMetaKey(dst, bk.DB, bk.Key), nil
}

// Decide is the pure decision: is the owner of uid dead in snapshot o?
// Any record it cannot decode means Keep.
func Decide(uid uint64, o Owner) Verdict {
	if !o.BookFound {
		return Dead
	}
	bk, err := metadata.DecodeBook(o.Book)
	if err != nil {
		return Keep
	}
	if !o.MetaFound {
		return Dead
	}
	m, err := metadata.DecodeMeta(o.Meta)
	if err != nil {
		return Keep
	}
	if m.Type != bk.Type || !m.OwnsUID() || m.UID != uid {
		return Dead
	}
	if !o.Replica && m.Expired(o.SnapMs-ExpiryGraceMs) {
		return Dead
	}
	return Keep
}
