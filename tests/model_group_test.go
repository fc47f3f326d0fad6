package tests

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// The model's consumer groups (model_test.go, model_stream_test.go): each
// group's last delivered ID, its consumers and its pending entries, for
// XGROUP (CREATE, DESTROY, SETID, CREATECONSUMER, DELCONSUMER), XREADGROUP
// of new entries (">") and of a consumer's own pending ones (an ID), XACK,
// XCLAIM and XAUTOCLAIM with a minimum idle time of 0, and XPENDING. The
// one reply that depends on the clock, an entry's idle time, is matched by
// anyInt. Each group, consumer and pending entry is a sub-key record (two
// for a pending entry: the group's and the consumer's), which the record
// counts check.

// mgroup is the model of a consumer group.
type mgroup struct {
	last      mid
	consumers map[string]bool
	pending   map[mid]mnack
}

// mnack is a pending entry: the consumer that holds it and how many times
// it was delivered.
type mnack struct {
	consumer   string
	deliveries int64
}

// groupRecords is the number of sub-key records of s's groups.
func (s *mstream) groupRecords() int {
	n := 0
	for _, g := range s.groups {
		n += 1 + len(g.consumers) + 2*len(g.pending)
	}
	return n
}

// cloneGroups deep-copies a stream's groups.
func cloneGroups(gs map[string]*mgroup) map[string]*mgroup {
	if gs == nil {
		return nil
	}
	out := make(map[string]*mgroup, len(gs))
	for name, g := range gs {
		out[name] = &mgroup{last: g.last, consumers: maps.Clone(g.consumers), pending: maps.Clone(g.pending)}
	}
	return out
}

// applyGroup runs a consumer-group command on the model's database db.
func applyGroup(db map[string]*mval, a []string) any {
	key := a[1]
	switch a[0] {
	case "XGROUP":
		key = a[2]
	case "XREADGROUP":
		key = a[len(a)-2]
	}
	v := db[key]
	if v != nil && v.typ != "stream" {
		return modelWrongType
	}
	var s *mstream
	var g *mgroup
	if v != nil {
		s = v.stream
		g = s.groups[a[2]] // XACK, XPENDING, XCLAIM, XAUTOCLAIM, XREADGROUP GROUP g c
		if a[0] == "XGROUP" {
			g = s.groups[a[3]]
		}
	}
	noGroup := errText(fmt.Sprintf("NOGROUP No such key '%s' or consumer group '%s'", key, a[2]))
	switch a[0] {
	case "XGROUP":
		return applyXGroup(db, v, g, a)
	case "XREADGROUP": // XREADGROUP GROUP g c COUNT n STREAMS key id
		if g == nil {
			return errText(string(noGroup) + " in XREADGROUP with GROUP option")
		}
		count, _ := strconv.Atoi(a[5])
		if a[len(a)-1] != ">" {
			return []any{[]any{key, s.readHistory(g, a[3], parseMid(a[len(a)-1], 0), count)}}
		}
		var read []any
		for _, e := range s.entries {
			if e.id.compare(g.last) <= 0 {
				continue
			}
			if len(read) == count {
				break
			}
			read = append(read, []any{e.id.String(), strsToAny(e.items)})
			// An entry pending already (SETID moved the group back) moves
			// to this consumer and counts from 1 again.
			g.pending[e.id] = mnack{a[3], 1}
			g.last = e.id
		}
		if len(read) == 0 {
			return nil // nothing new: no consumer is made
		}
		g.consumers[a[3]] = true
		return []any{[]any{key, read}}
	case "XACK":
		if g == nil {
			return int64(0)
		}
		var n int64
		for _, arg := range a[3:] {
			id := parseMid(arg, 0)
			if _, has := g.pending[id]; has {
				delete(g.pending, id)
				n++
			}
		}
		return n
	case "XCLAIM": // XCLAIM key g c 0 id... [JUSTID]
		if g == nil {
			return noGroup
		}
		justID := a[len(a)-1] == "JUSTID"
		ids := a[5:]
		if justID {
			ids = ids[:len(ids)-1]
		}
		claimed := []any{}
		for _, arg := range ids {
			if e, ok := s.claim(g, a[3], parseMid(arg, 0), justID); ok {
				claimed = append(claimed, e)
			}
		}
		return claimed
	case "XAUTOCLAIM": // XAUTOCLAIM key g c 0 start COUNT n [JUSTID]
		if g == nil {
			return noGroup
		}
		start := parseMid(a[5], 0)
		count, _ := strconv.Atoi(a[7])
		justID := a[len(a)-1] == "JUSTID"
		claimed, deleted := []any{}, []any{}
		next := mid{}
		for _, id := range g.pendingIDs() {
			if id.compare(start) < 0 {
				continue
			}
			if count == 0 {
				next = id
				break
			}
			count--
			if e, ok := s.claim(g, a[3], id, justID); ok {
				claimed = append(claimed, e)
			} else {
				deleted = append(deleted, id.String())
			}
		}
		return []any{next.String(), claimed, deleted}
	case "XPENDING":
		if g == nil {
			return noGroup
		}
		if len(a) > 3 { // XPENDING key g - + count [consumer]
			count, _ := strconv.Atoi(a[5])
			rows := []any{}
			for _, id := range g.pendingIDs() {
				n := g.pending[id]
				if len(rows) == count {
					break
				}
				if len(a) == 7 && n.consumer != a[6] {
					continue
				}
				rows = append(rows, []any{id.String(), n.consumer, anyInt, n.deliveries})
			}
			return rows
		}
		if len(g.pending) == 0 {
			return []any{int64(0), nil, nil, nil}
		}
		ids := g.pendingIDs()
		per := map[string]int{}
		for _, n := range g.pending {
			per[n.consumer]++
		}
		consumers := []any{}
		for _, c := range slices.Sorted(maps.Keys(per)) {
			consumers = append(consumers, []any{c, strconv.Itoa(per[c])})
		}
		return []any{int64(len(ids)), ids[0].String(), ids[len(ids)-1].String(), consumers}
	}
	panic("model: no consumer-group semantics for " + a[0])
}

