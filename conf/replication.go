package conf

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"
)

// Replication is the [replication] section: following a primary, and what
// a primary asks of its replicas. Redis's names are in the comments; the
// CONFIG parameters take them (docs/REPLICATION.md).
type Replication struct {
	// ReplicaOf is "host port" of the primary this server follows, as
	// Redis's replicaof; "" (the default) makes it a primary. REPLICAOF
	// changes it at runtime.
	ReplicaOf string `toml:"replicaof"`
	// ReplicaReadOnly is Redis's replica-read-only. Only the default, true,
	// is supported: a replica applies its primary's write-ahead log as it
	// is, so a write of its own would break the next batch.
	ReplicaReadOnly bool `toml:"replica_read_only"`
	// MasterAuth and MasterUser are what a replica gives AUTH on its
	// primary (Redis's masterauth and masteruser); "" means no AUTH.
	MasterAuth string `toml:"masterauth"`
	MasterUser string `toml:"masteruser"`
	// ReplicaAnnounceIP and ReplicaAnnouncePort are the address a replica
	// tells its primary to list it under (INFO replication, Sentinel);
	// "" and 0 (the defaults) mean the connection's address and the port
	// this server listens on.
	ReplicaAnnounceIP   string `toml:"replica_announce_ip"`
	ReplicaAnnouncePort int    `toml:"replica_announce_port"`
	// ReplicaPriority is Redis's replica-priority: Sentinel promotes the
	// replica with the lowest, and never one of 0. Default 100.
	ReplicaPriority int `toml:"replica_priority"`
	// MinReplicasToWrite and MinReplicasMaxLag are Redis's
	// min-replicas-to-write and min-replicas-max-lag: a primary refuses
	// writes (NOREPLICAS) unless that many replicas acknowledged within
	// that many seconds. Defaults 0 (off) and 10.
	MinReplicasToWrite int `toml:"min_replicas_to_write"`
	MinReplicasMaxLag  int `toml:"min_replicas_max_lag"`
	// ReplTimeout is Redis's repl-timeout: a link silent this long is
	// dropped, on either side. Default 60s.
	ReplTimeout Duration `toml:"repl_timeout"`
	// WALRetention and WALRetentionBytes bound the write-ahead log a
	// primary keeps for replicas that fell behind (RocksDB's
	// WAL_ttl_seconds and WAL_size_limit_MB): a replica whose position is
	// still in it resumes from there, others sync in full. Defaults 10m
	// and 1 GiB; 0 turns a bound off, and with both off RocksDB keeps no
	// log beyond the live one. Otherwise at least 1s and 1MiB, RocksDB's
	// units. Read when the store opens.
	WALRetention      Duration `toml:"wal_retention"`
	WALRetentionBytes ByteSize `toml:"wal_retention_bytes"`
}

// DefaultReplication is the [replication] section's defaults.
func DefaultReplication() Replication {
	return Replication{
		ReplicaReadOnly:   true,
		ReplicaPriority:   100,
		MinReplicasMaxLag: 10,
		ReplTimeout:       Duration{60 * time.Second},
		WALRetention:      Duration{10 * time.Minute},
		WALRetentionBytes: GiB,
	}
}

// validate checks r's values; the ranges are Redis's (CONFIG SET takes
// the same ones).
func (r Replication) validate(v *validator) {
	if _, _, err := ParseReplicaOf(r.ReplicaOf); err != nil {
		v.add("replication.replicaof", err.Error())
	}
	if !r.ReplicaReadOnly {
		v.add("replication.replica_read_only", "false is not supported: a replica applies its primary's write-ahead log as it is, and a write of its own would break the next batch")
	}
	v.intRange("replication.replica_announce_port", r.ReplicaAnnouncePort, 0, 65535)
	v.intRange("replication.replica_priority", r.ReplicaPriority, 0, math.MaxInt32)
	v.intRange("replication.min_replicas_to_write", r.MinReplicasToWrite, 0, math.MaxInt32)
	v.intRange("replication.min_replicas_max_lag", r.MinReplicasMaxLag, 0, math.MaxInt32)
	if r.ReplTimeout.Duration <= 0 {
		v.add("replication.repl_timeout", fmt.Sprintf("%s must be positive", r.ReplTimeout))
	}
	// RocksDB counts these in whole seconds and MiB (WAL_ttl_seconds,
	// WAL_size_limit_MB), where 0 is off: a smaller bound would silently
	// turn into none.
	if d := r.WALRetention.Duration; d != 0 && d < time.Second {
		v.add("replication.wal_retention", fmt.Sprintf("%s must be 0 (no time bound) or at least 1s", r.WALRetention))
	}
	if n := r.WALRetentionBytes; n != 0 && n < MiB {
		v.add("replication.wal_retention_bytes", fmt.Sprintf("%s must be 0 (no size bound) or at least 1MiB", n))
	}
}

// ParseReplicaOf splits "host port" into its parts; "" (and "no one")
// give host "".
func ParseReplicaOf(s string) (host string, port int, err error) {
	f := strings.Fields(s)
	if len(f) == 0 || (len(f) == 2 && strings.EqualFold(f[0], "no") && strings.EqualFold(f[1], "one")) {
		return "", 0, nil
	}
	if len(f) != 2 {
		return "", 0, fmt.Errorf("%q is not \"host port\"", s)
	}
	p, err := strconv.Atoi(f[1])
	if err != nil || p < 1 || p > 65535 {
		return "", 0, fmt.Errorf("%q has no valid port (1..65535)", s)
	}
	return f[0], p, nil
}

// ReplicaOfAddr is the primary's host:port, "" for none.
func (r Replication) ReplicaOfAddr() string {
	host, port, err := ParseReplicaOf(r.ReplicaOf)
	if err != nil || host == "" {
		return ""
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
