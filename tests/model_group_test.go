package tests

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// The model's consumer groups (model_test.go, model_stream_test.go): each
// group's last delivered ID, its consumers and its pending entries, for
// XGROUP CREATE and DESTROY, XREADGROUP ">", XACK and XPENDING's summary,
// whose replies depend on no clock. Each group, consumer and pending entry
// is a sub-key record (two for a pending entry: the group's and the
// consumer's), which the record counts check.

// mgroup is the model of a consumer group.
type mgroup struct {
	last      mid
	consumers map[string]bool
	pending   map[mid]string // ID -> the consumer that holds it
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
	var g *mgroup
	if v != nil {
		g = v.stream.groups[a[2]] // XACK, XPENDING, XREADGROUP GROUP g c
		if a[0] == "XGROUP" {
			g = v.stream.groups[a[3]]
		}
	}
	switch a[0] {
	case "XGROUP":
		name := a[3]
		switch {
		case v == nil && (a[1] != "CREATE" || len(a) < 6):
			return errXGroupNoKey
		case a[1] == "DESTROY":
			if g == nil {
				return int64(0)
			}
			delete(v.stream.groups, name)
			return int64(1)
		case g != nil:
			return errBusyGroup
		}
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
		v.stream.groups[name] = &mgroup{last: last, consumers: map[string]bool{}, pending: map[mid]string{}}
		return modelOK
	case "XREADGROUP": // XREADGROUP GROUP g c COUNT n STREAMS key >
		if g == nil {
			return errText(fmt.Sprintf("NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option", key, a[2]))
		}
		count, _ := strconv.Atoi(a[5])
		var read []any
		for _, e := range v.stream.entries {
			if e.id.compare(g.last) <= 0 {
				continue
			}
			if len(read) == count {
				break
			}
			read = append(read, []any{e.id.String(), strsToAny(e.items)})
			g.pending[e.id] = a[3]
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
	case "XPENDING":
		if g == nil {
			return errText(fmt.Sprintf("NOGROUP No such key '%s' or consumer group '%s'", key, a[2]))
		}
		if len(g.pending) == 0 {
			return []any{int64(0), nil, nil, nil}
		}
		ids := slices.SortedFunc(maps.Keys(g.pending), mid.compare)
		per := map[string]int{}
		for _, c := range g.pending {
			per[c]++
		}
		consumers := []any{}
		for _, c := range slices.Sorted(maps.Keys(per)) {
			consumers = append(consumers, []any{c, strconv.Itoa(per[c])})
		}
		return []any{int64(len(ids)), ids[0].String(), ids[len(ids)-1].String(), consumers}
	}
	panic("model: no consumer-group semantics for " + a[0])
}

// pickGroup makes a consumer-group step in db, from rng's draws. The
// model's keys change type and vanish all the time, so it looks at the
// model to make progress: most often a transaction that makes a group (if
// it is missing), adds news, reads them for a consumer, and acknowledges
// some, with XPENDING's summary between; otherwise one command on a
// stream of db (or key), which may meet a missing group or another type.
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
	consumer := "c" + strconv.Itoa(intn(3))
	read := []string{"XREADGROUP", "GROUP", group, consumer, "COUNT", strconv.Itoa(1 + intn(3)), "STREAMS", key, ">"}
	pending := []string{"XPENDING", key, group}
	// ack acknowledges some of the stream's entries, and one ID at random.
	ack := func() []string {
		args := []string{"XACK", key, group}
		if v := g.m.dbs[db][key]; v != nil && v.typ == "stream" && len(v.stream.entries) > 0 {
			for range 1 + intn(3) {
				args = append(args, v.stream.entries[intn(len(v.stream.entries))].id.String())
			}
		}
		return append(args, fmt.Sprintf("%d-%d", 1+intn(6), intn(3)))
	}
	cmd := func(args []string) modelOp { return modelOp{kind: opCmd, db: db, args: args} }
	switch {
	case x < 10:
		txn := []modelOp{cmd([]string{"XGROUP", "CREATE", key, group, []string{"0", "$"}[intn(2)], "MKSTREAM"})}
		for range intn(3) {
			txn = append(txn, cmd(pickStream(intn(30), key, intn, one))) // XADDs
		}
		txn = append(txn, cmd(read), cmd(pending), cmd(ack()), cmd(pending))
		return modelOp{kind: opMulti, db: db, txn: txn, badAt: len(txn)}
	case x < 11:
		return cmd([]string{"XGROUP", "DESTROY", key, group})
	case x < 12:
		return cmd(ack())
	case x < 14:
		return cmd(read)
	}
	return cmd(pending)
}
