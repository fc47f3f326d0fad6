package conf

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRewriteKeepsCommentsAndEditsInPlace(t *testing.T) {
	src := `# my server
[server]
port = 7000  # the port
# the password
requirepass = "old"

[rocksdb]
compression = [
  "no",   # L0
  "lz4",
] # per level
write_buffer_bytes = "32MiB"

[rocksdb.subkey]
write_buffer_bytes = "8MiB"
`
	c, err := loadString(t, src)
	if err != nil {
		t.Fatal(err)
	}
	c.Server.Port = 7001
	c.Server.RequirePass = `se"cret\`
	c.RocksDB.Compression = []string{"zstd"}
	c.RocksDB.Subkey.WriteBufferBytes = nil            // removed
	c.Log.Level = "debug"                              // table not in the file
	c.Server.Timeout = Duration{90 * time.Second}      // key not in the file
	c.RocksDB.Metadata.MaxWriteBufferNumber = new(int) // new subtable
	*c.RocksDB.Metadata.MaxWriteBufferNumber = 3
	c.Compaction.ReclaimMaxPerSecond = 5

	got, err := Rewrite([]byte(src), c)
	if err != nil {
		t.Fatal(err)
	}
	want := `# my server
[server]
port = 7001  # the port
# the password
requirepass = "se\"cret\\"
timeout = "1m30s"

[rocksdb]
compression = ["zstd"] # per level
write_buffer_bytes = "32MiB"

[rocksdb.subkey]

[rocksdb.metadata]
max_write_buffer_number = 3

[compaction]
reclaim_max_per_second = 5.0

[log]
level = "debug"
`
	if string(got) != want {
		t.Fatalf("Rewrite:\n%s\nwant:\n%s", got, want)
	}
	back, err := loadString(t, string(got))
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("rewritten file loads as %+v, %v", back, err)
	}
}

func TestRewriteUnchangedIsIdentity(t *testing.T) {
	src, err := os.ReadFile("shale.toml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Rewrite(src, Default())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(src) {
		t.Fatalf("rewriting shale.toml with its own values changed it:\n%s", got)
	}
	empty, err := Rewrite(nil, Default())
	if err != nil || len(empty) != 0 {
		t.Fatalf("Rewrite(empty, Default()) = %q, %v", empty, err)
	}
}

func TestRewriteRefusesWhatItCannotEdit(t *testing.T) {
	for _, src := range []string{
		"[server]\nrequirepass = \"\"\"x\"\"\"\n",
		"[rocksdb]\nmetadata = { bloom_bits_per_key = 5 }\n",
		"[server]\n\"port\" = 1\n",
		"[[server]]\n",
		"[server]\nnot_an_option = 1\n",
	} {
		if _, err := Rewrite([]byte(src), Default()); err == nil {
			t.Errorf("Rewrite(%q) = nil error", src)
		}
	}
}

func loadString(t *testing.T, src string) (Config, error) {
	p := t.TempDir() + "/c.toml"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func TestTOMLString(t *testing.T) {
	if got := tomlString("a\"b\\c\n\x01é"); got != `"a\"b\\c\u000A\u0001é"` {
		t.Fatalf("tomlString = %s", got)
	}
	_ = strings.ToLower
}
