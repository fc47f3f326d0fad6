package tests

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The RESP3 differential corpus: each case of resp3Corpus
// (resp3_corpus_test.go) runs on fresh connections to a real redis-server
// 7.0.15 and to Shale, once after HELLO 2 and once after HELLO 3, and every
// reply's bytes must be the same on both servers. The client is a plain TCP
// connection that reads whole RESP3 frames, so that a map written as a flat
// array, a double written as a bulk string or a null written as $-1 shows up
// as the byte difference it is; go-redis would smooth all of these over.
//
// Replies are compared byte for byte, as read, except where a step names a
// normalizer or a reply holds a set: each normalizer rewrites a part of
// both servers' replies that no two servers can agree on (an id, a
// timestamp, a version, a memory figure), and keeps its type byte, so that
// the shape is still compared; a set's members are sorted, as they have no
// order. Such a reply is compared in its re-encoded form, which equals the
// bytes read save for what was rewritten.
//
// SHALE_RESP3_SELFCHECK=1 runs the corpus against two redis-servers
// instead: every case must pass then, which shows that it is deterministic
// (a new case that depends on a hash table's order fails it).

// rnode is one RESP reply, parsed far enough to re-encode it.
type rnode struct {
	raw   string  // the bytes read, at the top level of a reply only
	kind  byte    // the type byte: + - : $ * % ~ , _ # = > ( !
	text  string  // a simple type's line, or a blob's (bulk, verbatim, blob error) data
	null  bool    // RESP2's nulls: $-1 and *-1
	elems []rnode // an aggregate's elements; a map's keys and values alternate
}

// readReply reads one whole reply from r.
func readReply(r *bufio.Reader) (rnode, error) {
	var raw strings.Builder
	n, err := readNode(r, &raw)
	n.raw = raw.String()
	return n, err
}

// readNode reads one reply or element from r, copying its bytes to raw.
func readNode(r *bufio.Reader, raw *strings.Builder) (rnode, error) {
	line, err := r.ReadString('\n')
	raw.WriteString(line)
	if err != nil {
		return rnode{}, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return rnode{}, fmt.Errorf("bad reply line %q", line)
	}
	n := rnode{kind: line[0], text: line[1 : len(line)-2]}
	switch n.kind {
	case '+', '-', ':', ',', '_', '#', '(':
		return n, nil
	case '$', '=', '!':
		size, err := strconv.Atoi(n.text)
		if err != nil || size < -1 {
			return rnode{}, fmt.Errorf("bad blob length in %q", line)
		}
		if size == -1 {
			n.null = true
			return n, nil
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return rnode{}, err
		}
		raw.Write(buf)
		if string(buf[size:]) != "\r\n" {
			return rnode{}, fmt.Errorf("blob of %d bytes not followed by CRLF", size)
		}
		n.text = string(buf[:size])
		return n, nil
	case '*', '%', '~', '>':
		count, err := strconv.Atoi(n.text)
		if err != nil || count < -1 {
			return rnode{}, fmt.Errorf("bad aggregate length in %q", line)
		}
		if count == -1 {
			n.null = true
			return n, nil
		}
		if n.kind == '%' {
			count *= 2
		}
		n.elems = make([]rnode, 0, min(count, 1024))
		for range count {
			e, err := readNode(r, raw)
			if err != nil {
				return rnode{}, err
			}
			n.elems = append(n.elems, e)
		}
		return n, nil
	}
	return rnode{}, fmt.Errorf("unknown reply type in %q", line)
}

// encode appends n's RESP bytes to b.
func (n rnode) encode(b *strings.Builder) {
	b.WriteByte(n.kind)
	switch {
	case n.null:
		b.WriteString("-1\r\n")
	case n.kind == '$' || n.kind == '=' || n.kind == '!':
		fmt.Fprintf(b, "%d\r\n%s\r\n", len(n.text), n.text)
	case n.kind == '*' || n.kind == '%' || n.kind == '~' || n.kind == '>':
		count := len(n.elems)
		if n.kind == '%' {
			count /= 2
		}
		fmt.Fprintf(b, "%d\r\n", count)
		for _, e := range n.elems {
			e.encode(b)
		}
	default:
		b.WriteString(n.text + "\r\n")
	}
}

// String returns n's RESP encoding.
func (n rnode) String() string {
	var b strings.Builder
	n.encode(&b)
	return b.String()
}

// walk calls fn on n and on every node inside it, parents first.
func (n *rnode) walk(fn func(*rnode)) {
	fn(n)
	for i := range n.elems {
		n.elems[i].walk(fn)
	}
}

