package types

// Match reports whether s matches the glob pattern p exactly as Redis's
// stringmatchlen does (KEYS, SCAN MATCH, HSCAN MATCH, CONFIG GET): '*', '?',
// '[abc]', '[^a-z]', and '\' escapes.
func Match(p, s []byte) bool {
	return matchDepth(p, s, 0)
}

// maxMatchNesting bounds the recursion on '*', as Redis does, so a hostile
// pattern cannot exhaust the stack.
const maxMatchNesting = 1000

func matchDepth(p, s []byte, depth int) bool {
	if depth > maxMatchNesting {
		return false
	}
	for len(p) > 0 && len(s) > 0 || len(p) > 0 && p[0] == '*' {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if matchDepth(p[1:], s[i:], depth+1) {
					return true
				}
			}
			return false
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			for {
				if len(p) == 0 {
					break
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						match = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					lo, hi := p[0], p[2]
					if lo > hi {
						lo, hi = hi, lo
					}
					if s[0] >= lo && s[0] <= hi {
						match = true
					}
					p = p[2:]
				} else if p[0] == s[0] {
					match = true
				}
				p = p[1:]
			}
			if len(p) == 0 {
				// Unterminated class: Redis treats the end as closing it.
				p = []byte{']'}
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		default:
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
	}
	return len(p) == 0 && len(s) == 0
}
