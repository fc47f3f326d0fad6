package metadata

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// unhex decodes a golden hex string; spaces separate fields for readability.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad golden hex %q: %v", s, err)
	}
	return b
}

// wantCorrupt fails t unless err wraps ErrCorrupt.
func wantCorrupt(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("decoded corrupt input without error")
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("error %q does not wrap ErrCorrupt", err)
	}
}

// fuzzCheckErr fails t if err is non-nil and does not wrap ErrCorrupt.
func fuzzCheckErr(t testing.TB, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("error %q does not wrap ErrCorrupt", err)
	}
}

// maxFuzzLen caps the inputs the fuzz targets look at. No codec branches on
// lengths above a few dozen bytes, but an input that grows past three-digit
// lengths reaches new coverage in fmt's number formatting (the error texts
// carry lengths), and the fuzzer then spends its whole -fuzztime minimizing
// that input, a quadratic search in its length. Longer inputs are skipped.
const maxFuzzLen = 256