// isAggregate reports whether n holds elements.
func (n rnode) isAggregate() bool { return strings.IndexByte("*%~>", n.kind) >= 0 && !n.null }

// isText reports whether n carries text a client reads as a string.
func (n rnode) isText() bool { return strings.IndexByte("+$=", n.kind) >= 0 && !n.null }

// A normalizer rewrites, in place, a part of a reply that differs between
// any two servers for reasons other than the reply's shape. Each says why
// it is needed where it is used.
type normalizer func(*rnode)

// anyInts rewrites every integer in the reply: counters and ids that depend
// on the server's history (CLIENT ID, SLOWLOG's ids and durations, TIME's
// figures, COMMAND COUNT).
func anyInts(n *rnode) {
	n.walk(func(e *rnode) {
		if e.kind == ':' {
			e.text = "<int>"
		}
	})
}

// anyText rewrites every string in the reply, keeping a verbatim string's
// format: text whose content is the server's own (INFO, CLIENT LIST, the
// payload of FUNCTION DUMP).
func anyText(n *rnode) {
	n.walk(func(e *rnode) {
		switch {
		case e.kind == '=' && !e.null && len(e.text) >= 4:
			e.text = e.text[:4] + "<text>"
		case e.isText():
			e.text = "<text>"
		}
	})
}

// anyOrder sorts the elements of the reply's top-level aggregate: members
// of a set, which Redis 7.0 keeps in a hash table of random seed and Shale
// in byte order. Sets (~) are sorted at every level without being asked.
func anyOrder(n *rnode) {
	if n.isAggregate() && n.kind != '%' {
		sortElems(n)
	}
}

// sortElems sorts n's elements by their encoding.
func sortElems(n *rnode) {
	slices.SortFunc(n.elems, func(a, b rnode) int { return strings.Compare(a.String(), b.String()) })
}

// pairsAnyOrder sorts the key-value pairs of the reply's top-level map (a
// flat array under RESP2): a map a script returns, which each server's Lua
// walks in its own table order.
func pairsAnyOrder(n *rnode) {
	if !n.isAggregate() || len(n.elems)%2 != 0 {
		return
	}
	pairs := make([]rnode, 0, len(n.elems)/2)
	for i := 0; i < len(n.elems); i += 2 {
		pairs = append(pairs, rnode{kind: '*', elems: n.elems[i : i+2]})
	}
	slices.SortFunc(pairs, func(a, b rnode) int { return strings.Compare(a.String(), b.String()) })
	elems := make([]rnode, 0, len(n.elems))
	for _, p := range pairs {
		elems = append(elems, p.elems...)
	}
	n.elems = elems
}

// dropFields removes the named keys and their values from every map (flat
// array under RESP2) in the reply.
func dropFields(names ...string) normalizer {
	return func(n *rnode) {
		n.walk(func(e *rnode) {
			if e.kind != '%' && e.kind != '*' {
				return
			}
			var kept []rnode
			for i := 0; i < len(e.elems); i++ {
				if k := e.elems[i]; i+1 < len(e.elems) && k.isText() && slices.Contains(names, k.text) {
					i++
					continue
				}
				kept = append(kept, e.elems[i])
			}
			e.elems = kept
		})
	}
}

// field applies norm to the value of key name in a map, or in a flat array
// of keys and values (a map under RESP2), at any depth.
func field(name string, norm normalizer) normalizer {
	return func(n *rnode) {
		n.walk(func(e *rnode) {
			if e.kind != '%' && e.kind != '*' {
				return
			}
			for i := 0; i+1 < len(e.elems); i += 2 {
				if k := e.elems[i]; k.isText() && k.text == name {
					norm(&e.elems[i+1])
				}
			}
		})
	}
}

// redact replaces every match of re in the reply's strings by repl: an
// address or a timestamp inside a line of text.
func redact(re, repl string) normalizer {
	rx := regexp.MustCompile(re)
	return func(n *rnode) {
		n.walk(func(e *rnode) {
			if e.isText() || e.kind == '-' {
				e.text = rx.ReplaceAllString(e.text, repl)
			}
		})
	}
}

// helloNorm rewrites HELLO's version (a patch release of Redis, or
// Shale's choice of the version it reports, is no shape) and id (the
// client's id counts the server's connections so far).
var helloNorm = []normalizer{field("version", anyText), field("id", anyInts)}

