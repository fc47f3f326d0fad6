package conf

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseReplicaOf(t *testing.T) {
	tests := []struct {
		in      string
		host    string
		port    int
		wantErr bool
	}{
		{"", "", 0, false},
		{"  ", "", 0, false},
		{"no one", "", 0, false},
		{"NO ONE", "", 0, false},
		{"127.0.0.1 6379", "127.0.0.1", 6379, false},
		{"  primary.example   7000 ", "primary.example", 7000, false},
		{"::1 1", "::1", 1, false},
		{"h 65535", "h", 65535, false},
		{"h 0", "", 0, true},
		{"h 65536", "", 0, true},
		{"h -1", "", 0, true},
		{"h port", "", 0, true},
		{"127.0.0.1:6379", "", 0, true}, // Redis's form is two words
		{"h 6379 extra", "", 0, true},
		{"no", "", 0, true},
	}
	for _, tt := range tests {
		host, port, err := ParseReplicaOf(tt.in)
		if host != tt.host || port != tt.port || (err != nil) != tt.wantErr {
			t.Errorf("ParseReplicaOf(%q) = %q, %d, %v; want %q, %d, error %v", tt.in, host, port, err, tt.host, tt.port, tt.wantErr)
		}
	}
}

func TestReplicaOfAddr(t *testing.T) {
	for in, want := range map[string]string{
		"":               "",
		"no one":         "",
		"10.0.0.1 6380":  "10.0.0.1:6380",
		"::1 6380":       "[::1]:6380",
		"not an address": "",
	} {
		if got := (Replication{ReplicaOf: in}).ReplicaOfAddr(); got != want {
			t.Errorf("ReplicaOfAddr of %q = %q, want %q", in, got, want)
		}
	}
}

