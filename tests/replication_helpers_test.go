package tests

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Helpers shared by the replication tests (replication_test.go,
// replication_fault_test.go): a primary with replicas on either backend,
// waiting until the replicas caught up, and comparing two servers' whole
// keyspaces. Offsets are compared only between servers of one set: Shale's
// are RocksDB sequence numbers, Redis's are bytes of its replication stream.

// replSyncTimeout bounds the initial sync of an empty or small primary.
const replSyncTimeout = 30 * time.Second

// replSetOpts configures startReplSetOpts.
type replSetOpts struct {
	Backend  string // "shale" or "redis"
	Replicas int    // replicas that follow the primary directly
	// ShaleConfig is TOML given to every shale server of the set. It may
	// hold a [replication] section: the replicas' replicaof goes into it.
	ShaleConfig string
	// RedisArgs are extra redis-server arguments for every server of the set.
	RedisArgs []string
}

// replSet is a primary and the replicas that follow it. Its servers are
// stopped at the test's cleanup, as every harness server is.
type replSet struct {
	t        testing.TB
	opts     replSetOpts
	Primary  *serverProc
	Replicas []*serverProc
}

// startReplSet starts a primary and n replicas of it on backend ("shale"
// or "redis"), and returns once every replica's link is up. extraConfig is
// TOML for every shale server (see replSetOpts.ShaleConfig); the redis
// servers ignore it.
func startReplSet(t testing.TB, backend string, n int, extraConfig string) *replSet {
	t.Helper()
	return startReplSetOpts(t, replSetOpts{Backend: backend, Replicas: n, ShaleConfig: extraConfig})
}

// startReplSetOpts is startReplSet with every option.
func startReplSetOpts(t testing.TB, opts replSetOpts) *replSet {
	t.Helper()
	s := &replSet{t: t, opts: opts}
	s.Primary = s.startServer("", "")
	for range opts.Replicas {
		s.Replicas = append(s.Replicas, s.startServer(s.Primary.Addr, ""))
	}
	for _, r := range s.Replicas {
		waitLinkUp(t, r, replSyncTimeout)
	}
	return s
}

// AddReplica starts one more server of the set's backend following
// primaryAddr (any server of the set: a replica makes a chain), waits until
// its link is up and returns it. It is not added to s.Replicas.
func (s *replSet) AddReplica(primaryAddr string) *serverProc {
	s.t.Helper()
	r := s.startServer(primaryAddr, "")
	waitLinkUp(s.t, r, replSyncTimeout)
	return r
}

// RestartReplica starts replica i again on its data directory with its
// configuration, after the caller stopped or killed it, and replaces it in
// s.Replicas. The new process listens on a new port. It does not wait for
// the link: the caller decides what to watch.
func (s *replSet) RestartReplica(i int) *serverProc {
	s.t.Helper()
	old := s.Replicas[i]
	if !old.exited() {
		s.t.Fatalf("RestartReplica(%d): pid %d is still running", i, old.PID)
	}
	s.Replicas[i] = s.startServer(s.Primary.Addr, old.Dir)
	return s.Replicas[i]
}

// startServer starts one server of the set; primaryAddr "" makes a
// primary, dir "" a fresh data directory.
func (s *replSet) startServer(primaryAddr, dir string) *serverProc {
	s.t.Helper()
	config, args := s.opts.ShaleConfig, s.opts.RedisArgs
	if primaryAddr != "" {
		host, port := splitAddr(s.t, primaryAddr)
		config = withReplicaOf(config, host+" "+port)
		args = append([]string{"--replicaof", host, port}, args...)
	}
	if dir != "" && s.opts.Backend == "redis" {
		// Redis keeps nothing on disk here: a restarted replica starts
		// empty, in a fresh directory, and syncs in full.
		s.t.Logf("redis replica restarts empty (no persistence)")
	}
	return startBackend(s.t, s.opts.Backend, shaleOpts{Config: config, Dir: dir}, args...)
}

// startBackend starts a server of backend ("shale" or "redis"), with
// shale's options or redis-server's extra arguments.
func startBackend(t testing.TB, backend string, shale shaleOpts, redisArgs ...string) *serverProc {
	t.Helper()
	switch backend {
	case "redis":
		// startRedis already passes --save '' and --appendonly no. A
		// primary's diskless sync waits 5s by default for more replicas
		// to share the transfer; tests start them one by one.
		return startRedis(t, append([]string{"--repl-diskless-sync-delay", "0"}, redisArgs...)...)
	case "shale":
		return startShale(t, shale)
	}
	t.Fatalf("unknown backend %q", backend)
	return nil
}

// withReplicaOf adds replicaof = "hostPort" to the [replication] section of
// the TOML text config, creating the section if there is none: TOML allows
// a table header only once.
func withReplicaOf(config, hostPort string) string {
	line := fmt.Sprintf("replicaof = %q", hostPort)
	lines := strings.Split(config, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "[replication]" {
			return strings.Join(slices.Insert(lines, i+1, line), "\n")
		}
	}
	if config != "" && !strings.HasSuffix(config, "\n") {
		config += "\n"
	}
	return config + "[replication]\n" + line + "\n"
}

func splitAddr(t testing.TB, addr string) (host, port string) {
	t.Helper()
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		t.Fatalf("address %q has no port", addr)
	}
	return addr[:i], addr[i+1:]
}

