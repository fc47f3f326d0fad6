package main

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shaleBinary returns $SHALE_BIN, or builds ../../cmd/shale-server as the
// e2e tests do (with $SHALE_BUILD_FLAGS, which the Makefile sets for the
// release library).
func shaleBinary(t *testing.T) string {
	if bin := os.Getenv("SHALE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "shale-server")
	args := append([]string{"build", "-o", bin}, strings.Fields(os.Getenv("SHALE_BUILD_FLAGS"))...)
	cmd := exec.Command("go", append(args, "../shale-server")...)
	if _, set := os.LookupEnv("CGO_LDFLAGS"); !set {
		cmd.Env = append(os.Environ(), "CGO_LDFLAGS=-lrocksdb -lstdc++ -lm -lz -lsnappy -llz4 -lzstd -lbz2")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build shale-server: %v\n%s", err, out)
	}
	return bin
}

// TestRun runs the whole harness on two tiny sizes, with Redis when it is
// installed, and checks what the report and the CSV files say: every test
// ran with no miss, the restart served the loaded key, the disk and memory
// figures are there, and a size past the deadline is reported as skipped.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and loads data for about a minute")
	}
	out := t.TempDir()
	o := options{
		ShaleBin: shaleBinary(t), RedisBin: "/usr/bin/redis-server",
		Out: out, Doc: filepath.Join(out, "SCALE.md"), WorkDir: t.TempDir(),
		Sizes: []int{300, 3000, 900000000}, For: time.Second, Settle: 5 * time.Second,
		// The last size's load estimate, at the small sizes' rate, is far
		// beyond the deadline.
		MaxTime: 3 * time.Minute,
		Rounds:  1, Clients: 4, LoadConns: 2, RedisMaxBytes: 1 << 30,
	}
	if _, err := os.Stat(o.RedisBin); err != nil {
		t.Logf("no %s: Shale alone", o.RedisBin)
		o.NoRedis = true
	}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	servers := 2
	if o.NoRedis {
		servers = 1
	}
	tests := readCSV(t, filepath.Join(out, "scale.csv"))
	if want := 1 + 2*len(allTests())*servers; len(tests) != want {
		t.Fatalf("scale.csv: %d rows, want %d", len(tests), want)
	}
	for _, row := range tests[1:] {
		if row[5] == "0" || row[9] != "0" {
			t.Errorf("scale.csv: %v: no ops, or misses", row)
		}
	}
	sizes := readCSV(t, filepath.Join(out, "scale-sizes.csv"))
	if len(sizes) != 1+2*servers {
		t.Fatalf("scale-sizes.csv: %d rows, want %d", len(sizes), 1+2*servers)
	}
	col := map[string]int{}
	for i, name := range sizes[0] {
		col[name] = i
	}
	for _, row := range sizes[1:] {
		for _, name := range []string{"peak_rss_bytes", "vm_hwm_bytes", "disk_bytes", "restart_get_seconds"} {
			if v := row[col[name]]; v == "" || v == "0" || v == "0.000" {
				t.Errorf("scale-sizes.csv: %s %s: %s is %q", row[0], row[1], name, v)
			}
		}
	}
	doc, err := os.ReadFile(o.Doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 3k | HSET zipfian |", "900M keys: not started: estimated", "stayed within its bound", "![scale-ops-zipfian]"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
	for _, png := range []string{"scale-ops-uniform.png", "scale-memory.png", "scale-restart.png"} {
		if st, err := os.Stat(filepath.Join(out, png)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", png, err)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
