package tests

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// step is one row of a script: a command and the reply it must get.
//
// want is one of:
//   - a value: int (any integer type), string, []any (nested, may hold
//     matchers), compared exactly after normalising;
//   - nil or isNil: a nil reply (redis.Nil at the top, a nil element inside
//     an array);
//   - errPrefix("WRONGTYPE"): an error reply whose text starts with it;
//     errText("...") for the exact text;
//   - a matcher: anyInt, anyString, unordered(...), pairs(...),
//     floatApprox(...), between(lo, hi), and the others below.
type step struct {
	args []any
	want any
}

// cmd builds a step's argument list: {cmd("SET", "k", "v"), ok}.
func cmd(args ...any) []any { return args }

// ok is the +OK status reply.
const ok = "OK"

// doer is what scripts run on: *redis.Client, or *redis.Conn when the
// script depends on connection state (SELECT, AUTH, CLIENT SETNAME).
type doer interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
}

// run executes the steps in order and reports every mismatch with the step's
// index, command, reply and expectation. It stops after 10 mismatches.
func run(t *testing.T, c doer, steps []step) {
	t.Helper()
	failures := 0
	for i, s := range steps {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		got, err := c.Do(ctx, s.args...).Result()
		cancel()
		if why := matchReply(s.want, got, err); why != "" {
			t.Errorf("step %d: %s\n\tgot:  %s\n\twant: %s\n\t(%s)", i, fmtArgs(s.args), fmtReply(got, err), fmtVal(s.want), why)
			failures++
			if failures >= 10 {
				t.Fatalf("stopping after %d mismatches", failures)
			}
		}
	}
}

// matcher checks a reply that no single value describes.
type matcher interface {
	// match returns "" when got matches, or why not. got is the normalised
	// reply; nil stands for a nil reply.
	match(got any) string
	String() string
}

// errPrefix expects an error reply starting with the text, e.g. "WRONGTYPE".
type errPrefix string

// errText expects an error reply with exactly this text.
type errText string

func matchReply(want, got any, err error) string {
	switch w := want.(type) {
	case errPrefix:
		if err == nil || errors.Is(err, redis.Nil) {
			return "want an error reply"
		}
		if !strings.HasPrefix(err.Error(), string(w)) {
			return "error text differs"
		}
		return ""
	case errText:
		if err == nil || errors.Is(err, redis.Nil) {
			return "want an error reply"
		}
		if err.Error() != string(w) {
			return "error text differs"
		}
		return ""
	}
	if errors.Is(err, redis.Nil) {
		got = nil
	} else if err != nil {
		return "unexpected error"
	}
	return matchValue(want, got)
}

// matchValue compares a normalised reply with an expectation that may hold
// matchers at any depth.
func matchValue(want, got any) string {
	switch w := want.(type) {
	case errText, errPrefix:
		// An error inside an array (EXEC's replies): go-redis gives it as
		// an error value.
		e, isErr := got.(error)
		if !isErr {
			return "want an error"
		}
		return matchReply(want, nil, e)
	case nil:
		if got != nil {
			return "want nil"
		}
		return ""
	case matcher:
		return w.match(got)
	case []any:
		g, isArr := got.([]any)
		if !isArr {
			return "want an array"
		}
		if len(g) != len(w) {
			return fmt.Sprintf("array length %d, want %d", len(g), len(w))
		}
		for i := range w {
			if why := matchValue(w[i], g[i]); why != "" {
				return fmt.Sprintf("element %d: %s", i, why)
			}
		}
		return ""
	case []string:
		return matchValue(strsToAny(w), got)
	case string:
		if g, isStr := got.(string); !isStr || g != w {
			return "want this string"
		}
		return ""
	}
	if n, isInt := toInt64(want); isInt {
		if g, gotInt := got.(int64); !gotInt || g != n {
			return "want this integer"
		}
		return ""
	}
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("cannot compare a %T expectation", want)
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		if n <= math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}

func strsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// fmtArgs renders a command as `SET "k" "v"`.
func fmtArgs(args []any) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if s, isStr := a.(string); isStr && i == 0 {
			b.WriteString(s)
			continue
		}
		b.WriteString(fmtVal(a))
	}
	return b.String()
}

func fmtReply(got any, err error) string {
	if errors.Is(err, redis.Nil) {
		return "(nil)"
	}
	if err != nil {
		return fmt.Sprintf("(error) %q", err.Error())
	}
	return fmtVal(got)
}