// replInfo returns the fields of INFO replication ("role", "slave0", ...).
func replInfo(t testing.TB, c *redis.Client) map[string]string {
	t.Helper()
	return infoFields(doStr(t, c, "INFO", "replication"))
}

// infoFieldInt returns an integer field of an INFO map, failing the test
// when it is missing or not an integer.
func infoFieldInt(t testing.TB, info map[string]string, field string) int64 {
	t.Helper()
	v, found := info[field]
	if !found {
		t.Fatalf("INFO has no %s: %v", field, info)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("INFO %s:%s is not an integer", field, v)
	}
	return n
}

// waitLinkUp polls until replica's INFO replication says
// master_link_status:up.
func waitLinkUp(t testing.TB, replica *serverProc, timeout time.Duration) {
	t.Helper()
	pollUntil(t, timeout, func() (bool, string) {
		if replica.exited() {
			t.Fatalf("%s replica %s exited: %v\n%s", replica.Name, replica.Addr, replica.waitErr, replica.Output())
		}
		info := replInfo(t, replica.Client)
		return info["master_link_status"] == "up", fmt.Sprintf("%s replica %s: role:%s master_link_status:%q master_sync_in_progress:%s",
			replica.Name, replica.Addr, info["role"], info["master_link_status"], info["master_sync_in_progress"])
	})
}

// waitInSync waits until every replica has applied everything primary
// wrote: first WAIT on the primary for its direct replicas (the ones in
// the list whose master_port is the primary's; replicas of replicas are
// not counted by WAIT), then until each replica's slave_repl_offset equals
// the primary's master_repl_offset. It fails the test after timeout with
// every replica's position.
func waitInSync(t testing.TB, timeout time.Duration, primary *serverProc, replicas ...*serverProc) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	direct := 0
	for _, r := range replicas {
		if replInfo(t, r.Client)["master_port"] == strconv.Itoa(primary.Port) {
			direct++
		}
	}
	if direct > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Second)
		acked, err := primary.Client.Do(ctx, "WAIT", direct, timeout.Milliseconds()).Int64()
		cancel()
		if err != nil {
			t.Fatalf("WAIT %d %d on the primary: %v", direct, timeout.Milliseconds(), err)
		}
		if acked < int64(direct) {
			t.Logf("WAIT %d on the primary acknowledged %d; polling the offsets", direct, acked)
		}
	}
	pollUntil(t, max(time.Until(deadline), time.Second), func() (bool, string) {
		want := infoFieldInt(t, replInfo(t, primary.Client), "master_repl_offset")
		var status []string
		inSync := true
		for _, r := range replicas {
			info := replInfo(t, r.Client)
			got, found := info["slave_repl_offset"]
			if got != strconv.FormatInt(want, 10) {
				inSync = false
				if !found {
					got = "(missing)"
				}
				status = append(status, fmt.Sprintf("%s: slave_repl_offset %s master_link_status:%s", r.Addr, got, info["master_link_status"]))
			}
		}
		return inSync, fmt.Sprintf("%s primary %s master_repl_offset %d; behind: %s",
			primary.Name, primary.Addr, want, strings.Join(status, "; "))
	})
}

