package benchhost

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A binary given by a path relative to the harness's directory starts
// even when the process runs in another directory (the Makefile passes
// bin/shale-server, and the servers run in their data directories).
func TestStartRelativeBinary(t *testing.T) {
	script := filepath.Join(t.TempDir(), "server.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec sleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(cwd, script)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start("server", []string{rel}, t.TempDir(), io.Discard)
	if err != nil {
		t.Fatalf("Start(%q) in another directory: %v", rel, err)
	}
	p.Stop(5 * time.Second)
}