// TestReplicationValidate: each [replication] value outside Redis's range
// is refused with its key, and the edges of each range are accepted.
func TestReplicationValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *Replication)
		want string // "" for valid; else a substring of the error
	}{
		{"defaults", func(*Replication) {}, ""},
		{"replicaof", func(r *Replication) { r.ReplicaOf = "10.0.0.1 6379" }, ""},
		{"replicaof no one", func(r *Replication) { r.ReplicaOf = "no one" }, ""},
		{"replicaof without port", func(r *Replication) { r.ReplicaOf = "10.0.0.1" }, `replication.replicaof: "10.0.0.1" is not "host port"`},
		{"replicaof host:port", func(r *Replication) { r.ReplicaOf = "10.0.0.1:6379" }, "replication.replicaof:"},
		{"replicaof port 0", func(r *Replication) { r.ReplicaOf = "h 0" }, "replication.replicaof: \"h 0\" has no valid port (1..65535)"},
		{"writable replica", func(r *Replication) { r.ReplicaReadOnly = false }, "replication.replica_read_only: false is not supported"},
		{"announce port max", func(r *Replication) { r.ReplicaAnnouncePort = 65535 }, ""},
		{"announce port high", func(r *Replication) { r.ReplicaAnnouncePort = 65536 }, "replication.replica_announce_port: 65536 is out of range 0..65535"},
		{"announce port negative", func(r *Replication) { r.ReplicaAnnouncePort = -1 }, "replication.replica_announce_port: -1 is out of range"},
		{"priority 0", func(r *Replication) { r.ReplicaPriority = 0 }, ""},
		{"priority negative", func(r *Replication) { r.ReplicaPriority = -1 }, "replication.replica_priority: -1 is out of range 0..2147483647"},
		{"priority beyond int32", func(r *Replication) { r.ReplicaPriority = 1 << 31 }, "replication.replica_priority:"},
		{"to write negative", func(r *Replication) { r.MinReplicasToWrite = -1 }, "replication.min_replicas_to_write: -1 is out of range"},
		{"max lag 0", func(r *Replication) { r.MinReplicasMaxLag = 0 }, ""},
		{"max lag negative", func(r *Replication) { r.MinReplicasMaxLag = -1 }, "replication.min_replicas_max_lag: -1 is out of range"},
		{"repl timeout 0", func(r *Replication) { r.ReplTimeout = Duration{} }, "replication.repl_timeout: 0s must be positive"},
		{"repl timeout negative", func(r *Replication) { r.ReplTimeout = Duration{-time.Second} }, "replication.repl_timeout:"},
		{"repl timeout short", func(r *Replication) { r.ReplTimeout = Duration{100 * time.Millisecond} }, ""},
		{"no wal retention", func(r *Replication) { r.WALRetention, r.WALRetentionBytes = Duration{}, 0 }, ""},
		{"wal retention 1s", func(r *Replication) { r.WALRetention = Duration{time.Second} }, ""},
		{"wal retention below RocksDB's second", func(r *Replication) { r.WALRetention = Duration{500 * time.Millisecond} }, "replication.wal_retention: 500ms must be 0 (no time bound) or at least 1s"},
		{"wal retention negative", func(r *Replication) { r.WALRetention = Duration{-time.Minute} }, "replication.wal_retention:"},
		{"wal retention 1MiB", func(r *Replication) { r.WALRetentionBytes = MiB }, ""},
		{"wal retention below RocksDB's MiB", func(r *Replication) { r.WALRetentionBytes = 64 * KiB }, "replication.wal_retention_bytes: 64KiB must be 0 (no size bound) or at least 1MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.edit(&c.Replication)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestLoadReplication: the [replication] section reads from TOML, with its
// units, and a bad value stops the load naming its key.
func TestLoadReplication(t *testing.T) {
	got, err := loadString(t, `[replication]
replicaof = "10.0.0.1 6379"
masterauth = "s3cret"
masteruser = "repl"
replica_announce_ip = "203.0.113.7"
replica_announce_port = 16379
replica_priority = 0
min_replicas_to_write = 1
min_replicas_max_lag = 5
repl_timeout = "5s"
wal_retention = "1h"
wal_retention_bytes = "10GiB"
`)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Replication = Replication{
		ReplicaOf: "10.0.0.1 6379", ReplicaReadOnly: true, MasterAuth: "s3cret", MasterUser: "repl",
		ReplicaAnnounceIP: "203.0.113.7", ReplicaAnnouncePort: 16379, ReplicaPriority: 0,
		MinReplicasToWrite: 1, MinReplicasMaxLag: 5, ReplTimeout: Duration{5 * time.Second},
		WALRetention: Duration{time.Hour}, WALRetentionBytes: 10 * GiB,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Load:\n got %+v\nwant %+v", got.Replication, want.Replication)
	}
	for src, msg := range map[string]string{
		"[replication]\nreplica_read_only = false\n": "replication.replica_read_only: false is not supported",
		"[replication]\nreplicaof = \"10.0.0.1\"\n":  "replication.replicaof:",
		"[replication]\nrepl_timeout = 60\n":         `"replication.repl_timeout"`,
		"[replication]\nreplica_priority = \"1\"\n":  `"replication.replica_priority"`,
		"[replication]\nreplica_of = \"h 1\"\n":      `unknown config key "replication.replica_of"`,
	} {
		if _, err := loadString(t, src); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Load(%q) = %v, want an error containing %q", src, err, msg)
		}
	}
}

// TestRewriteReplicaOf: CONFIG REWRITE keeps a replica a replica across a
// restart. REPLICAOF changes ReplicaOf at runtime; the rewritten file must
// load with the new value, whether the file had the key, had the section
// only, or had neither, and REPLICAOF NO ONE must clear it again.
func TestRewriteReplicaOf(t *testing.T) {
	tests := []struct {
		name, src, replicaOf, want string
	}{
		{"new section", "[server]\nport = 7000\n", "10.0.0.1 6379",
			"[server]\nport = 7000\n\n[replication]\nreplicaof = \"10.0.0.1 6379\"\n"},
		{"section without the key", "[replication]\nreplica_priority = 10 # low\n", "10.0.0.1 6379",
			"[replication]\nreplica_priority = 10 # low\nreplicaof = \"10.0.0.1 6379\"\n"},
		{"other primary", "[replication]\nreplicaof = \"10.0.0.1 6379\" # set by Sentinel\n", "10.0.0.2 6380",
			"[replication]\nreplicaof = \"10.0.0.2 6380\" # set by Sentinel\n"},
		{"promoted", "[replication]\nreplicaof = \"10.0.0.1 6379\"\n", "",
			"[replication]\nreplicaof = \"\"\n"},
		{"primary stays primary", "[server]\nport = 7000\n", "", "[server]\nport = 7000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadString(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			c.Replication.ReplicaOf = tt.replicaOf
			got, err := Rewrite([]byte(tt.src), c)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("Rewrite:\n%s\nwant:\n%s", got, tt.want)
			}
			back, err := loadString(t, string(got))
			if err != nil || back.Replication.ReplicaOf != tt.replicaOf {
				t.Fatalf("rewritten file loads replicaof %q, %v; want %q", back.Replication.ReplicaOf, err, tt.replicaOf)
			}
		})
	}
}

// TestRewriteReplicationSection: every [replication] value a CONFIG SET
// can change survives a rewrite and a reload.
func TestRewriteReplicationSection(t *testing.T) {
	c := Default()
	c.Replication = Replication{
		ReplicaOf: "h 1", ReplicaReadOnly: true, MasterAuth: `p"w\`, MasterUser: "u",
		ReplicaAnnounceIP: "192.0.2.1", ReplicaAnnouncePort: 1, ReplicaPriority: 7,
		MinReplicasToWrite: 2, MinReplicasMaxLag: 3, ReplTimeout: Duration{90 * time.Second},
		WALRetention: Duration{0}, WALRetentionBytes: 0,
	}
	got, err := Rewrite(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := loadString(t, string(got))
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("rewritten file\n%s\nloads as %+v, %v", got, back.Replication, err)
	}
}