// clientInfoNorm rewrites the fields of CLIENT INFO and CLIENT LIST that
// depend on the connection (id, address, file descriptor, age) or on the
// server's memory layout (buffer sizes and memory figures), and keeps those
// that a client sets: name, flags, db, subscriptions, multi, cmd, resp.
var clientInfoNorm = redact(`\b(id|addr|laddr|fd|age|idle|qbuf|qbuf-free|argv-mem|multi-mem|rbs|rbp|obl|oll|omem|tot-mem)=\S*`, "$1=*")

// helpNorm keeps, of a HELP reply, its first line and the type of the
// others: each server lists its own subcommands (Shale's lack those it does
// not have, such as SCRIPT DEBUG, and some follow Redis 7.2's wording).
// Lines that are not status replies are kept, so that they show.
func helpNorm(n *rnode) {
	if n.kind != '*' || len(n.elems) == 0 {
		return
	}
	kept := n.elems[:1]
	for _, e := range n.elems[1:] {
		if e.kind != '+' {
			kept = append(kept, e)
		}
	}
	n.elems = kept
}

// kindOnly keeps of a reply its type alone: MEMORY STATS, whose fields
// are each server's own figures.
func kindOnly(n *rnode) {
	if n.isAggregate() {
		n.elems = nil
	} else if !n.null {
		n.text = ""
	}
}

// addrNorm rewrites a client's address, whose port the kernel chose.
var addrNorm = redact(`127\.0\.0\.1:\d+`, "127.0.0.1:*")

// r3step is one step of a case: a command sent on one of the case's
// connections, and usually its reply read back.
type r3step struct {
	conn   int        // 0, or 1 for the case's second client
	args   []string   // the command; nil to read one more reply (a push, a blocked command's answer)
	noRead bool       // send and read nothing: the command blocks, or has no reply (CLIENT REPLY SKIP)
	then   [][]string // commands sent in the same write as args (pipe)
	proto  int        // 2 or 3 to run the step under that protocol alone (a push RESP2 does not send); 0 for both
	keep   bool       // later steps' prevReply arguments stand for this reply's text
	norm   []normalizer
}

// prevReply, as an argument, stands for the text of the last reply a
// kept step read on the same server: CLIENT KILL ID after CLIENT ID,
// FUNCTION RESTORE after FUNCTION DUMP.
const prevReply = "\x00prev"

// kept marks a step whose reply later steps pass on as prevReply.
func (s r3step) kept() r3step {
	s.keep = true
	return s
}

// c is a command on the first connection; c1 one on the second.
func c(args ...string) r3step  { return r3step{args: args} }
func c1(args ...string) r3step { return r3step{conn: 1, args: args} }

// send sends a command on the first connection without reading: one that
// blocks until a later step, or one that has no reply; send1 on the second.
func send(args ...string) r3step  { return r3step{args: args, noRead: true} }
func send1(args ...string) r3step { return r3step{conn: 1, args: args, noRead: true} }

// pipe sends commands on the first connection in one write, so that the
// server reads them at once, and reads nothing: recv steps read the
// replies. prevReply stands for nothing in them.
func pipe(cmds ...[]string) r3step { return r3step{args: cmds[0], then: cmds[1:], noRead: true} }

// recv reads one more reply on the first connection; recv1 on the second.
func recv() r3step  { return r3step{} }
func recv1() r3step { return r3step{conn: 1} }

// under runs a step under RESP proto alone.
func under(proto int, s r3step) r3step {
	s.proto = proto
	return s
}

// with adds normalizers to a step.
func (s r3step) with(norm ...normalizer) r3step {
	s.norm = append(slices.Clone(s.norm), norm...)
	return s
}

// resp3Case is one entry of the corpus: a sequence run on fresh
// connections, after HELLO 2 or HELLO 3, on an empty database.
type resp3Case struct {
	name  string
	steps []r3step
}

// resp3Server is one of the two servers the corpus runs against.
type resp3Server struct {
	name string
	addr string
}

// resp3Session is a case's connections to one server.
type resp3Session struct {
	conns []net.Conn
	rds   []*bufio.Reader
	prev  string
}

// dialSession opens a case's two connections to addr, says HELLO proto on
// each, and returns HELLO's replies.
func dialSession(addr string, proto int) (*resp3Session, []rnode, error) {
	s := &resp3Session{}
	var hellos []rnode
	for range 2 {
		cn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			s.close()
			return nil, nil, err
		}
		s.conns = append(s.conns, cn)
		s.rds = append(s.rds, bufio.NewReader(cn))
		reply, err := s.do(len(s.conns)-1, []string{"HELLO", strconv.Itoa(proto)}, false)
		if err != nil {
			s.close()
			return nil, nil, err
		}
		hellos = append(hellos, reply)
	}
	return s, hellos, nil
}

