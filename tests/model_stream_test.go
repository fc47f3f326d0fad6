package tests

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The model's streams (model_test.go): entries by ID, and the header that
// XINFO STREAM shows. The generator uses explicit IDs only, "ms-seq" and
// "ms-*", with small ms, so that replies do not depend on the clock and
// IDs collide often (XADD's "equal or smaller" error); exact trims only,
// as "~" depends on Redis's node layout.

// mid is a stream ID.
type mid struct{ ms, seq uint64 }

func (id mid) String() string { return fmt.Sprintf("%d-%d", id.ms, id.seq) }

func (id mid) compare(o mid) int { return cmp.Or(cmp.Compare(id.ms, o.ms), cmp.Compare(id.seq, o.seq)) }

// parseMid reads an ID as the generator writes it: "ms-seq" or "ms" (seq
// missing, as missingSeq).
func parseMid(s string, missingSeq uint64) mid {
	msPart, seqPart, dash := strings.Cut(s, "-")
	ms, _ := strconv.ParseUint(msPart, 10, 64)
	if !dash {
		return mid{ms, missingSeq}
	}
	seq, _ := strconv.ParseUint(seqPart, 10, 64)
	return mid{ms, seq}
}

// mentry is one stream entry.
type mentry struct {
	id    mid
	items []string
}

// mstream is the model of a stream.
type mstream struct {
	entries         []mentry // in ID order
	last, maxDelete mid
	added           int64
	groups          map[string]*mgroup // by name (model_group_test.go)
}

func (s *mstream) clone() *mstream {
	if s == nil {
		return nil
	}
	c := *s
	c.entries = slices.Clone(s.entries)
	c.groups = cloneGroups(s.groups)
	return &c
}

// first is recorded-first-entry-id: 0-0 when empty.
func (s *mstream) first() mid {
	if len(s.entries) == 0 {
		return mid{}
	}
	return s.entries[0].id
}

// rangeReply is XRANGE key - +: [[id, [field, value ...]] ...].
func (s *mstream) rangeReply() []any {
	out := []any{}
	for _, e := range s.entries {
		out = append(out, []any{e.id.String(), strsToAny(e.items)})
	}
	return out
}

// trimWhile drops the first entries while drop says so (i counts those
// dropped before e), and returns how many went.
func (s *mstream) trimWhile(drop func(i int, e mentry) bool) int64 {
	n := 0
	for n < len(s.entries) && drop(n, s.entries[n]) {
		n++
	}
	s.entries = s.entries[n:]
	return int64(n)
}

// applyStream runs a stream command on the model; v is the key's value
// (nil when absent, and of type stream otherwise: apply checked), create
// makes a new one.
func applyStream(a []string, v *mval, create func(t string) *mval) any {
	switch a[0] {
	case "XADD":
		i, noMk, maxLen := 2, false, -1
		for ; ; i++ {
			switch a[i] {
			case "NOMKSTREAM":
				noMk = true
				continue
			case "MAXLEN":
				maxLen, _ = strconv.Atoi(a[i+1])
				i++
				continue
			}
			break
		}
		if v == nil {
			if noMk {
				return nil
			}
			v = create("stream")
		}
		s := v.stream
		idArg := a[i]
		var id mid
		if ms, partial := strings.CutSuffix(idArg, "-*"); partial {
			id.ms, _ = strconv.ParseUint(ms, 10, 64)
			if id.ms == s.last.ms {
				id.seq = s.last.seq + 1
			}
		} else {
			id = parseMid(idArg, 0)
		}
		if id.compare(s.last) <= 0 {
			return errText("ERR The ID specified in XADD is equal or smaller than the target stream top item")
		}
		s.entries = append(s.entries, mentry{id, slices.Clone(a[i+1:])})
		s.last = id
		s.added++
		if maxLen >= 0 {
			s.trimWhile(func(i int, _ mentry) bool { return len(s.entries)-i > maxLen })
		}
		return id.String()
	case "XDEL":
		if v == nil {
			return int64(0)
		}
		s := v.stream
		var n int64
		for _, arg := range a[2:] {
			id := parseMid(arg, 0)
			if i := slices.IndexFunc(s.entries, func(e mentry) bool { return e.id == id }); i >= 0 {
				s.entries = slices.Delete(s.entries, i, i+1)
				n++
				if id.compare(s.maxDelete) > 0 {
					s.maxDelete = id
				}
			}
		}
		return n
	case "XTRIM":
		if v == nil {
			return int64(0)
		}
		s := v.stream
		if a[2] == "MAXLEN" {
			maxLen, _ := strconv.Atoi(a[3])
			return s.trimWhile(func(i int, _ mentry) bool { return len(s.entries)-i > maxLen })
		}
		minID := parseMid(a[3], 0)
		return s.trimWhile(func(_ int, e mentry) bool { return e.id.compare(minID) < 0 })
	case "XLEN":
		if v == nil {
			return int64(0)
		}
		return int64(len(v.stream.entries))
	case "XRANGE":
		if v == nil {
			return []any{}
		}
		return v.stream.rangeReply()
	}
	panic("model: no stream semantics for " + a[0])
}

// pickStream makes a stream command on key, from rng's draws.
func pickStream(x int, key string, intn func(int) int, one func([]string) string) []string {
	id := func() string {
		if intn(3) == 0 {
			return strconv.Itoa(1+intn(6)) + "-*"
		}
		return fmt.Sprintf("%d-%d", 1+intn(6), intn(3))
	}
	switch {
	case x < 30:
		args := []string{"XADD", key}
		if intn(8) == 0 {
			args = append(args, "NOMKSTREAM")
		}
		if intn(4) == 0 {
			args = append(args, "MAXLEN", strconv.Itoa(intn(4)))
		}
		args = append(args, id())
		for range 1 + intn(2) {
			args = append(args, one(modelFields), "v"+strconv.Itoa(intn(100)))
		}
		return args
	case x < 45:
		args := []string{"XDEL", key}
		for range 1 + intn(3) {
			args = append(args, fmt.Sprintf("%d-%d", 1+intn(6), intn(3)))
		}
		return args
	case x < 55:
		if intn(2) == 0 {
			return []string{"XTRIM", key, "MAXLEN", strconv.Itoa(intn(4))}
		}
		return []string{"XTRIM", key, "MINID", fmt.Sprintf("%d-%d", 1+intn(6), intn(3))}
	case x < 60:
		return []string{"XLEN", key}
	}
	return []string{"XRANGE", key, "-", "+"}
}

// xinfoIs matches XINFO STREAM's reply (RESP2, a flat array) against the
// model's header: length, last-generated-id, max-deleted-entry-id,
// entries-added, recorded-first-entry-id. The radix tree's fields are
// Redis's internals, not compared.
func xinfoIs(s *mstream) matcher {
	return fieldsAre{
		"length": int64(len(s.entries)), "last-generated-id": s.last.String(),
		"max-deleted-entry-id": s.maxDelete.String(), "entries-added": s.added,
		"recorded-first-entry-id": s.first().String(),
	}
}
