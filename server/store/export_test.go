package store

// GetUncached reads one record from RocksDB, past the record caches, for
// tests that check what RocksDB holds.
func (s *Store) GetUncached(cf CF, key []byte) ([]byte, bool, error) {
	return s.get(s.ro, cf, key)
}