func fmtVal(v any) string {
	switch x := v.(type) {
	case nil:
		return "(nil)"
	case string:
		if len(x) > 200 {
			return strconv.Quote(x[:200]) + fmt.Sprintf("...(%d bytes)", len(x))
		}
		return strconv.Quote(x)
	case errPrefix:
		return fmt.Sprintf("(error) %q...", string(x))
	case errText:
		return fmt.Sprintf("(error) %q", string(x))
	case matcher:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fmtVal(e)
		}
		if len(parts) > 40 {
			parts = append(parts[:40], fmt.Sprintf("...(%d elements)", len(x)))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case []string:
		return fmtVal(strsToAny(x))
	}
	return fmt.Sprint(v)
}

// isNil expects a nil reply; it reads better than a bare nil in a row.
var isNil matcher = nilMatcher{}

type nilMatcher struct{}

func (nilMatcher) match(got any) string {
	if got != nil {
		return "want nil"
	}
	return ""
}
func (nilMatcher) String() string { return "(nil)" }

// matchFunc adapts a function and a description to a matcher.
type matchFunc struct {
	desc string
	fn   func(got any) string
}

func (m matchFunc) match(got any) string { return m.fn(got) }
func (m matchFunc) String() string       { return m.desc }

// anyInt matches any integer reply.
var anyInt matcher = matchFunc{"<any integer>", func(got any) string {
	if _, isInt := got.(int64); !isInt {
		return "want an integer"
	}
	return ""
}}

// anyString matches any bulk or status string.
var anyString matcher = matchFunc{"<any string>", func(got any) string {
	if _, isStr := got.(string); !isStr {
		return "want a string"
	}
	return ""
}}

// between matches an integer in [lo, hi], e.g. a TTL.
func between(lo, hi int64) matcher {
	return matchFunc{fmt.Sprintf("<integer in [%d, %d]>", lo, hi), func(got any) string {
		n, isInt := got.(int64)
		if !isInt {
			return "want an integer"
		}
		if n < lo || n > hi {
			return "integer out of range"
		}
		return ""
	}}
}

// atLeast matches an integer >= lo.
func atLeast(lo int64) matcher {
	return matchFunc{fmt.Sprintf("<integer >= %d>", lo), func(got any) string {
		if n, isInt := got.(int64); !isInt || n < lo {
			return "want a larger integer"
		}
		return ""
	}}
}

// floatApprox matches a string holding a float within 1e-9 (relative) of v.
func floatApprox(v float64) matcher {
	return matchFunc{fmt.Sprintf("<float ~%g>", v), func(got any) string {
		s, isStr := got.(string)
		if !isStr {
			return "want a string"
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "not a float"
		}
		if math.Abs(f-v) > 1e-9*math.Max(1, math.Abs(v)) {
			return "float differs"
		}
		return ""
	}}
}

// matchesRe matches a string matching the regular expression.
func matchesRe(expr string) matcher {
	re := regexp.MustCompile(expr)
	return matchFunc{fmt.Sprintf("<string matching %q>", expr), func(got any) string {
		if s, isStr := got.(string); !isStr || !re.MatchString(s) {
			return "no match"
		}
		return ""
	}}
}

// containsAll matches a string that contains every one of subs.
func containsAll(subs ...string) matcher {
	return matchFunc{fmt.Sprintf("<string containing %q>", subs), func(got any) string {
		s, isStr := got.(string)
		if !isStr {
			return "want a string"
		}
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return fmt.Sprintf("missing %q", sub)
			}
		}
		return ""
	}}
}

// oneOf matches any of the values.
func oneOf(vals ...any) matcher {
	return matchFunc{fmt.Sprintf("<one of %s>", fmtVal(vals)), func(got any) string {
		for _, v := range vals {
			if matchValue(v, got) == "" {
				return ""
			}
		}
		return "not one of the choices"
	}}
}

// unordered matches an array holding the same elements in any order (a
// multiset comparison, for set-like replies such as HKEYS).
func unordered(vals []any) matcher {
	want := sortedKeys(vals)
	return matchFunc{fmt.Sprintf("<in any order %s>", fmtVal(vals)), func(got any) string {
		g, isArr := got.([]any)
		if !isArr {
			return "want an array"
		}
		if !reflect.DeepEqual(sortedKeys(g), want) {
			return "elements differ"
		}
		return ""
	}}
}

func sortedKeys(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = fmt.Sprintf("%T:%v", v, v)
		if n, isInt := toInt64(v); isInt {
			out[i] = fmt.Sprintf("int:%d", n)
		}
	}
	sort.Strings(out)
	return out
}

// pairs matches a flat field/value array (HGETALL, CONFIG GET) equal to m
// as a map, in any order, with no field repeated.
func pairs(m map[string]string) matcher {
	desc := fmt.Sprintf("<pairs %v>", m)
	if len(m) > 10 {
		desc = fmt.Sprintf("<%d field/value pairs>", len(m))
	}
	return matchFunc{desc, func(got any) string {
		g, err := toMap(got)
		if err != nil {
			return err.Error()
		}
		return mapDiff(g, m)
	}}
}

