package lualib

import (
	"bufio"
	"fmt"
	"go/format"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGoldensAgainstRedis runs every golden script on a real redis-server
// (7.0, the specification) and checks that the golden holds Redis's
// answer, so the goldens cannot drift from Redis. On a mismatch it prints
// the corrected row; with LUALIB_REGEN=1 it rewrites golden_test.go with
// Redis's answers instead.
func TestGoldensAgainstRedis(t *testing.T) {
	r := startRedis(t)
	if v := r.eval(t, "return redis.REDIS_VERSION"); !strings.HasPrefix(v, "7.0.") {
		t.Logf("redis-server is %s, not 7.0: goldens may differ", v)
	}
	regen := os.Getenv("LUALIB_REGEN") == "1"
	var rows strings.Builder
	for _, g := range goldens {
		got := r.eval(t, wrap(g.script))
		fmt.Fprintf(&rows, "\t{%q, %q, %q},\n", g.name, g.script, got)
		if got != g.want && !regen {
			t.Errorf("%s: redis disagrees with the golden; corrected row:\n{%q, %q, %q},", g.name, g.name, g.script, got)
		}
	}
	if regen {
		writeGoldens(t, rows.String())
	}
}

// writeGoldens replaces the rows of golden_test.go, keeping its header.
func writeGoldens(t *testing.T, rows string) {
	const file = "golden_test.go"
	old, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const start = "var goldens = []struct{ name, script, want string }{\n"
	head, _, ok := strings.Cut(string(old), start)
	if !ok {
		t.Fatalf("%s: no %q", file, start)
	}
	src, err := format.Source([]byte(head + start + rows + "}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// redisConn is the least RESP client that runs EVAL: the package may not
// import a client library (tests/layering_test.go).
type redisConn struct {
	c net.Conn
	r *bufio.Reader
}

// startRedis starts a throw-away redis-server on a unix socket in a temp
// dir (no TCP port to collide with) and stops it when the test ends.
func startRedis(t *testing.T) *redisConn {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the goldens are not re-checked against Redis")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(bin, "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	var c net.Conn
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if c, err = net.Dial("unix", sock); err == nil {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("redis-server did not come up: %v", err)
		}
	}
	t.Cleanup(func() { _ = c.Close() })
	return &redisConn{c: c, r: bufio.NewReader(c)}
}

// eval runs script with no keys and returns its reply: a bulk string as
// is, an error as "redis error: " and its text.
func (r *redisConn) eval(t *testing.T, script string) string {
	t.Helper()
	args := []string{"EVAL", script, "0"}
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := r.c.Write([]byte(b.String())); err != nil {
		t.Fatalf("write: %v", err)
	}
	line, err := r.r.ReadString('\n')
	if err != nil || len(line) < 3 {
		t.Fatalf("read: %q %v", line, err)
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '-':
		return "redis error: " + line[1:]
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "nil reply"
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r.r, buf); err != nil {
			t.Fatalf("read bulk: %v", err)
		}
		return string(buf[:n])
	}
	t.Fatalf("unexpected reply %q", line)
	return ""
}

// TestRandomAgainstRedis compares, on a real redis-server, the libraries'
// answers for pseudo-random inputs that a table of goldens cannot cover:
// number formatting at every precision, strtod's view of random numeric
// text, and the integer conversions of bit, struct and cmsgpack.
func TestRandomAgainstRedis(t *testing.T) {
	r := startRedis(t)
	rng := rand.New(rand.NewPCG(18, 7))
	for round := range 20 {
		script := randomNumbersScript(rng, 40) + randomTextScript(rng, 40)
		want := r.eval(t, wrap(script))
		got := run(t, wrap(script))
		if got == want {
			continue
		}
		diffLines(t, round, got, want)
	}
}

// randomNumbersScript builds doubles from random bit patterns (through
// struct.unpack, so no decimal literal is involved) of every magnitude and
// formats them with each library.
func randomNumbersScript(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("local out = {}\nlocal c = cjson.new() c.encode_invalid_numbers(true)\n")
	for range n {
		var bits uint64
		switch rng.IntN(4) {
		case 0: // any double, NaNs and infinities included
			bits = rng.Uint64()
		case 1: // integers near powers of two
			bits = math.Float64bits(math.Ldexp(1, rng.IntN(70)) + float64(rng.IntN(5)-2))
		case 2: // halves and small fractions, negative too
			bits = math.Float64bits(float64(rng.IntN(1<<20)-1<<19) / float64(int(1)<<rng.IntN(12)))
		default: // decimal-looking values
			bits = math.Float64bits(float64(rng.IntN(1e9)) * math.Pow(10, float64(rng.IntN(40)-20)))
		}
		var raw strings.Builder
		for i := 7; i >= 0; i-- {
			fmt.Fprintf(&raw, "\\%d", byte(bits>>(8*i)))
		}
		fmt.Fprintf(&b, "do local x = struct.unpack('>d', '%s') c.encode_number_precision(%d) "+
			"out[#out + 1] = c.encode({x}) .. ' ' .. hex(cmsgpack.pack(x)) .. ' ' .. bit.tohex(x) .. ' ' .. "+
			"hex(struct.pack('>lLiIf', x, x, x, x, x)) end\n", raw.String(), 1+rng.IntN(14))
	}
	return b.String()
}

// randomTextScript decodes random numeric-looking text with cjson, so the
// strtod scanner and the error positions meet strtod itself.
func randomTextScript(rng *rand.Rand, n int) string {
	pieces := []string{
		"-", "+", "0", "1", "9", "00", "0x", "0X", "1f", "a", "B", ".", ".5", "e", "E", "e+",
		"e-", "p", "p-3", "P4", "inf", "INF", "Infinity", "infinit", "nan", "NaN", "nan(",
		"x)", "(1_a)", " ", ",", "]", "[", "1e308", "1e-320", "123456789012345678901234",
		"7.25", "\\t", "true", "nul",
	}
	var b strings.Builder
	b.WriteString("local texts = {")
	for range n {
		var text strings.Builder
		for range 1 + rng.IntN(4) {
			text.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "'[%s]', ", text.String())
		} else {
			fmt.Fprintf(&b, "'%s', ", text.String())
		}
	}
	b.WriteString("}\nfor _, s in ipairs(texts) do out[#out + 1] = s .. ' => ' .. try(function() " +
		"local v = cjson.decode(s) if type(v) == 'number' then return hex(struct.pack('>d', v)) end return dump(v) end) end\n" +
		"return table.concat(out, '\\n')")
	return b.String()
}

// TestRandomStructuresAgainstRedis compares decoding of random, mostly
// valid and then damaged, MessagePack and JSON input, and encoding of
// random Lua values (maps with one key only: the order of several keys is
// gopher-lua's), with a real redis-server.
func TestRandomStructuresAgainstRedis(t *testing.T) {
	r := startRedis(t)
	rng := rand.New(rand.NewPCG(5, 11))
	for round := range 20 {
		var b strings.Builder
		b.WriteString("local out = {}\nlocal inputs = {")
		for range 30 {
			msg := randomMsgpack(rng, 0)
			msg = damage(rng, msg)
			fmt.Fprintf(&b, "%s, ", luaQuote(msg))
		}
		b.WriteString("}\nfor _, s in ipairs(inputs) do out[#out + 1] = hex(s) .. ' => ' .. try(function() return show(cmsgpack.unpack(s)) end) " +
			".. ' / ' .. try(function() return show(cmsgpack.unpack_limit(s, 2, 1)) end) end\ninputs = {")
		for range 30 {
			fmt.Fprintf(&b, "%s, ", luaQuote(damage(rng, []byte(randomJSON(rng, 0)))))
		}
		b.WriteString("}\nfor _, s in ipairs(inputs) do out[#out + 1] = s .. ' => ' .. try(function() return show(cjson.decode(s)) end) end\n")
		for range 30 {
			fmt.Fprintf(&b, "out[#out + 1] = try(function() local v = %s return hex(cmsgpack.pack(v)) .. ' ' .. cjson.encode(v) end)\n", randomLuaValue(rng, 0))
		}
		b.WriteString("return table.concat(out, '\\n')")
		script := b.String()
		want := r.eval(t, wrap(script))
		got := run(t, wrap(script))
		diffLines(t, round, got, want)
	}
}

// luaQuote writes b as a Lua string literal with decimal escapes.
func luaQuote(b []byte) string {
	var s strings.Builder
	s.WriteByte('\'')
	for _, c := range b {
		fmt.Fprintf(&s, "\\%d", c)
	}
	s.WriteByte('\'')
	return s.String()
}

// damage sometimes truncates b or overwrites one of its bytes.
func damage(rng *rand.Rand, b []byte) []byte {
	switch rng.IntN(4) {
	case 0:
		if len(b) > 0 {
			b = b[:rng.IntN(len(b))]
		}
	case 1:
		if len(b) > 0 {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
	}
	return b
}

// randomMsgpack encodes a random value with every MessagePack type the
// library reads, and a few it does not.
func randomMsgpack(rng *rand.Rand, depth int) []byte {
	be := func(n uint64, size int) []byte {
		out := make([]byte, size)
		for i := size - 1; i >= 0; i-- {
			out[i] = byte(n)
			n >>= 8
		}
		return out
	}
	kind := rng.IntN(14)
	if depth > 3 && kind >= 11 {
		kind = rng.IntN(11)
	}
	switch kind {
	case 0:
		return []byte{byte(rng.IntN(256))}
	case 1:
		c := []byte{0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3}[rng.IntN(8)]
		size := map[byte]int{0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}[c]
		return append([]byte{c}, be(rng.Uint64(), size)...)
	case 2:
		return append([]byte{0xca}, be(uint64(rng.Uint32()), 4)...)
	case 3:
		return append([]byte{0xcb}, be(rng.Uint64(), 8)...)
	case 4:
		n := rng.IntN(40)
		return append([]byte{0xa0 | byte(n&31)}, []byte(strings.Repeat("s", n&31))...)
	case 5:
		n := rng.IntN(300)
		return append(append([]byte{0xda}, be(uint64(n), 2)...), []byte(strings.Repeat("t", n))...)
	case 6:
		n := rng.IntN(20)
		return append(append([]byte{0xdb}, be(uint64(n), 4)...), []byte(strings.Repeat("u", n))...)
	case 7:
		return []byte{0xd9, 3, 'a', 'b', 'c'}
	case 8:
		return []byte{[]byte{0xc0, 0xc2, 0xc3, 0xc1, 0xc4, 0xd4}[rng.IntN(6)]}
	case 9, 10:
		return []byte{byte(0xe0 + rng.IntN(32))}
	case 11, 12:
		n := rng.IntN(5)
		head := []byte{0x90 | byte(n)}
		if rng.IntN(3) == 0 {
			head = append([]byte{0xdc}, be(uint64(n), 2)...)
		}
		for range n {
			head = append(head, randomMsgpack(rng, depth+1)...)
		}
		return head
	default:
		n := rng.IntN(4)
		head := []byte{0x80 | byte(n)}
		if rng.IntN(3) == 0 {
			head = append([]byte{0xdf}, be(uint64(n), 4)...)
		}
		for range n {
			head = append(head, randomMsgpack(rng, depth+1)...)
			head = append(head, randomMsgpack(rng, depth+1)...)
		}
		return head
	}
}

// randomJSON writes random JSON text, with some of the non-standard
// numbers and escapes lua-cjson accepts or rejects.
func randomJSON(rng *rand.Rand, depth int) string {
	scalars := []string{
		"0", "-0", "1.5", "-2e3", "1E+2", "0x1F", "NaN", "-Infinity", "+1", "01", "1e400",
		`"a"`, `"\u00e9\n\/"`, `"\ud83d\ude00"`, `"\ud800"`, `"\x"`, "true", "false", "null",
		"tru", `"unterminated`, "[]", "{}",
	}
	kind := rng.IntN(10)
	if depth > 3 {
		kind = 0
	}
	switch {
	case kind < 6:
		return scalars[rng.IntN(len(scalars))]
	case kind < 8:
		var parts []string
		for range rng.IntN(4) {
			parts = append(parts, randomJSON(rng, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		var parts []string
		for i := range rng.IntN(4) {
			parts = append(parts, fmt.Sprintf(`"k%d" : %s`, i%2, randomJSON(rng, depth+1)))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
}

// randomLuaValue writes a Lua expression for a random value: numbers of
// every kind, strings with any byte, arrays (sparse too) and maps with a
// single key.
func randomLuaValue(rng *rand.Rand, depth int) string {
	numbers := []string{
		"0", "1", "-1", "127", "128", "-33", "255", "65536", "2^31", "-2^31-1", "2^53", "2^63",
		"-2^63", "2^64", "0.5", "0.1", "1/3", "1e300", "-1e-300", "1/0", "-1/0", "3.4028234663852886e38",
	}
	kind := rng.IntN(10)
	if depth > 3 {
		kind = rng.IntN(5)
	}
	switch kind {
	case 0, 1:
		return numbers[rng.IntN(len(numbers))]
	case 2:
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return luaQuote(b)
	case 3:
		return []string{"true", "false", "cjson.null"}[rng.IntN(3)]
	case 4:
		return "{}"
	case 5, 6, 7:
		var parts []string
		for range 1 + rng.IntN(4) {
			parts = append(parts, randomLuaValue(rng, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case 8:
		return fmt.Sprintf("{[%d] = %s}", 1+rng.IntN(15), randomLuaValue(rng, depth+1))
	default:
		key := []string{"'k'", "1.5", "-1", "0", "true", "2^40"}[rng.IntN(6)]
		return fmt.Sprintf("{[%s] = %s}", key, randomLuaValue(rng, depth+1))
	}
}

// diffLines reports each line of got, a round's output, that differs from
// want, redis-server's.
func diffLines(t *testing.T, round int, got, want string) {
	t.Helper()
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		g, w := "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("round %d, line %d differs from redis\ngot:  %q\nwant: %q", round, i+1, g, w)
		}
	}
}
