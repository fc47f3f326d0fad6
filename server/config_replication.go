package server

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shaledb/shale/conf"
)

// The [replication] section as CONFIG parameters: Redis 7.0's names, each
// with its slave-* alias where Redis has one (a parameter of its own, as
// CONFIG GET lists both in Redis), Redis's ranges and texts. The
// replication code reads s.config().Replication each time it needs a
// value, so a CONFIG SET needs no push from applyConfig.

// replicationParams are the [replication] parameters, in CONFIG GET's order.
var replicationParams = func() []configParam {
	replicaOf := func(c *conf.Config) *string { return &c.Replication.ReplicaOf }
	readOnly := func(c *conf.Config) *bool { return &c.Replication.ReplicaReadOnly }
	announceIP := func(c *conf.Config) *string { return &c.Replication.ReplicaAnnounceIP }
	announcePort := func(c *conf.Config) *int { return &c.Replication.ReplicaAnnouncePort }
	priority := func(c *conf.Config) *int { return &c.Replication.ReplicaPriority }
	toWrite := func(c *conf.Config) *int { return &c.Replication.MinReplicasToWrite }
	maxLag := func(c *conf.Config) *int { return &c.Replication.MinReplicasMaxLag }
	port := redisInt[int](0, 65535)
	count := redisInt[int](0, math.MaxInt32)
	return []configParam{
		// REPLICAOF changes it, never CONFIG SET: Redis refuses that too
		// ("can't set immutable config").
		field("replicaof", "replication.replicaof", replicaOfValue, replicaOf, restart),
		field("slaveof", "replication.replicaof", replicaOfValue, replicaOf, restart),
		field("replica-read-only", "replication.replica_read_only", replicaReadOnlyValue, readOnly, live),
		field("slave-read-only", "replication.replica_read_only", replicaReadOnlyValue, readOnly, live),
		field("masterauth", "replication.masterauth", stringValue, func(c *conf.Config) *string { return &c.Replication.MasterAuth }, live),
		field("masteruser", "replication.masteruser", stringValue, func(c *conf.Config) *string { return &c.Replication.MasterUser }, live),
		field("replica-announce-ip", "replication.replica_announce_ip", stringValue, announceIP, live),
		field("slave-announce-ip", "replication.replica_announce_ip", stringValue, announceIP, live),
		field("replica-announce-port", "replication.replica_announce_port", port, announcePort, live),
		field("slave-announce-port", "replication.replica_announce_port", port, announcePort, live),
		field("replica-priority", "replication.replica_priority", count, priority, live),
		field("slave-priority", "replication.replica_priority", count, priority, live),
		field("min-replicas-to-write", "replication.min_replicas_to_write", count, toWrite, live),
		field("min-slaves-to-write", "replication.min_replicas_to_write", count, toWrite, live),
		field("min-replicas-max-lag", "replication.min_replicas_max_lag", count, maxLag, live),
		field("min-slaves-max-lag", "replication.min_replicas_max_lag", count, maxLag, live),
		field("repl-timeout", "replication.repl_timeout", redisPositiveSeconds(math.MaxInt32), func(c *conf.Config) *conf.Duration { return &c.Replication.ReplTimeout }, live),
		// Read when the store opens: RocksDB's WAL_ttl_seconds and
		// WAL_size_limit_MB are DB-wide options, which it cannot change at
		// runtime (see docs/OPERATIONS.md, "Configuration").
		field("replication.wal_retention", "replication.wal_retention", durationValue, func(c *conf.Config) *conf.Duration { return &c.Replication.WALRetention }, restart),
		field("replication.wal_retention_bytes", "replication.wal_retention_bytes", sizeValue, func(c *conf.Config) *conf.ByteSize { return &c.Replication.WALRetentionBytes }, restart),
	}
}()

// replicaOfValue answers as Redis does: "host port" of the primary, or ""
// on a primary. It is only read (REPLICAOF writes the field).
var replicaOfValue = valueCodec[string]{
	format: func(s string) string {
		host, port, err := conf.ParseReplicaOf(s)
		if err != nil || host == "" { // validated: an error cannot be
			return ""
		}
		return host + " " + strconv.Itoa(port)
	},
	parse: stringValue.parse,
}

// errReplicaWritable is CONFIG SET replica-read-only no's refusal.
var errReplicaWritable = errors.New("Shale replicas are always read-only: a replica applies its primary's write-ahead log as it is, and a write of its own would break the next batch")

// replicaReadOnlyValue reads yes or no as Redis does (no "true"), and
// takes only yes.
var replicaReadOnlyValue = valueCodec[bool]{
	format: boolValue.format,
	parse: func(s string) (bool, error) {
		if err := redisBool(s); err != nil {
			return false, err
		}
		if strings.EqualFold(s, "no") {
			return false, errReplicaWritable
		}
		return true, nil
	},
}

// redisPositiveSeconds is redisSeconds with Redis's lower bound of 1, as
// for repl-timeout: whole seconds in [1, hi], or a duration of at least a
// second.
func redisPositiveSeconds(hi int64) valueCodec[conf.Duration] {
	secs := redisSeconds(hi)
	return valueCodec[conf.Duration]{
		format: secs.format,
		parse: func(s string) (conf.Duration, error) {
			d, err := secs.parse(s)
			switch {
			case errors.Is(err, errNotInt):
				return conf.Duration{}, err
			case err != nil || d.Duration < time.Second:
				return conf.Duration{}, errConfigRange(1, hi)
			}
			return d, nil
		},
	}
}
