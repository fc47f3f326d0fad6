package types

import (
	"strings"
	"testing"
)

// matchCases are Match's answers, each checked against redis-server 7.0.15
// with KEYS (Redis itself shortcuts only the pattern "*").
var matchCases = []struct {
	pattern, s string
	want       bool
}{
	{"*", "anything", true},
	{"*", "", false}, // stringmatchlen's answer: KEYS and SCAN shortcut "*"
	{"**", "", false},
	{"", "", true},
	{"", "a", false},
	{"?", "", false},
	{"abc", "abc", true},
	{"abc", "abcd", false},
	{"h?llo", "hello", true},
	{"h?llo", "hllo", false},
	{"h*llo", "heeeello", true},
	{"h*llo", "hllo", true},
	{"a*b*c", "axxbyyc", true},
	{"a*b*c", "axxbyy", false},
	{"a*b*c", "abbc", true},
	{"foo*", "foo", true},
	{"a**", "a", true},
	{"a*?", "a", false},
	{"*?", "a", true},
	{"*a", "ba", true},
	{"user:*:name", "user:42:name", true},

	// Classes.
	{"h[ae]llo", "hallo", true},
	{"h[ae]llo", "hillo", false},
	{"h[^e]llo", "hallo", true},
	{"h[^e]llo", "hello", false},
	{"h[a-b]llo", "hbllo", true},
	{"h[a-b]llo", "hcllo", false},
	{"h[b-a]llo", "hallo", true}, // a range written backwards is swapped
	{"[z-a]", "m", true},
	{"a[b^]c", "a^c", true}, // '^' negates only at the start
	{"[^^]", "^", false},
	{"[]", "]", false}, // ']' at the start closes an empty class
	{"[]a]", "a]", false},
	{"[^]", "x", true},
	{"[^]a", "xa", true},

	// A class with no ']' ends at the pattern's end.
	{"[abc", "c", true},
	{"[abc", "ab", false},
	{"[", "[", false},
	{"[", "", false},
	{"[^", "x", true},
	{"*[", "x[", false},

	// A range may end in ']' or '\', which then does not close the class.
	{"[a-]", "]", true},
	{"[a-]", "_", true},
	{"[a-]", "a", true},
	{"[a-]", "-", false},
	{"[a-]", "b", false},
	{"[a-]x", "x", true},
	{"[a-]x", "]x", false},
	{`[a-\]`, `\`, true},
	{`[a-\]`, "_", true},
	{`[a-\]`, "b", false},

	// Range ends compare as C's signed chars: 0x80..0xff sort below 0x00.
	{"[\x80-\xff]", "\x90", true},
	{"[\x80-\xff]", "a", false},
	{"[a-\xff]", "\x00", true},
	{"[a-\xff]", "\xff", true},
	{"[a-\xff]", "b", false},
	{"[a-\xff]", "\x80", false},
	{"[\x00-\xff]", "a", false},
	{"[\x00-\xff]", "\xff", true},

	// Escapes.
	{`h\*llo`, "h*llo", true},
	{`h\*llo`, "hello", false},
	{`\a`, "a", true},
	{`\*`, "*", true},
	{`\*`, "x", false},
	{`\`, `\`, true}, // a '\' at the end is a literal '\'
	{`a\`, `a\`, true},
	{`a\`, "a", false},
	{`a\*`, "a", false}, // an escaped star is not a trailing star
	{`[\]]`, "]", true},
	{`[\]]`, `\`, false},
	{`[\`, `\`, true}, // and so is one at the end of a class
	{`[a\`, `\`, true},
	{`[\-a]`, "-", true}, // an escaped byte never starts a range
	{`[\-a]`, "b", false},

	// NUL bytes are ordinary bytes.
	{"a\x00*", "a\x00b", true},
	{"[\x00]", "\x00", true},
	{"?", "\x00", true},

	// The pathological KEYS pattern: exponential for plain backtracking.
	{strings.Repeat("a*", 20) + "b", strings.Repeat("a", 40), false},
	{strings.Repeat("a*", 20) + "b", strings.Repeat("a", 40) + "b", true},
}

func TestMatch(t *testing.T) {
	for _, tt := range matchCases {
		t.Run(tt.pattern+"/"+tt.s, func(t *testing.T) {
			if got := Match([]byte(tt.pattern), []byte(tt.s)); got != tt.want {
				t.Fatalf("Match(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
			}
		})
	}
}

// TestMatchNesting: Redis gives up on the 1001st run of stars that still has
// string left to cover, even where a match exists. Answers from redis-server
// 7.0.15.
func TestMatchNesting(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name, pattern, s string
		want             bool
	}{
		{"1000 runs", strings.Repeat("*a", 1000), a(1000), true},
		{"1001 runs", strings.Repeat("*a", 1001), a(1001), false},
		{"1001 runs, the last trailing", strings.Repeat("*a", 1000) + "*", a(1000), true},
		{"1001 runs, the last trailing, string left", strings.Repeat("*a", 1000) + "*", a(1001), true},
		{"1002 runs, the last trailing", strings.Repeat("*a", 1001) + "*", a(1001), false},
		{"1001 runs, the last past the string", strings.Repeat("a*", 1001), a(1001), true},
		{"1002 runs, the last past the string", strings.Repeat("a*", 1002), a(1002), false},
		{"?* 1001 runs", strings.Repeat("?*", 1001), a(1001), true},
		{"*? 1001 runs", strings.Repeat("*?", 1001), a(1001), false},
		{"doubled stars are one run", strings.Repeat("a**", 1000) + "a", a(1001), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Match([]byte(tt.pattern), []byte(tt.s)); got != tt.want {
				t.Fatalf("Match(%.20q..., %d bytes) = %v, want %v", tt.pattern, len(tt.s), got, tt.want)
			}
			skip := false
			if got := refMatch([]byte(tt.pattern), 0, []byte(tt.s), 0, 0, maxMatchNesting, &skip); got != tt.want {
				t.Fatalf("refMatch(%.20q..., %d bytes) = %v, want %v", tt.pattern, len(tt.s), got, tt.want)
			}
		})
	}
}

// TestMatchPathological: patterns that made the old backtracking matcher
// run for hours take at most len(p) steps per byte of s.
func TestMatchPathological(t *testing.T) {
	long := strings.Repeat("a", 10_000)
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{strings.Repeat("a*", 20) + "b", long, false},
		{strings.Repeat("a*", 20) + "b", long + "b", true},
		{strings.Repeat("*a", 20) + "b", long, false},
		{strings.Repeat("*?", 20) + "b", long, false},
		{strings.Repeat("*[a-z]", 20) + "b", long, false},
		{strings.Repeat("*a", 1000) + "b", long, false},
	}
	for _, tt := range tests {
		ok, steps := match([]byte(tt.pattern), []byte(tt.s), maxMatchNesting)
		if ok != tt.want {
			t.Errorf("Match(%.20q..., %d bytes) = %v, want %v", tt.pattern, len(tt.s), ok, tt.want)
		}
		if limit := stepLimit(tt.pattern, tt.s); steps > limit {
			t.Errorf("Match(%.20q..., %d bytes) took %d steps, more than %d", tt.pattern, len(tt.s), steps, limit)
		}
	}
}

// stepLimit is match's bound: each pass over the pattern takes at most
// len(p) steps, and each pass after the first starts one byte further on.
func stepLimit(p, s string) int {
	return len(p) * max(len(s), 1)
}

func TestMatchAllocs(t *testing.T) {
	p, s := []byte(strings.Repeat("*[^b-z]", 5)+"?b"), []byte(strings.Repeat("a", 100))
	if n := testing.AllocsPerRun(10, func() { Match(p, s) }); n != 0 {
		t.Fatalf("Match allocates %v times per call", n)
	}
}

func FuzzMatch(f *testing.F) {
	for _, tt := range matchCases {
		f.Add([]byte(tt.pattern), []byte(tt.s), uint8(0))
	}
	f.Add([]byte("h[^e]*\\"), []byte("hello"), uint8(2))
	f.Add([]byte("*a*a*a"), []byte("aaaa"), uint8(1))
	f.Fuzz(func(t *testing.T, p, s []byte, nesting uint8) {
		if len(p) > 64 || len(s) > 64 {
			return // the reference is slow on long inputs
		}
		// A small nesting limit lets short patterns reach it.
		limit := maxMatchNesting
		if nesting < 8 {
			limit = int(nesting)
		}
		ok, steps := match(p, s, limit)
		skip := false
		if want := refMatch(p, 0, s, 0, 0, limit, &skip); ok != want {
			t.Fatalf("match(%q, %q, %d) = %v, Redis says %v", p, s, limit, ok, want)
		}
		if bound := stepLimit(string(p), string(s)); steps > bound {
			t.Fatalf("match(%q, %q, %d) took %d steps, more than %d", p, s, limit, steps, bound)
		}
	})
}

// refMatch is a direct transcription of Redis 7.0's stringmatchlen_impl with
// nocase off, indexes standing in for its moving pointers: it matches
// s[si:] against p[pi:]. skip is Redis's skipLongerMatches. C reads the
// byte at p[len(p)], the sds terminator, in a few places; at gives it as 0.
func refMatch(p []byte, pi int, s []byte, si int, nesting, maxNesting int, skip *bool) bool {
	if nesting > maxNesting {
		return false
	}
	at := func(i int) byte {
		if i < len(p) {
			return p[i]
		}
		return 0
	}
	for pi < len(p) && si < len(s) {
		switch p[pi] {
		case '*':
			for pi < len(p) && at(pi+1) == '*' {
				pi++
			}
			if len(p)-pi == 1 {
				return true
			}
			for si < len(s) {
				if refMatch(p, pi+1, s, si, nesting+1, maxNesting, skip) {
					return true
				}
				if *skip {
					return false
				}
				si++
			}
			*skip = true
			return false
		case '?':
			si++
		case '[':
			pi++
			not := at(pi) == '^'
			if not {
				pi++
			}
			match := false
			for {
				if at(pi) == '\\' && len(p)-pi >= 2 {
					pi++
					if p[pi] == s[si] {
						match = true
					}
				} else if at(pi) == ']' {
					break
				} else if len(p)-pi == 0 {
					pi--
					break
				} else if len(p)-pi >= 3 && p[pi+1] == '-' {
					start, end, c := int8(p[pi]), int8(p[pi+2]), int8(s[si])
					if start > end {
						start, end = end, start
					}
					pi += 2
					if c >= start && c <= end {
						match = true
					}
				} else if p[pi] == s[si] {
					match = true
				}
				pi++
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			si++
		case '\\':
			if len(p)-pi >= 2 {
				pi++
			}
			fallthrough
		default:
			if p[pi] != s[si] {
				return false
			}
			si++
		}
		pi++
		if si == len(s) {
			for at(pi) == '*' {
				pi++
			}
			break
		}
	}
	return pi == len(p) && si == len(s)
}
