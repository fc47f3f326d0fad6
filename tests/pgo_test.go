package tests

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerBuiltWithPGO checks that the server the tests build, as `make
// build` does, is optimized with cmd/shale-server/default.pgo (docs/
// OPERATIONS.md, "Profile-guided optimization"): go build picks the file up
// only under that name and in the main package's directory.
func TestServerBuiltWithPGO(t *testing.T) {
	if os.Getenv("SHALE_BIN") != "" {
		t.Skip("SHALE_BIN: a server built elsewhere")
	}
	info, err := buildinfo.ReadFile(shaleBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.Abs("../cmd/shale-server/default.pgo")
	if err != nil {
		t.Fatal(err)
	}
	var settings []string
	for _, s := range info.Settings {
		if s.Key == "-pgo" && s.Value == want {
			return
		}
		settings = append(settings, s.Key+"="+s.Value)
	}
	t.Fatalf("built without -pgo=%s; build settings: %s", want, strings.Join(settings, " "))
}
