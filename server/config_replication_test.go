package server

import (
	"math"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/shaledb/shale/conf"
)

func TestReplicaOfValueFormat(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"no one":          "",
		"10.0.0.1 6379":   "10.0.0.1 6379",
		"  h    7000 ":    "h 7000", // as Redis answers: one space
		"not a primary":   "",       // Validate refuses it; never shown raw
		"localhost 65535": "localhost 65535",
	} {
		if got := replicaOfValue.format(in); got != want {
			t.Errorf("format(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedisPositiveSeconds(t *testing.T) {
	vc := redisPositiveSeconds(math.MaxInt32)
	const outOfRange = "argument must be between 1 and 2147483647 inclusive"
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"1", time.Second, ""},
		{"60", time.Minute, ""},
		{"2147483647", math.MaxInt32 * time.Second, ""},
		{"90s", 90 * time.Second, ""},
		{"1s", time.Second, ""},
		{"0", 0, outOfRange},
		{"-1", 0, outOfRange},
		{"2147483648", 0, outOfRange},
		{"999ms", 0, outOfRange},
		{"0s", 0, outOfRange},
		{"-5s", 0, outOfRange},
		{"+5", 0, errNotInt.Error()},
		{"05", 0, errNotInt.Error()},
		{"soon", 0, errNotInt.Error()},
	}
	for _, tt := range tests {
		d, err := vc.parse(tt.in)
		switch {
		case tt.wantErr == "" && (err != nil || d.Duration != tt.want):
			t.Errorf("parse(%q) = %v, %v; want %v", tt.in, d.Duration, err, tt.want)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("parse(%q) = %v, %v; want error %q", tt.in, d.Duration, err, tt.wantErr)
		}
	}
}

func TestReplicaReadOnlyValue(t *testing.T) {
	for in, wantErr := range map[string]error{
		"yes": nil, "YES": nil,
		"no": errReplicaWritable, "No": errReplicaWritable,
		"true": errNotBool, "1": errNotBool, "": errNotBool,
	} {
		if v, err := replicaReadOnlyValue.parse(in); err != wantErr || (err == nil && !v) {
			t.Errorf("parse(%q) = %v, %v; want true, %v", in, v, err, wantErr)
		}
	}
}

// TestMinReplicasFromStart: min_replicas_to_write set in the file refuses
// writes from the first command, as CONFIG SET's does (writeRefusal reads
// a copy the start sets too), and reads still run.
func TestMinReplicasFromStart(t *testing.T) {
	_, c := startAdminServer(t, func(cfg *conf.Config) { cfg.Replication.MinReplicasToWrite = 1 })
	runScript(t, c, []step{
		{[]any{"SET", "k", "v"}, wantErr("NOREPLICAS Not enough good replicas to write.")},
		{[]any{"GET", "k"}, redis.Nil},
		{[]any{"CONFIG", "SET", "min-replicas-to-write", "0"}, "OK"},
		{[]any{"SET", "k", "v"}, "OK"},
	})
}