// replOffsets returns the primary's master_repl_offset and replica's
// slave_repl_offset, for tests that time a catch-up.
func replOffsets(t testing.TB, primary, replica *serverProc) (primaryOffset, replicaOffset int64) {
	t.Helper()
	return infoFieldInt(t, replInfo(t, primary.Client), "master_repl_offset"),
		infoFieldInt(t, replInfo(t, replica.Client), "slave_repl_offset")
}

// keyContent is what compareServers reads of one key.
type keyContent struct {
	Type    string
	Value   any  // type-specific; see readKeys
	HasTTL  bool // PTTL > 0
	Missing bool // gone between SCAN and the read
}

// compareBatch is how many keys one pipeline of compareServers reads.
const compareBatch = 200

// compareServers fails the test unless databases db of a and b hold the
// same keys, each with the same type, content and TTL presence (PTTL > 0
// on both, or no TTL on both), and the same DBSIZE. It reports the first
// differences and the counts. The servers must be quiet: nothing writes
// while it reads, and no key of either expires during the comparison. It
// returns how many keys of each type the database holds.
func compareServers(t testing.TB, a, b *redis.Client, db int) (types map[string]int) {
	t.Helper()
	ca, cb := clientForDB(a, db), clientForDB(b, db)
	defer ca.Close()
	defer cb.Close()
	nameA, nameB := a.Options().Addr, b.Options().Addr

	keysA, keysB := scanKeys(t, ca), scanKeys(t, cb)
	var diffs []string
	for _, k := range keysA {
		if _, found := slices.BinarySearch(keysB, k); !found {
			diffs = append(diffs, fmt.Sprintf("key %q only on %s", k, nameA))
		}
	}
	for _, k := range keysB {
		if _, found := slices.BinarySearch(keysA, k); !found {
			diffs = append(diffs, fmt.Sprintf("key %q only on %s", k, nameB))
		}
	}
	common := intersectSorted(keysA, keysB)
	types = map[string]int{}
	withTTL := 0
	for start := 0; start < len(common); start += compareBatch {
		batch := common[start:min(start+compareBatch, len(common))]
		contentA, contentB := readKeys(t, ca, batch), readKeys(t, cb, batch)
		for i, k := range batch {
			types[contentA[i].Type]++
			if contentA[i].HasTTL {
				withTTL++
			}
			if why := contentDiff(contentA[i], contentB[i]); why != "" {
				diffs = append(diffs, fmt.Sprintf("key %q: %s (%s) vs %s", k, why, nameA, nameB))
			}
		}
	}
	sizeA, sizeB := doInt(t, ca, "DBSIZE"), doInt(t, cb, "DBSIZE")
	if sizeA != sizeB {
		diffs = append(diffs, fmt.Sprintf("DBSIZE %d on %s, %d on %s", sizeA, nameA, sizeB, nameB))
	}
	if sizeA != int64(len(keysA)) || sizeB != int64(len(keysB)) {
		diffs = append(diffs, fmt.Sprintf("DBSIZE differs from SCAN's count: %d/%d on %s, %d/%d on %s",
			sizeA, len(keysA), nameA, sizeB, len(keysB), nameB))
	}
	// INFO keyspace's counters are kept apart from the keys themselves.
	wantKeyspace := fmt.Sprintf("keys=%d,expires=%d", len(common), withTTL)
	for _, c := range []*redis.Client{a, b} {
		if got := keyspaceCounts(t, c, db); got != wantKeyspace {
			diffs = append(diffs, fmt.Sprintf("INFO keyspace db%d on %s: %s, want %s (the keys compared)", db, c.Options().Addr, got, wantKeyspace))
		}
	}
	if len(diffs) > 0 {
		shown := diffs[:min(len(diffs), 10)]
		t.Fatalf("db %d differs: %d keys on %s, %d on %s, %d in common, %d differences; the first:\n\t%s",
			db, len(keysA), nameA, len(keysB), nameB, len(common), len(diffs), strings.Join(shown, "\n\t"))
	}
	t.Logf("db %d: %d keys %v, same on %s and %s", db, len(keysA), types, nameA, nameB)
	return types
}

