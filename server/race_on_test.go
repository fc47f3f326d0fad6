//go:build race

package server

// raceEnabled: the race detector is on, and sync.Pool drops what it is
// given at random, so allocation counts say nothing.
const raceEnabled = true