// applyXGroup runs an XGROUP subcommand on key's value v (nil: absent, or
// a stream) and its group g (nil: none of that name).
func applyXGroup(db map[string]*mval, v *mval, g *mgroup, a []string) any {
	key, name := a[2], a[3]
	switch {
	case v == nil && (a[1] != "CREATE" || len(a) < 6):
		return errXGroupNoKey
	case a[1] == "CREATE" && g != nil:
		return errBusyGroup
	case a[1] == "DESTROY":
		if g == nil {
			return int64(0)
		}
		delete(v.stream.groups, name)
		return int64(1)
	case a[1] == "CREATE":
		if v == nil { // MKSTREAM
			v = &mval{typ: "stream", hash: map[string]string{}, set: map[string]bool{}, zset: map[string]float64{}, stream: &mstream{}}
			db[key] = v
		}
		last := v.stream.last
		if a[4] != "$" {
			last = parseMid(a[4], 0)
		}
		if v.stream.groups == nil {
			v.stream.groups = map[string]*mgroup{}
		}
		v.stream.groups[name] = &mgroup{last: last, consumers: map[string]bool{}, pending: map[mid]mnack{}}
		return modelOK
	case g == nil:
		return errText(fmt.Sprintf("NOGROUP No such consumer group '%s' for key name '%s'", name, key))
	case a[1] == "SETID":
		g.last = v.stream.last
		if a[4] != "$" {
			g.last = parseMid(a[4], 0)
		}
		return modelOK
	case a[1] == "CREATECONSUMER":
		if g.consumers[a[4]] {
			return int64(0)
		}
		g.consumers[a[4]] = true
		return int64(1)
	case a[1] == "DELCONSUMER":
		if !g.consumers[a[4]] {
			return int64(0)
		}
		var n int64
		for id, p := range g.pending {
			if p.consumer == a[4] {
				delete(g.pending, id)
				n++
			}
		}
		delete(g.consumers, a[4])
		return n
	}
	panic("model: no semantics for XGROUP " + a[1])
}

// pendingIDs returns the IDs of g's pending entries in order.
func (g *mgroup) pendingIDs() []mid { return slices.SortedFunc(maps.Keys(g.pending), mid.compare) }

