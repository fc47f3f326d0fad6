//go:build !grocksdb_no_link

package store

const linkedReleaseLibrary = false