// mapDiff describes the first few differences between got and want.
func mapDiff(got, want map[string]string) string {
	var diffs []string
	for k, w := range want {
		if g, found := got[k]; !found {
			diffs = append(diffs, fmt.Sprintf("missing %q", k))
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%q is %q, want %q", k, g, w))
		}
	}
	for k := range got {
		if _, found := want[k]; !found {
			diffs = append(diffs, fmt.Sprintf("unexpected %q", k))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more differences", len(diffs)-5))
	}
	return fmt.Sprintf("%d fields, want %d: %s", len(got), len(want), strings.Join(diffs, "; "))
}

// toMap converts a flat array of string pairs to a map, rejecting repeats.
func toMap(got any) (map[string]string, error) {
	g, isArr := got.([]any)
	if !isArr {
		return nil, errors.New("want an array")
	}
	if len(g)%2 != 0 {
		return nil, fmt.Errorf("odd array length %d", len(g))
	}
	m := make(map[string]string, len(g)/2)
	for i := 0; i < len(g); i += 2 {
		k, kStr := g[i].(string)
		v, vStr := g[i+1].(string)
		if !kStr || !vStr {
			return nil, fmt.Errorf("element %d or %d is not a string", i, i+1)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("field %q repeated", k)
		}
		m[k] = v
	}
	return m, nil
}

// emptyArr is the empty array reply.
var emptyArr = []any{}

// TestScriptMatchers checks the script runner's comparisons, so that a lax
// matcher cannot let a wrong reply through.
func TestScriptMatchers(t *testing.T) {
	t.Parallel()
	wrongType := errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	for i, tc := range []struct {
		want  any
		got   any
		err   error
		match bool
	}{
		{"OK", "OK", nil, true},
		{"OK", "ok", nil, false},
		{1, int64(1), nil, true},
		{1, "1", nil, false},
		{int64(2), int64(1), nil, false},
		{nil, nil, redis.Nil, true},
		{isNil, nil, redis.Nil, true},
		{isNil, "", nil, false},
		{nil, "x", nil, false},
		{"x", nil, redis.Nil, false},
		{errPrefix("WRONGTYPE"), nil, wrongType, true},
		{errPrefix("ERR"), nil, wrongType, false},
		{errPrefix("ERR"), "OK", nil, false},
		{errText("WRONGTYPE"), nil, wrongType, false},
		{"OK", nil, wrongType, false},
		{[]any{"a", nil, int64(3)}, []any{"a", nil, int64(3)}, nil, true},
		{[]any{"a", nil}, []any{"a", "b"}, nil, false},
		{[]any{"a"}, []any{"a", "b"}, nil, false},
		{emptyArr, []any{}, nil, true},
		{emptyArr, nil, redis.Nil, false},
		{[]any{"0", []any{}}, []any{"0", []any{}}, nil, true},
		{anyInt, int64(7), nil, true},
		{anyInt, "7", nil, false},
		{anyString, "x", nil, true},
		{anyString, int64(1), nil, false},
		{matchesRe(`^a\d+$`), "a12", nil, true},
		{matchesRe(`^a\d+$`), "a12b", nil, false},
		{between(1, 3), int64(3), nil, true},
		{between(1, 3), int64(4), nil, false},
		{unordered([]any{"a", "b", "b"}), []any{"b", "a", "b"}, nil, true},
		{unordered([]any{"a", "b", "b"}), []any{"b", "a", "a"}, nil, false},
		{unordered([]any{"a", "b"}), []any{"b", "a", "c"}, nil, false},
		{pairs(map[string]string{"f": "v", "g": "w"}), []any{"g", "w", "f", "v"}, nil, true},
		{pairs(map[string]string{"f": "v"}), []any{"f", "v", "f", "v"}, nil, false},
		{pairs(map[string]string{"f": "v"}), []any{"f", "x"}, nil, false},
		{floatApprox(10.5), "10.5", nil, true},
		{floatApprox(10.5), "10.6", nil, false},
		{oneOf("a", "b"), "b", nil, true},
		{oneOf("a", "b"), "c", nil, false},
		{[]any{anyInt, "x"}, []any{int64(1), "x"}, nil, true},
		{containsAll("a", "b"), "xaxb", nil, true},
		{containsAll("a", "b"), "xax", nil, false},
	} {
		if why := matchReply(tc.want, tc.got, tc.err); (why == "") != tc.match {
			t.Errorf("case %d: want %s, got %s: match=%v (%s), expected match=%v",
				i, fmtVal(tc.want), fmtReply(tc.got, tc.err), why == "", why, tc.match)
		}
	}
}
