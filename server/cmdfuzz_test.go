package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/shaledb/shale/conf"
)

// The command fuzzer runs every row of the command table (and every
// subcommand) with argument lists built from the row's arity and key
// positions, drawn from values that break arithmetic: the int64 extremes
// and their neighbours, floats and range bounds, empty and 64 KiB strings,
// keys of each type and a missing one, and the command's own option words.
// A command fails the fuzzer when it replies ERR internal error (a panic or
// an unmapped error), replies with malformed RESP, with no reply or with
// more than one, closes the connection without a reply, or does not answer
// within fuzzHang without being blocked (BLPOP) as it may be. After each
// round every key is checked with the invariants build's self-checks.
//
// EVAL, EVALSHA, their _RO forms, SCRIPT LOAD, FCALL, FCALL_RO and
// FUNCTION LOAD get, half of the time, a real script instead (script):
// most of fuzzScripts run a fuzzed argument list of any command through
// redis.call or redis.pcall, so every command is fuzzed from scripts too.
//
// TestCommandFuzz is the bounded run of `make test`; FuzzCommands is the
// same generator steered by go's fuzzer (`make fuzz`). A new command is
// covered as soon as it has a table row; the few left out are in
// fuzzSkipped, each with the reason.

// fuzzSkipped are the commands and subcommands the fuzzer does not run.
var fuzzSkipped = map[string]string{
	"shutdown":    "stops the server; tests/ cover SHUTDOWN's options",
	"debug|sleep": "sleeps as long as it is told, as Redis's does",
	"debug|panic": "panics on purpose; TestPanicCostsOnlyTheConnection covers it",
}

// fuzzHang is how long a command that is not blocked may take to reply.
const fuzzHang = 10 * time.Second

