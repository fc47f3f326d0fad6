//go:build invariants

package types

// invariants turns on expensive self-checks (make test builds with it).
const invariants = true
