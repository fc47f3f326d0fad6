package types

import "github.com/shaledb/shale/server/store"

// DebugPanic is DEBUG PANIC: it panics while it holds key's lock, with key
// overwritten by a string in a batch it has not written, as a bug in a
// command would. The server's recovery must leave the key as it was and
// free for the next command.
func (d *DB) DebugPanic(key []byte) error {
	unlock := d.lock(key)
	defer unlock()
	ks := &keyState{}
	err := d.load(ks, key, d.e.now())
	if err != nil {
		return err
	}
	return d.write(func(b *store.Batch) error {
		if err := ks.setString(b, []byte("written by DEBUG PANIC"), 0); err != nil {
			return err
		}
		panic("debug panic: injected by DEBUG PANIC")
	})
}

// CheckInvariants, with the invariants build tag, panics when key's
// records disagree with its metadata, as each write checks the keys it
// wrote; without the tag it does nothing. The command fuzzer sweeps every
// key with it, to catch a command that writes without checking.
func (d *DB) CheckInvariants(key []byte) {
	unlock := d.lock(key)
	defer unlock()
	d.checkSize(key)
	d.checkList(key)
	d.checkZSet(key)
}