// entry returns s's entry of ID id, if there is one.
func (s *mstream) entry(id mid) (mentry, bool) {
	i, found := slices.BinarySearchFunc(s.entries, id, func(e mentry, id mid) int { return e.id.compare(id) })
	if !found {
		return mentry{}, false
	}
	return s.entries[i], true
}

// readHistory is XREADGROUP of consumer's own pending entries after after,
// at most count: each is delivered once more, and one that left the stream
// (XDEL, XTRIM) is answered with its ID and nil, and stays pending. The
// consumer is made even when it has none.
func (s *mstream) readHistory(g *mgroup, consumer string, after mid, count int) []any {
	g.consumers[consumer] = true
	read := []any{}
	for _, id := range g.pendingIDs() {
		n := g.pending[id]
		if n.consumer != consumer || id.compare(after) <= 0 {
			continue
		}
		if len(read) == count {
			break
		}
		e, ok := s.entry(id)
		if !ok {
			read = append(read, []any{id.String(), nil})
			continue
		}
		n.deliveries++
		g.pending[id] = n
		read = append(read, []any{id.String(), strsToAny(e.items)})
	}
	return read
}

// claim is XCLAIM's and XAUTOCLAIM's work on one ID, with a minimum idle
// time of 0: a pending entry still in the stream moves to consumer (made if
// need be), delivered once more unless justID, and its reply is returned;
// one that left the stream leaves the group's pending entries, and ok is
// false.
func (s *mstream) claim(g *mgroup, consumer string, id mid, justID bool) (reply any, ok bool) {
	n, pending := g.pending[id]
	if !pending {
		return nil, false
	}
	e, ok := s.entry(id)
	if !ok {
		delete(g.pending, id)
		return nil, false
	}
	if !justID {
		n.deliveries++
	}
	g.pending[id] = mnack{consumer, n.deliveries}
	g.consumers[consumer] = true
	if justID {
		return id.String(), true
	}
	return []any{id.String(), strsToAny(e.items)}, true
}

// addGroupProbes adds through add the reads that check the groups of s,
// the stream at k: XINFO GROUPS (each group's consumers, pending entries
// and last delivered ID; entries-read and lag are not modelled), and for
// each group XINFO CONSUMERS (their pending entries) and every pending
// entry's consumer and delivery count.
func addGroupProbes(add func(want any, args ...any), k string, s *mstream) {
	groups := []any{}
	for _, name := range slices.Sorted(maps.Keys(s.groups)) {
		g := s.groups[name]
		groups = append(groups, fieldsAre{"name": name, "consumers": int64(len(g.consumers)),
			"pending": int64(len(g.pending)), "last-delivered-id": g.last.String()})
		per := map[string]int64{}
		for _, n := range g.pending {
			per[n.consumer]++
		}
		consumers := []any{}
		for _, c := range slices.Sorted(maps.Keys(g.consumers)) {
			consumers = append(consumers, []any{"name", c, "pending", per[c], "idle", anyInt})
		}
		add(consumers, "XINFO", "CONSUMERS", k, name)
		rows := []any{}
		for _, id := range g.pendingIDs() {
			n := g.pending[id]
			rows = append(rows, []any{id.String(), n.consumer, anyInt, n.deliveries})
		}
		add(rows, "XPENDING", k, name, "-", "+", len(rows)+1)
	}
	add(groups, "XINFO", "GROUPS", k)
}

// fieldsAre matches a reply of field and value pairs (RESP2's flat array)
// that holds these fields with these values, and maybe others.
type fieldsAre map[string]any

func (f fieldsAre) match(got any) string {
	g, isArr := got.([]any)
	if !isArr || len(g)%2 != 0 {
		return "want an array of pairs"
	}
	seen := 0
	for i := 0; i < len(g); i += 2 {
		name := fmt.Sprint(g[i])
		if w, ok := f[name]; ok {
			seen++
			if why := matchValue(w, g[i+1]); why != "" {
				return name + ": " + why
			}
		}
	}
	if seen != len(f) {
		return "fields missing"
	}
	return ""
}