func (s *resp3Session) close() {
	for _, cn := range s.conns {
		cn.Close()
	}
}

// do sends args, and then the commands of then in the same write, on
// connection i unless args is nil, and reads one reply unless noRead.
func (s *resp3Session) do(i int, args []string, noRead bool, then ...[]string) (rnode, error) {
	cn := s.conns[i]
	if args != nil {
		args = slices.Clone(args)
		for j, a := range args {
			if a == prevReply {
				args[j] = s.prev
			}
		}
		_ = cn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		req := respCmd(args...)
		for _, cmd := range then {
			req += respCmd(cmd...)
		}
		if _, err := cn.Write([]byte(req)); err != nil {
			return rnode{}, err
		}
	}
	if noRead {
		// Let the server take the command before a later step on another
		// connection races it: a BLPOP must block before the LPUSH.
		time.Sleep(50 * time.Millisecond)
		return rnode{}, nil
	}
	_ = cn.SetReadDeadline(time.Now().Add(5 * time.Second))
	return readReply(s.rds[i])
}

// render is the text a reply is compared by: the bytes read, or once norm
// and the sorting of sets have been applied, its re-encoding.
func render(reply rnode, norm []normalizer) string {
	hasSet := false
	reply.walk(func(e *rnode) { hasSet = hasSet || e.kind == '~' })
	if len(norm) == 0 && !hasSet {
		return reply.raw
	}
	for _, f := range norm {
		f(&reply)
	}
	reply.walk(func(e *rnode) {
		if e.kind == '~' {
			sortElems(e)
		}
	})
	return reply.String()
}

// runResp3Case runs one case under proto on both servers, step by step,
// and reports every step whose replies differ.
func runResp3Case(t *testing.T, servers [2]resp3Server, proto int, tc resp3Case) {
	t.Helper()
	var sess [2]*resp3Session
	var hellos [2][]rnode
	for i, srv := range servers {
		s, h, err := dialSession(srv.addr, proto)
		if err != nil {
			t.Fatalf("%s: HELLO %d: %v", srv.name, proto, err)
		}
		t.Cleanup(s.close)
		sess[i], hellos[i] = s, h
	}
	for j := range hellos[0] {
		if want, got := render(hellos[0][j], helloNorm), render(hellos[1][j], helloNorm); got != want {
			t.Errorf("HELLO %d on connection %d:\n\t%s: %q\n\t%s: %q", proto, j, servers[0].name, want, servers[1].name, got)
		}
	}
	for i, st := range tc.steps {
		if st.proto != 0 && st.proto != proto {
			continue
		}
		var out [2]string
		for j, s := range sess {
			reply, err := s.do(st.conn, st.args, st.noRead, st.then...)
			if err != nil {
				t.Fatalf("step %d %s: %s: %v", i, stepName(st), servers[j].name, err)
			}
			if st.keep {
				s.prev = reply.text
			}
			if !st.noRead {
				out[j] = render(reply, st.norm)
			}
		}
		if out[0] != out[1] {
			t.Errorf("step %d %s:\n\t%s: %q\n\t%s: %q", i, stepName(st), servers[0].name, out[0], servers[1].name, out[1])
		}
	}
}

// stepName renders a step for a failure message.
func stepName(st r3step) string {
	if st.args == nil {
		return fmt.Sprintf("(read on connection %d)", st.conn)
	}
	var b strings.Builder
	if st.conn != 0 {
		fmt.Fprintf(&b, "[connection %d] ", st.conn)
	}
	for i, a := range st.args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == prevReply {
			a = "<previous reply>"
		}
		b.WriteString(strconv.Quote(a))
	}
	return b.String()
}

var errNoCommandList = errors.New("COMMAND LIST did not answer an array")

// commandList returns the names COMMAND LIST gives on addr, subcommands
// as container|sub.
func commandList(addr string) (map[string]bool, error) {
	s, _, err := dialSession(addr, 2)
	if err != nil {
		return nil, err
	}
	defer s.close()
	reply, err := s.do(0, []string{"COMMAND", "LIST"}, false)
	if err != nil {
		return nil, err
	}
	if reply.kind != '*' {
		return nil, errNoCommandList
	}
	names := map[string]bool{}
	for _, e := range reply.elems {
		names[e.text] = true
	}
	return names, nil
}