// keyspaceCounts returns "keys=N,expires=M" from db's INFO keyspace line
// (zeros when there is none: Redis lists only non-empty databases).
func keyspaceCounts(t testing.TB, c *redis.Client, db int) string {
	t.Helper()
	line := infoFields(doStr(t, c, "INFO", "keyspace"))["db"+strconv.Itoa(db)]
	keys, rest, _ := strings.Cut(line, ",")
	expires, _, _ := strings.Cut(rest, ",")
	if line == "" {
		keys, expires = "keys=0", "expires=0"
	}
	return keys + "," + expires
}

// clientForDB returns a new client of c's server whose connections all
// have db selected (go-redis SELECTs on connect); the caller closes it.
func clientForDB(c *redis.Client, db int) *redis.Client {
	opt := *c.Options()
	opt.DB = db
	opt.PoolSize = 2
	return redis.NewClient(&opt)
}

// scanKeys returns every key of c's database, sorted, through SCAN.
func scanKeys(t testing.TB, c *redis.Client) []string {
	t.Helper()
	ctx := ctxT(t)
	var keys []string
	var cursor uint64
	for {
		page, next, err := c.Scan(ctx, cursor, "", 1000).Result()
		if err != nil {
			t.Fatalf("SCAN %d on %s: %v", cursor, c.Options().Addr, err)
		}
		keys = append(keys, page...)
		if cursor = next; cursor == 0 {
			break
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys) // SCAN may return a key twice
}

func intersectSorted(a, b []string) []string {
	var out []string
	for _, k := range a {
		if _, found := slices.BinarySearch(b, k); found {
			out = append(out, k)
		}
	}
	return out
}

// readKeys reads keys in two pipelined round trips: TYPE and PTTL of
// each, then the content with the command of its type.
func readKeys(t testing.TB, c *redis.Client, keys []string) []keyContent {
	t.Helper()
	ctx := ctxT(t)
	addr := c.Options().Addr
	pipe := c.Pipeline()
	types := make([]*redis.StatusCmd, len(keys))
	pttls := make([]*redis.DurationCmd, len(keys))
	for i, k := range keys {
		types[i] = pipe.Type(ctx, k)
		pttls[i] = pipe.PTTL(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("TYPE/PTTL on %s: %v", addr, err)
	}
	out := make([]keyContent, len(keys))
	reads := make([][]*redis.Cmd, len(keys))
	pipe = c.Pipeline()
	for i, k := range keys {
		out[i] = keyContent{Type: types[i].Val(), HasTTL: pttls[i].Val() > 0}
		for _, args := range contentCommands(out[i].Type, k) {
			reads[i] = append(reads[i], pipe.Do(ctx, args...))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("reading %d keys on %s: %v", len(keys), addr, err)
	}
	for i, k := range keys {
		switch out[i].Type {
		case "none":
			out[i].Missing = true
			continue
		case "hash":
			out[i].Value = hashMap(t, reads[i][0].Val())
		case "set":
			members, _ := reads[i][0].StringSlice()
			slices.Sort(members)
			out[i].Value = members
		case "stream":
			out[i].Value = []any{reads[i][0].Val(), pickFields(reads[i][1].Val(), streamStateFields), groupsState(reads[i][2].Val())}
		default:
			out[i].Value = reads[i][0].Val()
		}
		if out[i].Value == nil && len(reads[i]) > 0 {
			t.Fatalf("%s: %s on %s gave nothing", k, out[i].Type, addr)
		}
	}
	return out
}

// contentCommands are the commands that read a key of type typ whole.
// Strings are read raw with GET, which covers bitmaps and HyperLogLogs.
// A stream's XINFO STREAM fields beyond its entries (last-generated-id,
// entries-added, ...) and its groups' state are replicated state too.
func contentCommands(typ, key string) [][]any {
	switch typ {
	case "string":
		return [][]any{{"GET", key}}
	case "hash":
		return [][]any{{"HGETALL", key}}
	case "list":
		return [][]any{{"LRANGE", key, 0, -1}}
	case "set":
		return [][]any{{"SMEMBERS", key}}
	case "zset":
		return [][]any{{"ZRANGE", key, 0, -1, "WITHSCORES"}}
	case "stream":
		return [][]any{
			{"XRANGE", key, "-", "+"},
			{"XINFO", "STREAM", key},
			{"XINFO", "GROUPS", key},
		}
	}
	return nil
}

// streamStateFields are the fields of XINFO STREAM that are replicated
// state rather than encoding details (radix-tree sizes differ between
// implementations) or copies of XRANGE's ends.
var streamStateFields = []string{"length", "last-generated-id", "max-deleted-entry-id", "entries-added", "recorded-first-entry-id", "groups"}

// groupFields are the fields of XINFO GROUPS that compareServers compares.
// entries-read and lag are estimates that Redis itself does not keep equal
// on its replicas (a replica of a replica reports them nil).
var groupFields = []string{"name", "consumers", "pending", "last-delivered-id"}

// groupsState keeps the groupFields of each group of an XINFO GROUPS reply.
func groupsState(reply any) []any {
	groups, _ := reply.([]any)
	var out []any
	for _, g := range groups {
		out = append(out, pickFields(g, groupFields))
	}
	return out
}

// pickFields keeps the named fields of a flat name/value array.
func pickFields(reply any, names []string) []any {
	flat, _ := reply.([]any)
	var out []any
	for i := 0; i+1 < len(flat); i += 2 {
		if name, isStr := flat[i].(string); isStr && slices.Contains(names, name) {
			out = append(out, name, flat[i+1])
		}
	}
	return out
}

// hashMap turns HGETALL's flat reply into a map: field order differs
// between servers (Redis's hash tables are seeded per process).
func hashMap(t testing.TB, reply any) map[string]string {
	t.Helper()
	flat, isArr := reply.([]any)
	if !isArr || len(flat)%2 != 0 {
		t.Fatalf("HGETALL reply %s is not a flat field/value array", fmtVal(reply))
	}
	m := make(map[string]string, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		m[fmt.Sprint(flat[i])] = fmt.Sprint(flat[i+1])
	}
	return m
}

// contentDiff says how two reads of one key differ, "" when they do not.
func contentDiff(a, b keyContent) string {
	switch {
	case a.Missing || b.Missing:
		return fmt.Sprintf("missing: %v vs %v (expired or deleted during the comparison?)", a.Missing, b.Missing)
	case a.Type != b.Type:
		return fmt.Sprintf("type %s vs %s", a.Type, b.Type)
	case a.HasTTL != b.HasTTL:
		return fmt.Sprintf("has a TTL: %v vs %v", a.HasTTL, b.HasTTL)
	}
	if ma, isMap := a.Value.(map[string]string); isMap {
		if mb := b.Value.(map[string]string); !maps.Equal(ma, mb) {
			return fmt.Sprintf("%s content differs: %d fields vs %d", a.Type, len(ma), len(mb))
		}
		return ""
	}
	if va, vb := fmtVal(a.Value), fmtVal(b.Value); !deepEqualReplies(a.Value, b.Value) {
		return fmt.Sprintf("%s content %s vs %s", a.Type, va, vb)
	}
	return ""
}

// deepEqualReplies compares two go-redis replies element by element.
func deepEqualReplies(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, isArr := b.([]any)
		if !isArr || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqualReplies(x[i], y[i]) {
				return false
			}
		}
		return true
	case []string:
		y, isArr := b.([]string)
		return isArr && slices.Equal(x, y)
	case error:
		y, isErr := b.(error)
		return isErr && x.Error() == y.Error()
	}
	return a == b
}

// fatalRecorder is a testing.TB whose Fatalf records the message and ends
// the goroutine, so that a test can check that a helper fails.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalRecorder) Helper() {}

// compareFailure runs compareServers(a, b, 0) and returns its failure
// message, "" if it passed.
func compareFailure(t *testing.T, a, b *redis.Client) string {
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		compareServers(rec, a, b, 0)
	}()
	<-done
	return rec.msg
}