func (f fieldsAre) String() string { return fmt.Sprintf("<fields %v>", map[string]any(f)) }

// pickGroup makes a consumer-group step in db, from rng's draws. The
// model's keys change type and vanish all the time, so it looks at the
// model to make progress: most often a transaction that makes a group (if
// it is missing), adds news, reads them for a consumer, and acknowledges,
// claims or reads again some, with XPENDING between; otherwise one command
// on a stream of db (or key), which may meet a missing group or another
// type.
func (g *opGen) pickGroup(x, db int, key string, one func([]string) string) modelOp {
	intn := g.rng.IntN
	var streams []string
	for _, k := range slices.Sorted(maps.Keys(g.m.dbs[db])) {
		if g.m.dbs[db][k].typ == "stream" {
			streams = append(streams, k)
		}
	}
	if len(streams) > 0 && intn(4) != 0 {
		key = streams[intn(len(streams))]
	}
	group := "g0"
	if intn(4) == 0 {
		group = "g1"
	}
	consumer := func() string { return "c" + strconv.Itoa(intn(3)) }
	randomID := func() string { return fmt.Sprintf("%d-%d", 1+intn(6), intn(3)) }
	count := func() string { return strconv.Itoa(1 + intn(3)) }
	// read reads news, or now and then the consumer's own pending entries.
	read := func() []string {
		from := ">"
		if intn(3) == 0 {
			from = []string{"0", randomID()}[intn(2)]
		}
		return []string{"XREADGROUP", "GROUP", group, consumer(), "COUNT", count(), "STREAMS", key, from}
	}
	pending := func() []string {
		switch intn(3) {
		case 0:
			return []string{"XPENDING", key, group, "-", "+", "10"}
		case 1:
			return []string{"XPENDING", key, group, "-", "+", count(), consumer()}
		}
		return []string{"XPENDING", key, group}
	}
	// ids are some of the stream's entries, and one ID at random.
	ids := func() []string {
		var out []string
		if v := g.m.dbs[db][key]; v != nil && v.typ == "stream" && len(v.stream.entries) > 0 {
			for range 1 + intn(3) {
				out = append(out, v.stream.entries[intn(len(v.stream.entries))].id.String())
			}
		}
		return append(out, randomID())
	}
	justID := func(args []string) []string {
		if intn(2) == 0 {
			return append(args, "JUSTID")
		}
		return args
	}
	// settle acknowledges, claims, or reads a consumer's pending entries.
	settle := func() []string {
		switch intn(6) {
		case 0:
			return justID(append([]string{"XCLAIM", key, group, consumer(), "0"}, ids()...))
		case 1:
			return justID([]string{"XAUTOCLAIM", key, group, consumer(), "0", []string{"0", randomID()}[intn(2)], "COUNT", count()})
		case 2:
			return []string{"XREADGROUP", "GROUP", group, consumer(), "COUNT", count(), "STREAMS", key, "0"}
		}
		return append([]string{"XACK", key, group}, ids()...)
	}
	cmd := func(args []string) modelOp { return modelOp{kind: opCmd, db: db, args: args} }
	switch {
	case x < 10:
		txn := []modelOp{cmd([]string{"XGROUP", "CREATE", key, group, []string{"0", "$"}[intn(2)], "MKSTREAM"})}
		for range intn(3) {
			txn = append(txn, cmd(pickStream(intn(30), key, intn, one))) // XADDs
		}
		txn = append(txn, cmd(read()), cmd(pending()), cmd(settle()), cmd(pending()))
		return modelOp{kind: opMulti, db: db, txn: txn, badAt: len(txn)}
	case x < 11:
		switch intn(4) {
		case 0:
			return cmd([]string{"XGROUP", "DESTROY", key, group})
		case 1:
			return cmd([]string{"XGROUP", "SETID", key, group, []string{"0", "$", randomID()}[intn(3)]})
		case 2:
			return cmd([]string{"XGROUP", "CREATECONSUMER", key, group, consumer()})
		}
		return cmd([]string{"XGROUP", "DELCONSUMER", key, group, consumer()})
	case x < 12:
		return cmd(settle())
	case x < 14:
		return cmd(read())
	}
	return cmd(pending())
}