// unknownCommand is a command no server has, for the error cases.
const unknownCommand = "NOSUCHCOMMAND"

// resp3Uncovered lists the commands of Shale's table the corpus leaves out,
// and why.
var resp3Uncovered = map[string]string{
	"compact":        "Shale's own command; Redis 7.0 has none to compare with",
	"client|setinfo": "Redis 7.2's; 7.0.15 answers an unknown subcommand",
	"debug":          "its subcommands are diagnostics of each server's internals",
	"pfdebug":        "needs the debug switch on Shale; tests/hll_test.go covers it against both servers",
	"shutdown":       "covered by its error case only: the normal reply is the end of the server",
}

// caseCommands returns the names, as COMMAND LIST gives them, of the
// commands a case sends.
func caseCommands(tc resp3Case, known map[string]bool) []string {
	var names []string
	for _, st := range tc.steps {
		if len(st.args) == 0 {
			continue
		}
		name := strings.ToLower(st.args[0])
		if len(st.args) > 1 && isContainer(name, known) {
			name += "|" + strings.ToLower(st.args[1])
		}
		names = append(names, name)
	}
	return names
}

// isContainer reports whether name has subcommands in known.
func isContainer(name string, known map[string]bool) bool {
	for k := range known {
		if strings.HasPrefix(k, name+"|") {
			return true
		}
	}
	return false
}

// TestRESP3Corpus runs the corpus against redis-server and Shale under
// HELLO 2 and HELLO 3 and compares the replies' bytes; then checks that
// every command of Shale's table appears in some case.
func TestRESP3Corpus(t *testing.T) {
	t.Parallel()
	sp := startShale(t, shaleOpts{})
	servers := [2]resp3Server{{"redis", startRedis(t).Addr}, {"shale", sp.Addr}}
	if os.Getenv("SHALE_RESP3_SELFCHECK") == "1" {
		servers[1] = resp3Server{"redis2", startRedis(t).Addr}
	}
	// Shale's table decides which cases run, and what must be covered.
	known, err := commandList(sp.Addr)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, tc := range resp3Corpus {
		names := caseCommands(tc, known)
		var missing []string
		for _, name := range names {
			covered[name] = true
			covered[strings.SplitN(name, "|", 2)[0]] = true // the container
			if !known[name] && name != strings.ToLower(unknownCommand) {
				missing = append(missing, name)
			}
		}
		t.Run(tc.name, func(t *testing.T) {
			if len(missing) > 0 {
				// A case may run ahead of the command it checks (issue 17
				// adds several): it starts to count once Shale has it.
				t.Skipf("shale lacks %v", missing)
			}
			for _, proto := range []int{2, 3} {
				t.Run("resp"+strconv.Itoa(proto), func(t *testing.T) {
					for _, srv := range servers {
						flushServer(t, srv.addr)
					}
					runResp3Case(t, servers, proto, tc)
				})
			}
		})
	}
	t.Run("coverage", func(t *testing.T) {
		for name := range known {
			if _, skip := resp3Uncovered[name]; !skip && !covered[name] {
				t.Errorf("%s: no case of the RESP3 corpus sends it", name)
			}
		}
	})
}

// flushServer empties addr's databases, scripts and functions before a
// case, undoes what a failed case may have left (a CLIENT PAUSE, the
// configuration the cases change), and waits for a BGSAVE to end.
func flushServer(t *testing.T, addr string) {
	t.Helper()
	s, _, err := dialSession(addr, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for _, args := range [][]string{{"CLIENT", "UNPAUSE"}, {"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"FUNCTION", "FLUSH"}, {"SLOWLOG", "RESET"},
		{"CONFIG", "SET", "notify-keyspace-events", ""}, {"CONFIG", "SET", "slowlog-log-slower-than", "10000"},
		{"CONFIG", "SET", "latency-monitor-threshold", "0"}, {"LATENCY", "RESET"}} {
		reply, err := s.do(0, args, false)
		if err != nil || reply.kind == '-' {
			t.Fatalf("%s: %v: %v %s", addr, args, err, reply.text)
		}
	}
	// A BGSAVE of the last case may still run: the next one would be
	// refused.
	for deadline := time.Now().Add(10 * time.Second); ; {
		reply, err := s.do(0, []string{"INFO", "persistence"}, false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(reply.text, "rdb_bgsave_in_progress:1") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: BGSAVE still in progress after 10s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
