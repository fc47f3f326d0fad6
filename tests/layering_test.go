package tests

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/shaledb/shale"

// allowedImports is STYLE.md B1's table: for each package of ours, the
// packages of ours it may import directly. Imports point down only.
// Packages under cmd/ and tests may import anything of ours.
//
// One addition to the table: server/store may import metadata and subkey.
// DESIGN.md gives the store the UID allocator, the key counters, the
// reclaimer and active expiry, which read and write metadata's system
// records and expiry keys; both codecs sit below compaction, which the store
// already imports, so this adds no upward edge.
var allowedImports = map[string][]string{
	"metadata":               {},
	"subkey":                 {},
	"conf":                   {},
	"compaction":             {"metadata", "subkey"},
	"server/store":           {"conf", "compaction", "metadata", "subkey"},
	"server/store/storetest": {"conf", "server/store"}, // test helper (STYLE.md B8)
	"server/types":           {"metadata", "subkey", "server/store"},
	"server":                 {"conf", "server/store", "server/types"},
}

// thirdPartyOwners lists, for each third-party library, the only packages of
// ours that may import it.
//
// cmd/shale-bench-compare is a client of the servers it measures (go-redis)
// and serves its own in-memory redcon server as the protocol ceiling; it
// imports nothing of ours.
var thirdPartyOwners = map[string][]string{
	"github.com/linxGnu/grocksdb":         {"server/store", "compaction"},
	"github.com/tidwall/redcon":           {"server", "cmd/shale-bench-compare"},
	"github.com/prometheus/client_golang": {"server"},
	"github.com/redis/go-redis":           {"tests", "cmd/shale-bench-compare"},
}

// thirdPartyForbidden lists, for each package of ours, libraries it must not
// import; "*" means any library outside the standard library.
var thirdPartyForbidden = map[string][]string{
	"metadata": {"*"}, // pure codecs: standard library only
	"subkey":   {"*"},
	"conf":     {"github.com/rs/zerolog"},
}

// TestLayering enforces the import rules of STYLE.md B1 over every package
// that exists. Run it with -count=1: the test cache cannot see the files
// `go list` reads.
func TestLayering(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "../...").Output()
	if err != nil {
		var stderr string
		if ee, isExit := err.(*exec.ExitError); isExit {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, isOurs := ours(fields[0])
		if !isOurs {
			t.Errorf("go list returned %q, outside the module", fields[0])
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			for _, v := range violations(pkg, imp) {
				t.Error(v)
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list found no packages")
	}
}

// ourImportViolation explains why pkg may not import dep, or returns "".
func ourImportViolation(pkg, dep string) string {
	if pkg == "tests" || strings.HasPrefix(pkg, "cmd/") {
		return ""
	}
	allowed, known := allowedImports[pkg]
	if !known {
		return fmt.Sprintf("package %s is not in the layering table: add it to allowedImports in tests/layering_test.go (and to STYLE.md B1)", pkg)
	}
	if !slices.Contains(allowed, dep) {
		return fmt.Sprintf("%s imports %s; it may import only %v (STYLE.md B1)", pkg, dep, allowed)
	}
	return ""
}

// thirdPartyViolations explains why pkg may not import the library imp.
func thirdPartyViolations(pkg, imp string) []string {
	var out []string
	for lib, owners := range thirdPartyOwners {
		if hasPathPrefix(imp, lib) && !slices.Contains(owners, pkg) {
			out = append(out, fmt.Sprintf("%s imports %s; only %v may (STYLE.md B1)", pkg, imp, owners))
		}
	}
	for _, lib := range thirdPartyForbidden[pkg] {
		if lib == "*" || hasPathPrefix(imp, lib) {
			out = append(out, fmt.Sprintf("%s imports %s, which it must not (STYLE.md B1)", pkg, imp))
		}
	}
	return out
}

// violations lists the rules broken by pkg importing imp.
func violations(pkg, imp string) []string {
	if dep, isOurs := ours(imp); isOurs {
		if v := ourImportViolation(pkg, dep); v != "" {
			return []string{v}
		}
		return nil
	}
	if isStdlib(imp) {
		return nil
	}
	return thirdPartyViolations(pkg, imp)
}

// ours returns the module-relative path of an import path of ours.
func ours(importPath string) (string, bool) {
	if importPath == modulePath {
		return ".", true
	}
	rel, found := strings.CutPrefix(importPath, modulePath+"/")
	return rel, found
}

// hasPathPrefix reports whether p is prefix or a package under it
// (github.com/redis/go-redis/v9 is under github.com/redis/go-redis).
func hasPathPrefix(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// isStdlib reports whether an import path is in the standard library: its
// first element has no dot.
func isStdlib(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// TestLayeringRules checks the checker on made-up edges.
func TestLayeringRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pkg, imp string
		bad      bool
	}{
		{"server", "github.com/shaledb/shale/server/types", false},
		{"server", "github.com/shaledb/shale/metadata", true},
		{"server/types", "github.com/shaledb/shale/server", true},
		{"compaction", "github.com/shaledb/shale/server/store", true},
		{"metadata", "github.com/shaledb/shale/subkey", true},
		{"cmd/shale-server", "github.com/shaledb/shale/server/store", false},
		{"tests", "github.com/shaledb/shale/server", false},
		{"newpkg", "github.com/shaledb/shale/conf", true},
		{"server/store", "github.com/linxGnu/grocksdb", false},
		{"server/types", "github.com/linxGnu/grocksdb", true},
		{"server", "github.com/tidwall/redcon", false},
		{"server/types", "github.com/tidwall/redcon", true},
		{"server", "github.com/redis/go-redis/v9", true},
		{"tests", "github.com/redis/go-redis/v9", false},
		{"cmd/shale-bench-compare", "github.com/redis/go-redis/v9", false},
		{"cmd/shale-bench-compare", "github.com/tidwall/redcon", false},
		{"cmd/shale-server", "github.com/tidwall/redcon", true},
		{"conf", "github.com/rs/zerolog", true},
		{"conf", "github.com/BurntSushi/toml", false},
		{"subkey", "github.com/cespare/xxhash/v2", true},
		{"compaction", "github.com/rs/zerolog", false},
	} {
		if got := violations(tc.pkg, tc.imp); (len(got) > 0) != tc.bad {
			t.Errorf("%s importing %s: violations %q, want bad=%v", tc.pkg, tc.imp, got, tc.bad)
		}
	}
}
