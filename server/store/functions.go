package store

import (
	"fmt"

	"github.com/shaledb/shale/metadata"
)

// FUNCTION's libraries are records of the default CF, one per library,
// under metadata.AppendFunctionKey: the library's name -> its code. The
// server writes them in a batch with PutLibrary, DeleteLibrary and
// DeleteLibraries, and reads them all at start with Libraries.

// PutLibrary writes the FUNCTION library name, whose code is code.
func (b *Batch) PutLibrary(name string, code []byte) {
	b.Put(CFDefault, metadata.AppendFunctionKey(nil, name), code)
}

// DeleteLibrary deletes the FUNCTION library name.
func (b *Batch) DeleteLibrary(name string) {
	b.Delete(CFDefault, metadata.AppendFunctionKey(nil, name))
}

// DeleteLibraries deletes every FUNCTION library.
func (b *Batch) DeleteLibraries() {
	lower, upper := metadata.FunctionKeyRange()
	b.DeleteRange(CFDefault, lower, upper)
}

// Library is one stored FUNCTION library.
type Library struct {
	Name string
	Code []byte
}

// Libraries returns every stored FUNCTION library, in name order.
func (s *Store) Libraries() ([]Library, error) {
	var libs []Library
	lower, upper := metadata.FunctionKeyRange()
	err := s.Iterate(CFDefault, lower, upper, false, func(key, val []byte) bool {
		if name, ok := metadata.FunctionKeyLib(key); ok {
			libs = append(libs, Library{Name: name, Code: append([]byte(nil), val...)})
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("store: function libraries: %w", err)
	}
	return libs, nil
}