// TestCompareServers checks that compareServers sees each kind of
// difference the replication tests rely on it to find, and none between
// equal servers. Two redis-servers, about 1 s.
func TestCompareServers(t *testing.T) {
	t.Parallel()
	a, b := startRedis(t).Client, startRedis(t).Client
	base := [][]any{
		{"SET", "s", "v"},
		{"SETBIT", "bits", 40000, 1},
		{"PFADD", "hll", "x", "y"},
		{"HSET", "h", "f1", "1", "f2", "2"},
		{"RPUSH", "l", "a", "b"},
		{"SADD", "set", "m1", "m2"},
		{"ZADD", "z", "1", "m1", "2", "m2"},
		{"XADD", "x", "1-1", "f", "v"},
		{"XGROUP", "CREATE", "x", "grp", "0"},
		{"SET", "ttl", "v", "EX", 3600},
	}
	cases := []struct {
		name, key string
		diff      []any // run on b only
	}{
		{"equal", "", nil},
		{"string", "s", []any{"APPEND", "s", "w"}},
		{"bitmap", "bits", []any{"SETBIT", "bits", 40001, 1}},
		{"hll", "hll", []any{"PFADD", "hll", "z"}},
		{"hash", "h", []any{"HSET", "h", "f2", "3"}},
		{"list order", "l", []any{"LMOVE", "l", "l", "LEFT", "RIGHT"}},
		{"set", "set", []any{"SADD", "set", "m3"}},
		{"zset score", "z", []any{"ZINCRBY", "z", "0.5", "m1"}},
		{"stream entries", "x", []any{"XADD", "x", "2-1", "f", "v"}},
		{"stream group", "x", []any{"XREADGROUP", "GROUP", "grp", "c", "COUNT", 1, "STREAMS", "x", ">"}},
		{"stream deletion", "x", []any{"EVAL", "redis.call('XADD', KEYS[1], '2-1', 'f', 'v') return redis.call('XDEL', KEYS[1], '2-1')", 1, "x"}},
		{"ttl", "s", []any{"EXPIRE", "s", 3600}},
		{"no ttl", "ttl", []any{"PERSIST", "ttl"}},
		{"type", "s", []any{"EVAL", "redis.call('DEL', KEYS[1]) return redis.call('RPUSH', KEYS[1], 'v')", 1, "s"}},
		{"extra key", "extra", []any{"SET", "extra", "1"}},
		{"missing key", "l", []any{"DEL", "l"}},
	}
	for _, tc := range cases {
		for _, c := range []*redis.Client{a, b} {
			do(t, c, "FLUSHALL")
			for _, args := range base {
				do(t, c, args...)
			}
		}
		if tc.diff != nil {
			do(t, b, tc.diff...)
		}
		msg := compareFailure(t, a, b)
		switch {
		case tc.diff == nil && msg != "":
			t.Errorf("%s: compareServers failed on equal servers: %s", tc.name, msg)
		case tc.diff != nil && !strings.Contains(msg, fmt.Sprintf("%q", tc.key)):
			t.Errorf("%s: compareServers did not report key %q after %s; it said %q", tc.name, tc.key, fmtArgs(tc.diff), msg)
		}
	}
}
