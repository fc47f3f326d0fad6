package geo

// PartialSort sorts the elements lo..hi (inclusive indexes) of a sequence
// of n into place as Redis's pqsort does, which GEOSEARCH uses when COUNT
// keeps fewer points than it found: a Bentley-McIlroy quicksort (NetBSD's
// qsort) that skips the partitions outside lo..hi. It is not stable, and
// it is ported step for step, so that points at equal distances come out
// in Redis's order. cmp returns <0, 0 or >0; swap exchanges two elements.
func PartialSort(n int, cmp func(i, j int) int, swap func(i, j int), lo, hi int) {
	pqsort(0, n, cmp, swap, lo, hi)
}

// med3 is the index of the median of a, b and c.
func med3(a, b, c int, cmp func(i, j int) int) int {
	if cmp(a, b) < 0 {
		if cmp(b, c) < 0 {
			return b
		}
		if cmp(a, c) < 0 {
			return c
		}
		return a
	}
	if cmp(b, c) > 0 {
		return b
	}
	if cmp(a, c) < 0 {
		return a
	}
	return c
}

// pqsort sorts the n elements from a; indexes are absolute.
func pqsort(a, n int, cmp func(i, j int) int, swap func(i, j int), lo, hi int) {
	vecswap := func(x, y, k int) {
		for i := range k {
			swap(x+i, y+i)
		}
	}
	for {
		if n < 7 {
			for pm := a + 1; pm < a+n; pm++ {
				for pl := pm; pl > a && cmp(pl-1, pl) > 0; pl-- {
					swap(pl, pl-1)
				}
			}
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d, cmp)
				pm = med3(pm-d, pm, pm+d, cmp)
				pn = med3(pn-2*d, pn-d, pn, cmp)
			}
			pm = med3(pl, pm, pn, cmp)
		}
		swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := cmp(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		// outside: the partition start..start+k-1 lies wholly before or
		// wholly after lo..hi, so its order does not matter.
		outside := func(start, k int) bool {
			end := start + k - 1
			return (lo < start && hi < start) || (lo > end && hi > end)
		}
		if r = pb - pa; r > 1 && !outside(a, r) {
			pqsort(a, r, cmp, swap, lo, hi)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		// Iterate rather than recurse, as Redis does.
		a, n = pn-r, r
		if outside(a, n) {
			return
		}
	}
}
