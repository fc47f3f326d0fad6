//go:build invariants

package types

// invariants turns on expensive self-checks (make test builds with it).
const invariants = true

// Invariants reports whether this build runs the invariants self-checks,
// for callers outside the package that add checks of their own.
const Invariants = invariants
