package types

// Match reports whether s matches the glob pattern p exactly as Redis 7.0's
// stringmatchlen does with nocase off (KEYS, SCAN MATCH, HSCAN MATCH, CONFIG
// GET): '*', '?', '[abc]', '[^a-z]', and '\' escapes, with Redis's corners
// kept: an unterminated class ends at the pattern's end, a '\' at the end of
// the pattern is a literal '\', a range written backwards is swapped, and its
// ends compare as signed chars, as C's char is on amd64. Callers shortcut the
// pattern "*" themselves, as Redis does: here it does not match "".
//
// Match takes O(len(p)*len(s)) steps and allocates nothing.
func Match(p, s []byte) bool {
	ok, _ := match(p, s, maxMatchNesting)
	return ok
}

// maxMatchNesting is Redis's limit on the '*' recursion of stringmatchlen: the
// pattern after the 1001st run of stars never matches a non-empty rest of the
// string. Match does not recurse, but keeps the limit for Redis's answers.
const maxMatchNesting = 1000

// match is Match with the nesting limit as a parameter, so tests can reach it
// on small inputs, and the number of steps taken, so tests can bound it.
//
// Redis backtracks; this is the greedy two-pointer matcher, which only ever
// retries the last star run seen. That loses no match (it is the argument
// behind Redis's skipLongerMatches): every token but '*' consumes exactly one
// byte, so whether the tokens between two star runs match at an offset does
// not depend on what the stars before took. Trying each star's takes
// shortest first thus reaches every star run at the smallest offset any
// match could, and from there the rest of the pattern is tried at every
// later offset, which covers all the ways the earlier stars could take more.
// The retry offset only moves forward, so there are at most len(s) passes,
// each of at most len(p) steps.
func match(p, s []byte, maxNesting int) (ok bool, steps int) {
	pi, si := 0, 0
	star, retry := -1, 0 // pattern index after the last star run, and where its next try starts in s
	nesting := 0         // star runs reached: Redis's recursion depth
	for {
		// Redis's loop runs while both pattern and string are left. A
		// mismatch leaves it with si < len(s), so the test after it fails.
		for pi < len(p) && si < len(s) {
			steps++
			if p[pi] == '*' {
				for pi+1 < len(p) && p[pi+1] == '*' {
					pi++
				}
				if pi == len(p)-1 {
					return true, steps // a trailing star takes the rest
				}
				if nesting++; nesting > maxNesting {
					// Redis's deepest call fails at every position, then
					// tells every caller to stop.
					return false, steps
				}
				pi++
				star, retry = pi, si
				continue
			}
			next, hit := matchToken(p, pi, s[si])
			if !hit {
				break
			}
			pi, si = next, si+1
			if si == len(s) {
				// The string is used up: only trailing stars may be left.
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
			}
		}
		if pi == len(p) && si == len(s) {
			return true, steps
		}
		// Let the last star run take one more byte. It never takes the
		// whole rest: the pattern after it is not empty, and an empty string
		// matches only the empty pattern.
		if star < 0 || retry+1 >= len(s) {
			return false, steps
		}
		retry++
		pi, si = star, retry
	}
}

// matchToken matches c against the token at p[i], which is not '*', and
// returns the index just after the token and whether c matched it.
func matchToken(p []byte, i int, c byte) (next int, hit bool) {
	switch p[i] {
	case '?':
		return i + 1, true
	case '[':
		return matchClass(p, i+1, c)
	case '\\':
		if i+1 < len(p) {
			i++ // a '\' at the very end is a literal '\'
		}
	}
	return i + 1, p[i] == c
}

// matchClass matches c against the class whose body starts at p[i] (just
// after the '['), and returns the index just after the class and whether c
// is in it. Like Redis: a '^' only at the start negates; '\' escapes the next
// byte; "x-y" is a range even when y is ']' or '\' and is swapped when
// written backwards; a ']' right at the start closes an empty class; and a
// class with no ']' ends at the pattern's end.
func matchClass(p []byte, i int, c byte) (next int, hit bool) {
	not := i < len(p) && p[i] == '^'
	if not {
		i++
	}
	for ; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			i++
			hit = hit || p[i] == c
		case p[i] == ']':
			return i + 1, hit != not
		case i+2 < len(p) && p[i+1] == '-':
			// C's char is signed on amd64: bytes from 0x80 sort below 0.
			lo, hi, x := int8(p[i]), int8(p[i+2]), int8(c)
			if lo > hi {
				lo, hi = hi, lo
			}
			hit = hit || lo <= x && x <= hi
			i += 2
		default:
			hit = hit || p[i] == c
		}
	}
	return len(p), hit != not
}
