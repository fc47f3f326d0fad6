package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	"server/types":           {"metadata", "subkey", "server/store", "server/geo", "server/hll"},
	"server/resp":            {},
	"server/lualib":          {},
	"server/geo":             {}, // pure arithmetic of the geo commands
	"server/hll":             {}, // pure codec of Redis's HyperLogLog values
	"server":                 {"conf", "server/lualib", "server/resp", "server/store", "server/types", "server/geo", "server/hll"},
}

// testImports lists, for each package of ours, what its tests (in-package
// and _test package files) may import on top of what the package itself
// may: test helpers, the lower layers a test pins, and the client library
// that drives an in-process server. A package's _test package may also
// import the package itself.
//
//   - server/store and server/types open throw-away stores through
//     storetest (STYLE.md B8).
//   - server pins compaction.Kind's order, which INFO indexes by.
//   - server starts servers in-process and drives them with go-redis
//     (STYLE.md B8); tests/ drives real processes with it.
//   - server/resp runs its guard at conf's default limits, and parses what
//     the guard emits with redcon's reader, the parser it feeds.
var testImports = map[string][]string{
	"server/store": {"server/store/storetest"},
	"server/types": {"server/store/storetest"},
	"server":       {"compaction", "github.com/redis/go-redis"},
	"server/resp":  {"conf", "github.com/tidwall/redcon"},
}

// thirdPartyOwners lists, for each third-party library, the only packages of
// ours that may import it (their tests included; testImports names more
// packages whose tests may).
//
// cmd/shale-bench-compare is a client of the servers it measures (go-redis)
// and serves its own in-memory redcon server as the protocol ceiling; it
// imports nothing of ours.
var thirdPartyOwners = map[string][]string{
	"github.com/linxGnu/grocksdb":         {"server/store", "compaction"},
	"github.com/tidwall/redcon":           {"server", "cmd/shale-bench-compare"},
	"github.com/prometheus/client_golang": {"server"},
	"github.com/redis/go-redis":           {"tests", "cmd/shale-bench-compare"},
	"github.com/yuin/gopher-lua":          {"server", "server/lualib"},
}

// thirdPartyForbidden lists, for each package of ours, libraries it and its
// tests must not import; "*" means any library outside the standard library.
var thirdPartyForbidden = map[string][]string{
	"metadata":   {"*"}, // pure codecs: standard library only
	"subkey":     {"*"},
	"server/geo": {"*"}, // arithmetic: standard library (and libm) only
	"server/hll": {"*"}, // pure codec: standard library only
	"conf":       {"github.com/rs/zerolog"},
}