// chooser makes the generator's choices: at random for the bounded run,
// from the input's bytes for go's fuzzer, which then learns which choices
// reach new code.
type chooser interface {
	intn(n int) int // in [0, n); n > 0
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int { return c.r.IntN(n) }

// byteChooser takes its choices from b, and 0 once b runs out.
type byteChooser struct{ b []byte }

func (c *byteChooser) intn(n int) int {
	v := 0
	for span := 1; span < n && len(c.b) > 0; span <<= 8 {
		v = v<<8 | int(c.b[0])
		c.b = c.b[1:]
	}
	return v % n
}

// fuzzCmd is one command or subcommand to fuzz.
type fuzzCmd struct {
	name   string   // "get", "client|pause"
	prefix []string // what starts every argument list: GET, or CLIENT PAUSE
	arity  int      // Redis's: counts the prefix; -N means at least N
	// first, last and step are the row's key positions (first 0: none).
	first, last, step int
	words             []string // the command's option words, from its docs
}

// fuzzCommands lists what the fuzzer runs, from the table.
func fuzzCommands(t commandTable) []fuzzCmd {
	var out []fuzzCmd
	add := func(name string, prefix []string, arity int, row *Command, doc cmdDoc) {
		if _, skip := fuzzSkipped[name]; skip {
			return
		}
		fc := fuzzCmd{name: name, prefix: prefix, arity: arity, words: optionWords(name, doc)}
		if len(prefix) == 1 {
			fc.first, fc.last, fc.step = row.FirstKey, row.LastKey, row.Step
		}
		out = append(out, fc)
	}
	for _, name := range t.sortedNames() {
		row := t[name]
		add(name, []string{name}, row.Arity, row, row.Doc)
		for _, sc := range row.Subcommands {
			add(name+"|"+sc.Name, []string{name, sc.Name}, sc.Arity, row, sc.Doc)
		}
	}
	return out
}

var docWord = regexp.MustCompile(`[A-Z][A-Z0-9_-]+`)

// optionWords are the upper-case words of a command's doc syntax (EX, NX,
// WITHSCORES, LIMIT...), with CONFIG's parameter names for CONFIG.
func optionWords(name string, doc cmdDoc) []string {
	words := docWord.FindAllString(doc.args, -1)
	if strings.HasPrefix(name, "config") {
		for _, p := range configParams {
			// A relative backup dir would make BGSAVE write into the
			// package's folder; the config tests cover that parameter.
			if p.name != "storage.backup_dir" {
				words = append(words, p.name)
			}
		}
	}
	return words
}

// fuzzKeys are the keys each round starts with, by type, and a missing one.
var fuzzKeys = []string{"k:str", "k:int", "k:hash", "k:list", "k:set", "k:zset", "k:stream", "k:hll", "k:none"}

var fuzzSeed = [][]string{
	{"SET", "k:str", "hello"},
	{"SET", "k:int", "10"},
	{"HSET", "k:hash", "f", "1", "g", "v", "h", "1.5"},
	{"RPUSH", "k:list", "a", "1", "b", "a", "2"},
	{"SADD", "k:set", "a", "1", "b"},
	{"ZADD", "k:zset", "1", "a", "2", "b", "2.5", "c"},
	{"GEOADD", "k:zset", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
	{"XADD", "k:stream", "1-1", "a", "1"},
	{"PFADD", "k:hll", "a", "b", "c"},
	{"XADD", "k:stream", "2-5", "b", "2", "c", "3"},
	// A consumer group with a consumer and a pending entry.
	{"XGROUP", "CREATE", "k:stream", "g", "0"},
	{"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "k:stream", ">"},
}

var fuzzInts = []string{
	"9223372036854775807", "9223372036854775806", "-9223372036854775808", "-9223372036854775807",
	"9223372036854775808", "-9223372036854775809", "4611686018427387904", "-4611686018427387904",
	"4611686018427387903", "4294967296", "4294967295", "2147483648", "2147483647", "-2147483648",
	"0", "-1", "1", "2", "3", "5", "-2", "100", "1000000",
}

var fuzzFloats = []string{
	"inf", "-inf", "+inf", "nan", "1e308", "-1e308", "1e400", "-1e400", "1.5", "-0", "0.0001",
	"(1", "(-inf", "[a", "(a", "[", "(", "-", "+", "1e", "0x10", " 1", "1 ", "",
	// Longitudes, latitudes and radii, in range and just out of it.
	"13.361389", "38.115556", "180", "-180", "85.05112878", "-85.05112879", "200", "20000000",
}

var fuzzBig = strings.Repeat("x", 64<<10)

var fuzzStrings = []string{"", "a", "b", "*", "?", "a*", "[a-z]*", "k:*", "\x00\xff", fuzzBig,
	// Stream IDs and their special forms.
	"0-1", "1-1", "2-5", "1-*", "$", ">", "(1-1", "0-0", "18446744073709551615-18446744073709551615", "18446744073709551615-*", "~", "=",
	// Consumer group and consumer names.
	"g", "c",
	// HyperLogLogs: one whose last opcode is cut in half, one whose
	// registers overflow, one dense of registers above the estimator's.
	"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f",
	"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x83",
	"HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80" + strings.Repeat("\xff", 12288),
	// BITFIELD types and field offsets, valid and not.
	"i8", "u1", "i64", "u63", "u64", "i65", "#1", "#-1"}

// genArgs builds an argument list for fc.
func genArgs(ch chooser, fc *fuzzCmd) [][]byte {
	n := fc.arity
	if n < 0 {
		n = -n + ch.intn(6)
	} else if ch.intn(10) == 0 {
		n += ch.intn(3) - 1 // a wrong arity now and then
	}
	n = max(n, len(fc.prefix))
	args := make([][]byte, n)
	for i := range args {
		switch {
		case i < len(fc.prefix):
			args[i] = []byte(fc.prefix[i])
		case fc.isKey(i, n) && ch.intn(8) != 0:
			args[i] = []byte(fuzzKeys[ch.intn(len(fuzzKeys))])
		default:
			args[i] = []byte(genValue(ch, fc))
		}
	}
	return args
}

func (fc *fuzzCmd) isKey(i, n int) bool {
	if fc.first <= 0 || i < fc.first {
		return false
	}
	last := fc.last
	if last < 0 {
		last += n
	}
	return i <= last && (i-fc.first)%max(fc.step, 1) == 0
}

func genValue(ch chooser, fc *fuzzCmd) string {
	switch ch.intn(10) {
	case 0, 1, 2, 3:
		return fuzzInts[ch.intn(len(fuzzInts))]
	case 4, 5:
		return fuzzFloats[ch.intn(len(fuzzFloats))]
	case 6:
		return fuzzStrings[ch.intn(len(fuzzStrings))]
	case 7, 8:
		if len(fc.words) > 0 {
			w := fc.words[ch.intn(len(fc.words))]
			if ch.intn(2) == 0 {
				w = strings.ToLower(w)
			}
			return w
		}
		return fuzzInts[ch.intn(len(fuzzInts))]
	default:
		return fuzzKeys[ch.intn(len(fuzzKeys))]
	}
}

// cmdFuzzer drives one in-process server over one connection.
type cmdFuzzer struct {
	s     *Server
	orig  conf.Config
	logs  *errorLines
	cmds  []fuzzCmd
	nc    net.Conn
	r     *bufio.Reader
	id    int64 // the connection's client id
	nonce []byte
	ran   int      // argument lists run
	txns  int      // transactions run (MULTI ... EXEC or DISCARD)
	luas  int      // real scripts run (script)
	last  [][]byte // the last one, for a failure that shows later
	// recent are the last argument lists sent, oldest first: the state a
	// failing command met may come from any of them.
	recent []string
	resp3  bool // new connections say HELLO 3 first
}

func newCmdFuzzer(t testing.TB) *cmdFuzzer {
	t.Helper()
	logs := &errorLines{}
	s := startServer(t, func(c *conf.Config) {
		c.Server.EnableDebugCommand = true
		c.Storage.BackupDir = t.TempDir()
		// SETBIT k 4294967295 0 makes a 512 MB string under Redis's
		// limit, and the GET that follows took longer than fuzzHang under
		// the race detector on a slow machine. The fuzzer tests the
		// limit's errors, not copies of half a gigabyte.
		c.Server.ProtoMaxBulkLen = 8 * conf.MiB
	}, zerolog.New(logs))
	f := &cmdFuzzer{s: s, orig: s.config(), logs: logs, cmds: fuzzCommands(s.table), nonce: []byte(fmt.Sprintf("nonce-%x", rand.Uint64()))}
	t.Cleanup(func() {
		if f.nc != nil {
			f.nc.Close()
		}
	})
	return f
}

// reset restores the configuration, empties the server and writes the
// seed keys on a fresh connection.
func (f *cmdFuzzer) reset(t testing.TB) {
	t.Helper()
	f.restoreConfig()
	f.s.pause.unpause()
	db, _ := f.s.eng.DB(0)
	if err := db.FlushAll(); err != nil {
		t.Fatal(err)
	}
	// The checkpoints of fuzzed SAVEs and BGSAVEs go too: a long `make
	// fuzz` piled up tens of GB of them.
	f.s.backup.wg.Wait()
	dir := f.orig.Storage.BackupDir
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	f.reconnect(t)
	for _, c := range fuzzSeed {
		args := bytesArgs(c...)
		if problem := f.exec(args); problem != "" {
			t.Fatalf("seeding %s: %s", quoteArgs(args), problem)
		}
	}
}

// restoreConfig undoes every CONFIG SET, the way CONFIG SET applies a
// change.
func (f *cmdFuzzer) restoreConfig() {
	s := f.s
	s.configMu.Lock()
	defer s.configMu.Unlock()
	cur := s.config()
	_ = s.st.ApplyOptions(cur.RocksDB, f.orig.RocksDB)
	s.mu.Lock()
	s.cfg = f.orig
	s.mu.Unlock()
	s.applyConfig(&cur, &f.orig)
	if s.isReplica() {
		// REPLICAOF made it a replica, which refuses writes: the fuzzer
		// goes on against a primary.
		s.replicaOf("", 0, false)
	}
}

func (f *cmdFuzzer) reconnect(t testing.TB) {
	t.Helper()
	if f.nc != nil {
		f.nc.Close()
	}
	nc, err := net.Dial("tcp", f.s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	f.nc, f.r = nc, bufio.NewReader(nc)
	f.id = 0
	if f.resp3 {
		if problem := f.exec(bytesArgs("HELLO", "3")); problem != "" {
			t.Fatalf("HELLO 3 on a new connection after %s: %s%s", quoteArgs(f.last), problem, f.logs.last())
		}
	}
	if problem := f.exec([][]byte{[]byte("CLIENT"), []byte("ID")}); problem != "" {
		t.Fatalf("CLIENT ID on a new connection after %s: %s%s", quoteArgs(f.last), problem, f.logs.last())
	}
}

// run runs one argument list and fails t with the command when it breaks
// a rule.
func (f *cmdFuzzer) run(t testing.TB, args [][]byte) {
	t.Helper()
	f.ran++
	f.last = args
	if problem := f.exec(args); problem != "" {
		t.Fatalf("command %s: %s%s\nthe commands up to it:\n%s", quoteArgs(args), problem, f.logs.last(), strings.Join(f.recent, "\n"))
	}
	if f.nc == nil {
		f.reconnect(t)
	}
}

// exec sends args and ECHO nonce at once and checks the replies: one reply
// for args, then the nonce. It returns what went wrong, or "". It leaves
// f.nc nil when the connection cannot be used on.
func (f *cmdFuzzer) exec(args [][]byte) string {
	name := lower(args[0])
	if len(args) > 1 {
		if sub := name + "|" + lower(args[1]); slices.ContainsFunc(f.cmds, func(fc fuzzCmd) bool { return fc.name == sub }) {
			name = sub
		}
	}
	if len(f.recent) == 8 {
		f.recent = f.recent[1:]
	}
	f.recent = append(f.recent, quoteArgs(args))
	req := []byte(multibulk(args...) + multibulk([]byte("ECHO"), f.nonce))
	f.nc.SetWriteDeadline(time.Now().Add(fuzzHang))
	if _, err := f.nc.Write(req); err != nil {
		return "write: " + err.Error()
	}
	if name == "client|reply" {
		// OFF and SKIP mute the replies: a new connection has them on.
		f.drop()
		return ""
	}
	first, problem := f.reply()
	if problem == "blocked" {
		f.drop() // a blocking command waits, as it should
		return ""
	}
	if problem != "" {
		return problem
	}
	if hasInternalError(first) {
		return "replied ERR internal error"
	}
	if f.id == 0 && first.kind == ':' {
		f.id, _ = strconv.ParseInt(first.str, 10, 64)
	}
	switch name {
	case "config|set", "replicaof", "slaveof", "exec":
		// A new requirepass, maxclients or proto_max_multibulk_len would
		// refuse what follows, as in Redis, and so would a replica: the
		// fuzzer tests CONFIG SET's and REPLICAOF's replies, not the
		// server under every configuration.
		f.restoreConfig()
	case "client|pause":
		f.s.pause.unpause()
	case "quit", "monitor", "client|kill", "multi", "psync":
		// The connection may end or change its nature after the reply
		// (PSYNC's carries a replication stream then).
		f.drop()
		return ""
	case "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe":
		// One reply per channel, as in Redis, and then subscribed mode,
		// which refuses ECHO: the first reply is checked.
		f.drop()
		return ""
	}
	if first.kind == '$' && first.str == string(f.nonce) {
		return "wrote no reply"
	}
	echo, problem := f.reply()
	if problem != "" {
		return "after its reply, ECHO: " + problem
	}
	if echo.kind != '$' || echo.str != string(f.nonce) {
		return fmt.Sprintf("wrote more than one reply: then %c%.80q", echo.kind, echo.str)
	}
	if n := f.r.Buffered(); n > 0 {
		extra, _ := f.r.Peek(min(n, 80))
		return fmt.Sprintf("%d bytes follow the replies: %q", n, extra)
	}
	return ""
}

// runCmd runs one argument list for fc. A MULTI runs a transaction of
// fuzzed commands instead (transaction): after MULTI, exec's check (one
// reply, then ECHO's) no longer holds, since every command answers QUEUED.
// A script command runs a real script half of the time, and any command
// runs, one time in eight, from a script (script).
func (f *cmdFuzzer) runCmd(t testing.TB, ch chooser, fc *fuzzCmd) {
	t.Helper()
	args := genArgs(ch, fc)
	if fc.name == "multi" && len(args) == 1 {
		f.transaction(t, ch)
		return
	}
	switch {
	case slices.Contains(fuzzScriptCommands, fc.name) && ch.intn(2) == 0:
		f.script(t, ch, fc.name, fuzzScripts, &f.cmds[ch.intn(len(f.cmds))])
	case ch.intn(8) == 0:
		f.script(t, ch, fuzzRunners[ch.intn(len(fuzzRunners))], fuzzScripts[:fuzzCallers], fc)
	default:
		f.run(t, args)
	}
}

// fuzzScriptCommands are the commands script runs with a real script,
// and fuzzRunners those of them that run one, which runCmd runs any
// command from.
var (
	fuzzScriptCommands = []string{"eval", "eval_ro", "evalsha", "evalsha_ro", "script|load", "fcall", "fcall_ro", "function|load"}
	fuzzRunners        = []string{"eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro"}
)

// fuzzScripts are the scripts script gives them. The first fuzzCallers
// run the fuzzed argument list of a command that ARGV holds; the others
// reach the conversions of replies, the shebang, compile and runtime
// errors. None loops for long: the fuzzer sets no busy-reply-threshold
// and sends no SCRIPT KILL.
const fuzzCallers = 6

var fuzzScripts = []string{
	"return redis.call(unpack(ARGV))",
	"return redis.pcall(unpack(ARGV))",
	"return {redis.pcall(unpack(ARGV)), redis.call(unpack(ARGV))}",
	"#!lua flags=no-writes\nreturn redis.call(unpack(ARGV))",
	"#!lua flags=no-writes,allow-oom\nreturn redis.pcall(unpack(ARGV))",
	"local r = redis.pcall(unpack(ARGV)) if type(r) == 'table' then return #r end return r",
	"return redis.call(ARGV[1], KEYS[1])",
	"return {1, 2}",
	"return {1, {2, {3, 'x'}}, redis.status_reply('OK'), redis.error_reply('E x'), false, 3.5, true}",
	"return {err = ARGV[1]}",
	"return redis.status_reply(ARGV[1] or 'x')",
	"return tonumber(ARGV[1])",
	"return #KEYS + #ARGV",
	"return redis.sha1hex(ARGV[1] or '')",
	"return string.rep(ARGV[1] or '', 3)",
	"local t = {} for i = 1, 1000 do t[i] = i end return t",
	"return (",
	"error('fuzz')",
	"error({err = 'FUZZ raised'})",
	"return redis.call()",
	"return redis.call('nosuch')",
	"return redis.call('get', {})",
	"x = 1",
	"#!lua flags=bogus\nreturn 1",
	"#!notlua\nreturn 1",
}

// fuzzFunctions are the functions of fuzzLibrary: FCALL_RO may call the
// second only.
var fuzzFunctions = []string{"fuzz_rw", "fuzz_ro"}

// fuzzLibrary is a FUNCTION LOAD library whose functions run body (its
// shebang line left out) with KEYS and ARGV as a script would.
func fuzzLibrary(body string) string {
	if strings.HasPrefix(body, "#!") {
		_, body, _ = strings.Cut(body, "\n")
	}
	return "#!lua name=fuzz\n" +
		"redis.register_function('fuzz_rw', function(KEYS, ARGV)\n" + body + "\nend)\n" +
		"redis.register_function{function_name = 'fuzz_ro', flags = {'no-writes'}, callback = function(KEYS, ARGV)\n" + body + "\nend}\n"
}

// script runs name, one of fuzzScriptCommands, with one of bodies, up to
// two keys and, as arguments, a fuzzed argument list of inner, which most
// scripts run. EVALSHA and FCALL load their script or library first,
// most of the time.
func (f *cmdFuzzer) script(t testing.TB, ch chooser, name string, bodies []string, inner *fuzzCmd) {
	t.Helper()
	f.luas++
	body := bodies[ch.intn(len(bodies))]
	tail := [][]byte{nil}
	for range ch.intn(3) {
		tail = append(tail, []byte(fuzzKeys[ch.intn(len(fuzzKeys))]))
	}
	tail[0] = []byte(strconv.Itoa(len(tail) - 1)) // numkeys
	tail = append(tail, genArgs(ch, inner)...)
	switch name {
	case "script|load":
		f.run(t, bytesArgs("SCRIPT", "LOAD", body))
	case "eval", "eval_ro":
		f.run(t, append(bytesArgs(name, body), tail...))
	case "evalsha", "evalsha_ro":
		if ch.intn(4) != 0 {
			f.run(t, bytesArgs("SCRIPT", "LOAD", body))
		}
		f.run(t, append(bytesArgs(name, sha1Hex(body)), tail...))
	case "function|load":
		f.run(t, bytesArgs("FUNCTION", "LOAD", "REPLACE", fuzzLibrary(body)))
	case "fcall", "fcall_ro":
		if ch.intn(4) != 0 {
			f.run(t, bytesArgs("FUNCTION", "LOAD", "REPLACE", fuzzLibrary(body)))
		}
		f.run(t, append(bytesArgs(name, fuzzFunctions[ch.intn(len(fuzzFunctions))]), tail...))
	}
}

// fuzzNotQueued are the commands a fuzzed transaction does not queue: they
// end it (EXEC, DISCARD, RESET, QUIT), or, once EXEC runs them, change the
// connection so that it no longer answers one reply per command.
var fuzzNotQueued = []string{"exec", "discard", "reset", "quit", "multi", "monitor", "client|kill", "client|reply",
	"subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe"}

// transaction sends MULTI, then one to four fuzzed commands, each of which
// must answer QUEUED or an error, then EXEC or, one time in five, DISCARD.
// EXEC must answer an array of one well-formed reply per queued command, a
// null array (a key watched by an earlier WATCH changed), or EXECABORT
// when a command was refused; no reply in it may be ERR internal error.
// Then the connection must answer one reply per command again.
func (f *cmdFuzzer) transaction(t testing.TB, ch chooser) {
	t.Helper()
	f.ran++
	f.txns++
	var sent []string
	send := func(args [][]byte) respValue {
		t.Helper()
		f.last = args
		sent = append(sent, quoteArgs(args))
		f.nc.SetWriteDeadline(time.Now().Add(fuzzHang))
		if _, err := f.nc.Write([]byte(multibulk(args...))); err != nil {
			t.Fatalf("transaction %s: write: %v", strings.Join(sent, "; "), err)
		}
		v, problem := f.reply()
		if problem == "" && hasInternalError(v) {
			problem = "replied ERR internal error"
		}
		if problem != "" {
			t.Fatalf("transaction %s: %s%s", strings.Join(sent, "; "), problem, f.logs.last())
		}
		return v
	}
	if v := send(bytesArgs("MULTI")); v.kind != '+' || v.str != "OK" {
		t.Fatalf("MULTI answered %c%.80q", v.kind, v.str)
	}
	queued, refused := 0, false
	for range 1 + ch.intn(4) {
		fc := &f.cmds[ch.intn(len(f.cmds))]
		if slices.Contains(fuzzNotQueued, fc.name) {
			continue
		}
		switch v := send(genArgs(ch, fc)); {
		case v.kind == '+' && v.str == "QUEUED":
			queued++
		case v.kind == '-':
			// A refused command aborts the transaction, save a WATCH
			// that ran at once and failed.
			refused = refused || v.str != string(errWatchInMulti)
		default:
			t.Fatalf("transaction %s: answered %c%.80q, want QUEUED or an error", strings.Join(sent, "; "), v.kind, v.str)
		}
	}
	if ch.intn(5) == 0 {
		if v := send(bytesArgs("DISCARD")); v.kind != '+' || v.str != "OK" {
			t.Fatalf("transaction %s: answered %c%.80q, want OK", strings.Join(sent, "; "), v.kind, v.str)
		}
	} else {
		v := send(bytesArgs("EXEC"))
		switch {
		case refused && v.kind == '-' && strings.HasPrefix(v.str, "EXECABORT "):
		case !refused && v.kind == '*' && (len(v.elems) == queued || v.str == "-1"):
		case !refused && v.kind == '_':
		default:
			t.Fatalf("transaction %s: answered %c%.80q with %d replies; %d commands were queued, refused: %v",
				strings.Join(sent, "; "), v.kind, v.str, len(v.elems), queued, refused)
		}
	}
	// The commands EXEC ran may have changed the configuration or paused
	// clients, as on their own in exec.
	f.restoreConfig()
	f.s.pause.unpause()
	if problem := f.exec(bytesArgs("PING")); problem != "" {
		t.Fatalf("PING after the transaction %s: %s%s", strings.Join(sent, "; "), problem, f.logs.last())
	}
}

// hasInternalError reports whether v, or a reply inside it, is ERR
// internal error, or that error ending a script (with where it was
// raised after it).
func hasInternalError(v respValue) bool {
	if v.kind == '-' && (v.str == string(errInternal) || strings.HasPrefix(v.str, string(errInternal)+" script: ")) {
		return true
	}
	return slices.ContainsFunc(v.elems, hasInternalError)
}

func (f *cmdFuzzer) drop() {
	f.nc.Close()
	f.nc, f.r = nil, nil
}

// reply waits for a reply and parses it. A command that has not replied
// yet is "blocked" when its client waits in a blocking command, and hangs
// after fuzzHang.
func (f *cmdFuzzer) reply() (respValue, string) {
	deadline := time.Now().Add(fuzzHang)
	for {
		f.nc.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := f.r.Peek(1)
		if err == nil {
			break
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return respValue{}, "connection closed without a reply: " + err.Error()
		}
		if f.isBlocked() {
			return respValue{}, "blocked"
		}
		if time.Now().After(deadline) {
			// What the server's goroutines wait on tells a deadlock from
			// a slow command.
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			return respValue{}, fmt.Sprintf("no reply within %v", fuzzHang)
		}
	}
	f.nc.SetReadDeadline(time.Now().Add(fuzzHang))
	v, err := readRESP(f.r, 0)
	if err != nil {
		return v, "malformed reply: " + err.Error()
	}
	if v.kind == '>' {
		// A RESP3 push (a client-tracking invalidation) comes between
		// replies, and is none.
		return f.reply()
	}
	return v, ""
}

func (f *cmdFuzzer) isBlocked() bool {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	c := f.s.clients[f.id]
	return c != nil && c.blocked.Load()
}

// checkKeys runs the invariants self-checks on every key of every db.
func (f *cmdFuzzer) checkKeys(t testing.TB) {
	t.Helper()
	for n := 0; ; n++ {
		db, err := f.s.eng.DB(n)
		if err != nil {
			return
		}
		keys, err := db.Keys([]byte("*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			db.CheckInvariants(k)
		}
	}
}

// respValue is one parsed reply: its type byte, its text (a bulk's bytes,
// a status, an error, a number) and its elements.
type respValue struct {
	kind  byte
	str   string
	elems []respValue
}

// maxRESPDepth bounds nesting: no Shale reply nests deeper.
const maxRESPDepth = 8

// readRESP parses one RESP2 or RESP3 reply strictly.
func readRESP(r *bufio.Reader, depth int) (respValue, error) {
	if depth > maxRESPDepth {
		return respValue{}, errors.New("nested too deep")
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return respValue{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return respValue{}, fmt.Errorf("line %.80q does not end in CRLF", line)
	}
	v := respValue{kind: line[0], str: line[1 : len(line)-2]}
	if strings.ContainsAny(v.str, "\r\n") {
		return v, fmt.Errorf("CR or LF inside %.80q", line)
	}
	switch v.kind {
	case '+', '-', '(':
		return v, nil
	case ':':
		if _, err := strconv.ParseInt(v.str, 10, 64); err != nil {
			return v, fmt.Errorf("integer %.80q", v.str)
		}
		return v, nil
	case ',':
		if _, err := strconv.ParseFloat(v.str, 64); err != nil && !slices.Contains([]string{"inf", "-inf", "nan"}, v.str) {
			return v, fmt.Errorf("double %.80q", v.str)
		}
		return v, nil
	case '#':
		if v.str != "t" && v.str != "f" {
			return v, fmt.Errorf("boolean %.80q", v.str)
		}
		return v, nil
	case '_':
		if v.str != "" {
			return v, fmt.Errorf("null %.80q", line)
		}
		return v, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(v.str)
		if err != nil || n < -1 || n > 512<<20 || n == -1 && v.kind != '$' {
			return v, fmt.Errorf("bulk length %.80q", v.str)
		}
		if n == -1 {
			return v, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return v, err
		}
		if !bytes.HasSuffix(b, []byte("\r\n")) {
			return v, errors.New("bulk not followed by CRLF")
		}
		v.str = string(b[:n])
		return v, nil
	case '*', '%', '~', '>', '|':
		n, err := strconv.Atoi(v.str)
		if err != nil || n < -1 || n > 1<<24 || n == -1 && v.kind != '*' {
			return v, fmt.Errorf("aggregate length %.80q", v.str)
		}
		if v.kind == '%' || v.kind == '|' {
			n *= 2
		}
		for range max(n, 0) {
			e, err := readRESP(r, depth+1)
			if err != nil {
				return v, err
			}
			v.elems = append(v.elems, e)
		}
		return v, nil
	}
	return v, fmt.Errorf("unknown type byte in %.80q", line)
}

// quoteArgs prints a command as it could be typed again, long arguments
// shortened.
func quoteArgs(args [][]byte) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if len(a) > 64 {
			fmt.Fprintf(&b, "<%d bytes: %q...>", len(a), a[:16])
			continue
		}
		b.WriteString(strconv.Quote(string(a)))
	}
	return b.String()
}

// errorLines keeps the server's last error-level log lines (a panic's
// stack), for the failure message.
type errorLines struct {
	mu    sync.Mutex
	lines []string
}

func (e *errorLines) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"level":"error"`)) {
		e.mu.Lock()
		e.lines = append(e.lines, string(p))
		if len(e.lines) > 4 {
			e.lines = e.lines[1:]
		}
		e.mu.Unlock()
	}
	return len(p), nil
}

func (e *errorLines) last() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.lines) == 0 {
		return ""
	}
	return "\nserver log:\n" + e.lines[len(e.lines)-1]
}

// fuzzRounds is how many times TestCommandFuzz runs each command with
// fresh keys; SHALE_CMDFUZZ_ROUNDS changes it.
const fuzzRounds = 12

// TestCommandFuzz runs every command fuzzRounds times over fresh keys,
// with a few argument lists each time.
func TestCommandFuzz(t *testing.T) {
	rounds := fuzzRounds
	if v, err := strconv.Atoi(os.Getenv("SHALE_CMDFUZZ_ROUNDS")); err == nil {
		rounds = v
	}
	seed := rand.Uint64()
	if v, err := strconv.ParseUint(os.Getenv("SHALE_CMDFUZZ_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (SHALE_CMDFUZZ_SEED=%[1]d replays it)", seed)
	ch := randChooser{rand.New(rand.NewPCG(seed, 0))}
	f := newCmdFuzzer(t)
	for round := range rounds {
		f.resp3 = round%2 == 1 // every reply in both protocols
		f.reset(t)
		for _, i := range ch.r.Perm(len(f.cmds)) {
			for range 1 + ch.intn(3) {
				f.runCmd(t, ch, &f.cmds[i])
			}
		}
		f.checkKeys(t)
	}
	t.Logf("%d commands and subcommands, %d argument lists, %d transactions, %d real scripts", len(f.cmds), f.ran, f.txns, f.luas)
}

// fuzzFound are argument lists that once broke a rule of the fuzzer,
// found by it or reported by users: each runs again on every test.
var fuzzFound = [][]string{
	{"SETRANGE", "k:str", "9223372036854775807", "x"},
	{"HRANDFIELD", "k:hash", "-4611686018427387904"},
	// The reply of a command pipelined before a paused one waited for the
	// pause to end.
	{"CLIENT", "PAUSE", "2147483647"},
	{"SET", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1"},
	{"KEYS", "a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"},
	// A monitor's end flushed its connection while its writer did (the
	// race detector's find): the fuzzer drops the connection after MONITOR.
	{"MONITOR"},
	{"SET", "k:str", "fed to the monitor"},
	// An output limit below one reply cut off the client that set it.
	{"CONFIG", "SET", "server.client_output_buffer_limit", "1 "},
}

func TestCommandFuzzFound(t *testing.T) {
	f := newCmdFuzzer(t)
	for _, f.resp3 = range []bool{false, true} {
		f.reset(t)
		for _, c := range fuzzFound {
			f.run(t, bytesArgs(c...))
		}
		f.checkKeys(t)
	}
}

// FuzzCommands lets go's fuzzer choose the commands and their arguments:
// each input runs up to four commands on fresh keys.
func FuzzCommands(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x10\x00\x01\x02\x03\x04\x05\x06\x07"))
	f.Add([]byte("\xff\xfe\x00\x00\x10\x20\x30\x40\x50\x60\x70\x80"))
	f.Add(bytes.Repeat([]byte{0x42, 0x07}, 32))
	fz := newCmdFuzzer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ch := &byteChooser{data}
		fz.resp3 = ch.intn(2) == 1
		fz.reset(t)
		for range 1 + ch.intn(4) {
			fz.runCmd(t, ch, &fz.cmds[ch.intn(len(fz.cmds))])
		}
		fz.checkKeys(t)
	})
}
