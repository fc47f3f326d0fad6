package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRewriteFailed: CONFIG REWRITE replies Redis's "Rewriting config file:
// <strerror>", never Go's error text with its path.
func TestRewriteFailed(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "open", Path: "/etc/shale.toml", Err: syscall.EACCES}, "ERR Rewriting config file: Permission denied"},
		{fmt.Errorf("write: %w", &os.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}), "ERR Rewriting config file: No space left on device"},
		{&os.LinkError{Op: "rename", Old: "/a", New: "/b", Err: syscall.EROFS}, "ERR Rewriting config file: Read-only file system"},
		{uneditableConfig{errors.New("line 3: inline tables are not supported")}, "ERR Rewriting config file: line 3: inline tables are not supported"},
		{uneditableConfig{errors.New("config file does not parse: toml: line 1\nexpected '='")}, "ERR Rewriting config file: config file does not parse: toml: line 1 expected '='"},
		{io.ErrShortWrite, "ERR Rewriting config file: Input/output error"},
	} {
		if got := string(rewriteFailed(tt.err)); got != tt.want {
			t.Errorf("rewriteFailed(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestConfigRewriteOSError: an OS error reaches the client as its strerror
// text and the log in full, with the file's path.
func TestConfigRewriteOSError(t *testing.T) {
	s, logs := startLoggedServer(t, nil)
	c := newAdminClient(t, s, "")
	ctx := context.Background()
	dir := t.TempDir()
	for _, tt := range []struct {
		path string
		want string
	}{
		{dir, "ERR Rewriting config file: Is a directory"},
		{filepath.Join(dir, "missing.toml"), "ERR Rewriting config file: No such file or directory"},
	} {
		s.SetConfigFile(tt.path)
		if err := c.Do(ctx, "CONFIG", "REWRITE").Err(); err == nil || err.Error() != tt.want {
			t.Errorf("CONFIG REWRITE of %s: %v, want %q", tt.path, err, tt.want)
		}
		if !strings.Contains(logs.String(), `"file":"`+tt.path+`"`) {
			t.Errorf("the log does not name %s:\n%s", tt.path, logs.String())
		}
	}
}