// listedPackage is the part of `go list -json` the layering rules read.
type listedPackage struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// TestLayering enforces the import rules of STYLE.md B1 over every package
// that exists, its tests' imports included. Run it with -count=1: the test
// cache cannot see the files `go list` reads.
func TestLayering(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports", "../...").Output()
	if err != nil {
		var stderr string
		if ee, isExit := err.(*exec.ExitError); isExit {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	checked, checkedTestImports := 0, 0
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var lp listedPackage
		if err := dec.Decode(&lp); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkg, isOurs := ours(lp.ImportPath)
		if !isOurs {
			t.Errorf("go list returned %q, outside the module", lp.ImportPath)
			continue
		}
		checked++
		for _, imp := range lp.Imports {
			for _, v := range violations(pkg, imp, false) {
				t.Error(v)
			}
		}
		for _, imp := range slices.Concat(lp.TestImports, lp.XTestImports) {
			checkedTestImports++
			for _, v := range violations(pkg, imp, true) {
				t.Error(v)
			}
		}
	}
	if checked == 0 || checkedTestImports == 0 {
		t.Fatalf("go list found %d packages and %d test imports", checked, checkedTestImports)
	}
}

// ourImportViolation explains why pkg (its tests when inTest) may not
// import dep, or returns "".
func ourImportViolation(pkg, dep string, inTest bool) string {
	if pkg == "tests" || strings.HasPrefix(pkg, "cmd/") {
		return ""
	}
	allowed, known := allowedImports[pkg]
	if !known {
		return fmt.Sprintf("package %s is not in the layering table: add it to allowedImports in tests/layering_test.go (and to STYLE.md B1)", pkg)
	}
	switch {
	case slices.Contains(allowed, dep):
		return ""
	case !inTest:
		return fmt.Sprintf("%s imports %s; it may import only %v (STYLE.md B1)", pkg, dep, allowed)
	case dep == pkg || slices.Contains(testImports[pkg], dep):
		return ""
	}
	return fmt.Sprintf("%s imports %s; its tests may import only %v and %v (testImports)", importer(pkg, inTest), dep, allowed, testImports[pkg])
}

// importer names pkg's code or its tests in a violation.
func importer(pkg string, inTest bool) string {
	if inTest {
		return pkg + " (in its tests)"
	}
	return pkg
}

// thirdPartyViolations explains why pkg (its tests when inTest) may not
// import the library imp.
func thirdPartyViolations(pkg, imp string, inTest bool) []string {
	var out []string
	for lib, owners := range thirdPartyOwners {
		if !hasPathPrefix(imp, lib) || slices.Contains(owners, pkg) {
			continue
		}
		if inTest && slices.Contains(testImports[pkg], lib) {
			continue
		}
		out = append(out, fmt.Sprintf("%s imports %s; only %v may, and the tests of the packages testImports names (STYLE.md B1)", importer(pkg, inTest), imp, owners))
	}
	for _, lib := range thirdPartyForbidden[pkg] {
		if lib == "*" || hasPathPrefix(imp, lib) {
			out = append(out, fmt.Sprintf("%s imports %s, which %s must not (STYLE.md B1)", importer(pkg, inTest), imp, pkg))
		}
	}
	return out
}

// violations lists the rules broken by pkg importing imp, in its tests when
// inTest.
func violations(pkg, imp string, inTest bool) []string {
	if dep, isOurs := ours(imp); isOurs {
		if v := ourImportViolation(pkg, dep, inTest); v != "" {
			return []string{v}
		}
		return nil
	}
	if isStdlib(imp) {
		return nil
	}
	return thirdPartyViolations(pkg, imp, inTest)
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

// TestLayeringRules checks the checker on made-up edges, in code and in
// tests.
func TestLayeringRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pkg, imp string
		inTest   bool
		bad      bool
	}{
		{"server", "github.com/shaledb/shale/server/types", false, false},
		{"server", "github.com/shaledb/shale/metadata", false, true},
		{"server/types", "github.com/shaledb/shale/server", false, true},
		{"compaction", "github.com/shaledb/shale/server/store", false, true},
		{"metadata", "github.com/shaledb/shale/subkey", false, true},
		{"cmd/shale-server", "github.com/shaledb/shale/server/store", false, false},
		{"tests", "github.com/shaledb/shale/server", false, false},
		{"newpkg", "github.com/shaledb/shale/conf", false, true},
		{"server/store", "github.com/linxGnu/grocksdb", false, false},
		{"server/types", "github.com/linxGnu/grocksdb", false, true},
		{"server", "github.com/tidwall/redcon", false, false},
		{"server/types", "github.com/tidwall/redcon", false, true},
		{"server", "github.com/redis/go-redis/v9", false, true},
		{"tests", "github.com/redis/go-redis/v9", false, false},
		{"cmd/shale-bench-compare", "github.com/redis/go-redis/v9", false, false},
		{"cmd/shale-bench-compare", "github.com/tidwall/redcon", false, false},
		{"cmd/shale-server", "github.com/tidwall/redcon", false, true},
		{"conf", "github.com/rs/zerolog", false, true},
		{"conf", "github.com/BurntSushi/toml", false, false},
		{"subkey", "github.com/cespare/xxhash/v2", false, true},
		{"compaction", "github.com/rs/zerolog", false, false},

		// Tests may import what their package may, the package itself (a
		// _test package) and what testImports adds; nothing more.
		{"server/types", "github.com/shaledb/shale/server/store", true, false},
		{"server/types", "github.com/shaledb/shale/server/store/storetest", true, false},
		{"server/types", "github.com/shaledb/shale/server/store/storetest", false, true},
		{"server/types", "github.com/shaledb/shale/server", true, true},
		{"server/store", "github.com/shaledb/shale/server/store", true, false},
		{"server/store", "github.com/shaledb/shale/server/types", true, true},
		{"compaction", "github.com/shaledb/shale/server/store/storetest", true, true},
		{"server", "github.com/shaledb/shale/compaction", true, false},
		{"server", "github.com/shaledb/shale/compaction", false, true},
		{"server", "github.com/redis/go-redis/v9", true, false},
		{"server/types", "github.com/redis/go-redis/v9", true, true},
		{"server/store", "github.com/redis/go-redis/v9", true, true},
		{"tests", "github.com/redis/go-redis/v9", true, false},
		{"server/types", "github.com/linxGnu/grocksdb", true, true},
		{"server/store", "github.com/linxGnu/grocksdb", true, false},
		{"metadata", "github.com/stretchr/testify/require", true, true},
		{"conf", "github.com/rs/zerolog", true, true},
		{"newpkg", "github.com/shaledb/shale/conf", true, true},
	} {
		if got := violations(tc.pkg, tc.imp, tc.inTest); (len(got) > 0) != tc.bad {
			t.Errorf("%s importing %s (in tests: %v): violations %q, want bad=%v", tc.pkg, tc.imp, tc.inTest, got, tc.bad)
		}
	}
}
