package types

// WriteLog is what the writes made through a client's database views did:
// how many changed something (WATCH tells a write that changed a watched key
// from one that did not) and, while Facts are kept, what they did to whole
// keys (keyspace notifications name the events after them). One goroutine,
// the client's, writes through the views and reads the log.
type WriteLog struct {
	Writes uint64
	// KeepFacts turns fact keeping on; Facts are the facts of the writes
	// since the caller last emptied it. A write that fails leaves none.
	KeepFacts bool
	Facts     []KeyFact
}

// KeyFact is one thing a write did to a whole key, or a read found.
type KeyFact struct {
	DB       int
	Key      []byte
	Kind     FactKind
	ExpireMs int64 // KeyFoundExpired's: the expiry the key had
}

// FactKind says what a write did to a key.
type FactKind uint8

const (
	KeyCreated FactKind = iota + 1 // the key did not exist and now does
	KeyRemoved                     // the key existed and was removed (DEL, an overwrite by another type...)
	KeyExpired                     // the write found the key expired and removed its record
	KeyEmptied                     // a collection lost its last element, and with it the key
	KeySaved                       // a collection's metadata was rewritten: it changed size or expiry
	// KeyMissed: a command looked the key up and it was not there
	// (keyspace notifications' keymiss, for reads).
	KeyMissed
	// KeyFoundExpired: a command read a key whose expiry has passed and
	// whose record is still there. Engine.ExpireFound removes it, as Redis
	// removes a key a lookup finds expired.
	KeyFoundExpired
	// KeyTrimmed: XADD's MAXLEN or MINID removed entries of the stream
	// (its xtrim event).
	KeyTrimmed
	// KeyConsumerCreated: XREADGROUP, XCLAIM or XAUTOCLAIM made a
	// consumer in a group of the stream (its xgroup-createconsumer event).
	KeyConsumerCreated
	// KeyBitsSet: SETBIT or BITFIELD changed the string's bits or grew it
	// (their setbit event); a BITFIELD whose writes OVERFLOW FAIL refused
	// may grow the string without it, as in Redis 7.0.
	KeyBitsSet
)

// Logging returns a view of d whose writes go into l.
func (d *DB) Logging(l *WriteLog) *DB {
	v := *d
	v.log = l
	return &v
}

// fact notes that a write of d did kind to key, if facts are kept.
func (d *DB) fact(kind FactKind, key []byte) {
	if d.log != nil && d.log.KeepFacts {
		d.log.Facts = append(d.log.Facts, KeyFact{DB: d.n, Key: append([]byte(nil), key...), Kind: kind})
	}
}

// dropCreated forgets the fact that key was created, made by the write
// running now: the key was emptied again before the write ended
// (SINTERSTORE of an empty result onto a missing key), so nothing happened.
func (d *DB) dropCreated(key []byte) {
	if d.log == nil || !d.log.KeepFacts {
		return
	}
	f := d.log.Facts
	for i := len(f) - 1; i >= 0; i-- {
		if f[i].Kind == KeyCreated && f[i].DB == d.n && string(f[i].Key) == string(key) {
			d.log.Facts = append(f[:i], f[i+1:]...)
			return
		}
	}
}

// logged returns how far d's log reaches, to cut it back there if the
// write fails.
func (d *DB) logged() int {
	if d.log == nil {
		return 0
	}
	return len(d.log.Facts)
}

// settle records the end of a write whose facts start at from: counted
// when it changed something, its facts dropped when it failed.
func (d *DB) settle(from int, changed bool, err error) {
	if d.log == nil {
		return
	}
	if err != nil {
		clear(d.log.Facts[from:])
		d.log.Facts = d.log.Facts[:from]
		return
	}
	if changed {
		d.log.Writes++
	}
}
