package server

import (
	"testing"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/server/types"
)

// TestEncodingDefaultsAgree: the type layer's fallback limits, used before
// the server sets them, are conf's defaults.
func TestEncodingDefaultsAgree(t *testing.T) {
	if got, want := encodingLimits(conf.Default().Encoding), types.DefaultEncodingLimits(); got != want {
		t.Fatalf("conf.Default's [encoding] gives %+v, types.DefaultEncodingLimits is %+v", got, want)
	}
}

func TestCheckSave(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"", true},
		{"3600 1", true},
		{"3600 1 300 100 60 10000", true},
		{"1 0", true},
		{"+5 05", true}, // strtoll's
		{" ", false},
		{"abc", false},
		{"1", false},
		{"1 2 3", false},
		{"0 1", false},
		{"-1 2", false},
		{"1 -2", false},
		{"1 x", false},
	}
	for _, tt := range tests {
		if err := checkSave(tt.in); (err == nil) != tt.ok {
			t.Errorf("checkSave(%q) = %v, want ok=%v", tt.in, err, tt.ok)
		}
	}
}
