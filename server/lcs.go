package server

// LCS's algorithm: the longest common subsequence of two strings, and the
// ranges of it that match, exactly as Redis 7.0's lcsCommand finds them.
//
// Redis fills a (len(a)+1)*(len(b)+1) table of uint32 lengths and walks it
// back from the bottom-right corner. Its answer depends on the walk's tie
// rule (on a mismatch, go up only when the cell above holds strictly more),
// so Shale walks the same path; but the walk reads the table only to make
// that one comparison, so Shale keeps one bit per cell (its outcome) and
// two rows of lengths: 1/32 of Redis's memory for the same answer. LEN
// alone needs no bits at all.

// lcsMatch is one range of IDX's reply: a[aStart..aEnd] equals
// b[bStart..bEnd], ends included.
type lcsMatch struct {
	aStart, aEnd, bStart, bEnd int
}

// len is the match's length, WITHMATCHLEN's figure.
func (m lcsMatch) len() int { return m.aEnd - m.aStart + 1 }

// lcsLength is the length of the longest common subsequence of a and b, in
// O(len(b)) memory.
func lcsLength(a, b []byte) int {
	prev, cur := make([]uint32, len(b)+1), make([]uint32, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return int(prev[len(b)])
}

// lcsTrace returns the longest common subsequence of a and b and, when
// matches is set, its matching ranges of at least minLen bytes (0: all),
// from the ends of the strings backwards, as Redis's IDX lists them. The
// caller has bounded len(a)*len(b): it allocates one bit per pair.
func lcsTrace(a, b []byte, minLen int64, matches bool) (seq []byte, ranges []lcsMatch) {
	alen, blen := len(a), len(b)
	// up holds, for cell (i, j) with i, j >= 1 at bit (i-1)*blen+(j-1),
	// whether LCS(i-1, j) > LCS(i, j-1): the walk's direction on a mismatch.
	up := make([]uint64, (alen*blen+63)/64)
	prev, cur := make([]uint32, blen+1), make([]uint32, blen+1)
	for i := 1; i <= alen; i++ {
		ai, row := a[i-1], (i-1)*blen
		for j := 1; j <= blen; j++ {
			above, left := prev[j], cur[j-1]
			if above > left {
				bit := row + j - 1
				up[bit>>6] |= 1 << (bit & 63)
			}
			if ai == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(above, left)
			}
		}
		prev, cur = cur, prev
	}
	idx := int(prev[blen])
	seq = make([]byte, idx)
	// Redis's walk (lcsCommand), transcribed: aStart == alen means no
	// range is open.
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0
	for i, j := alen, blen; i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			seq[idx-1] = a[i-1]
			switch {
			case aStart == alen:
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			case aStart == i && bStart == j: // contiguous: extend backwards
				aStart--
				bStart--
			default:
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true // matched a first byte: the walk ends here
			}
			idx--
			i--
			j--
		} else {
			if bit := (i-1)*blen + j - 1; up[bit>>6]&(1<<(bit&63)) != 0 {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			m := lcsMatch{aStart, aEnd, bStart, bEnd}
			if matches && (minLen == 0 || int64(m.len()) >= minLen) {
				ranges = append(ranges, m)
			}
			aStart = alen
		}
	}
	return seq, ranges
}
