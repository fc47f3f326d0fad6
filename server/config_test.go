package server

import (
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestConfigDocs checks the runtime column of docs/OPERATIONS.md against
// the table: every documented key is a parameter, settable exactly when
// the docs say "yes".
func TestConfigDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/OPERATIONS.md")
	if err != nil {
		t.Skip(err)
	}
	row := regexp.MustCompile("(?m)^\\| (`[a-z0-9_.]+`(?:, `[a-z0-9_.]+`)*) \\| [^|]* \\| (yes|restart) \\|")
	byKey := map[string]*configParam{}
	for i := range configParams {
		if p := &configParams[i]; p.key != "" {
			byKey[p.key] = p
		}
	}
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		for _, k := range strings.Split(m[1], ", ") {
			k = strings.Trim(k, "`")
			documented[k] = true
			p := byKey[k]
			switch {
			case p == nil:
				t.Errorf("docs list %s, which CONFIG does not know", k)
			case (p.set != nil) != (m[2] == "yes"):
				t.Errorf("docs say %s is runtime %q; CONFIG SET settable = %v", k, m[2], p.set != nil)
			}
		}
	}
	for k := range byKey {
		if !documented[k] {
			t.Errorf("CONFIG parameter %s is not in the docs' tables", k)
		}
	}
}

func TestMemtoull(t *testing.T) {
	tests := []struct {
		in           string
		n            int64
		ok, overflow bool
	}{
		{"1048576", 1 << 20, true, false},
		{"00001048576", 1 << 20, true, false},
		{"512mb", 512 << 20, true, false},
		{"512MB", 512 << 20, true, false},
		{"512m", 512e6, true, false},
		{"1kb", 1024, true, false},
		{"1k", 1000, true, false},
		{"1gb", 1 << 30, true, false},
		{"1g", 1e9, true, false},
		{"7b", 7, true, false},
		{"", 0, true, false}, // strtoull("") is 0
		{"-1", 0, false, false},
		{"+1", 0, false, false},
		{" 1", 0, false, false},
		{"1 ", 0, false, false},
		{"1.5gb", 0, false, false},
		{"64MiB", 0, false, false},
		{"9223372036854775807", math.MaxInt64, true, false},
		{"9223372036854775808", 0, true, true},
		{"99999999999999999999", 0, true, true},
		{"8589934592gb", 0, true, true},
	}
	for _, tt := range tests {
		n, ok, overflow := memtoull(tt.in)
		if n != tt.n || ok != tt.ok || overflow != tt.overflow {
			t.Errorf("memtoull(%q) = %d, %v, %v; want %d, %v, %v", tt.in, n, ok, overflow, tt.n, tt.ok, tt.overflow)
		}
	}
}
