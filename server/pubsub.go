package server

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/types"
)

// Pub/Sub, Redis 7.0's: channels (SUBSCRIBE, PUBLISH), glob patterns over
// channels (PSUBSCRIBE, matched by types.Match, Redis's stringmatchlen) and
// shard channels (SSUBSCRIBE, SPUBLISH), which without a cluster are a
// second, separate set of channels. The handlers are in cmd_pubsub.go.
//
// Delivery never waits for a subscriber. A publisher encodes each message
// once, through Reply, and hands the bytes to every subscriber's guardConn
// (sendMessage), which queues it for the connection's writer goroutine
// (output.go): the messages that gather while the writer writes leave in
// its next write, one system call for a burst, as Redis writes a client's
// pending output once per event-loop pass. A subscriber that leaves too
// much unread is cut off by the pubsub class's output limits. The writer
// starts at once, so a subscriber that sends nothing gets the message at
// once; the queue holds whole frames, and redcon flushes whole replies
// only, so a message never lands inside a reply.
//
// Order, as in Redis: a client's subscribe confirmations precede the
// messages of what it subscribed to, and no message follows its unsubscribe
// confirmation. Each client's subscriptions have their own lock; the
// subscribe handlers hold it while they register, write their
// confirmations and flush them, and a publisher delivers to a client under
// it, after checking that the client still has the subscription. Lock
// order: a client's subscriptions, then the hub; a publisher never holds
// the hub while it delivers.

// subKind is one of the three kinds of subscription.
type subKind uint8

const (
	channelSub subKind = iota // SUBSCRIBE
	patternSub                // PSUBSCRIBE
	shardSub                  // SSUBSCRIBE
	numSubKinds
)

// subKindNames are each kind's reply and message names.
var subKindNames = [numSubKinds]struct{ subscribe, unsubscribe, message string }{
	channelSub: {"subscribe", "unsubscribe", "message"},
	patternSub: {"psubscribe", "punsubscribe", "pmessage"},
	shardSub:   {"ssubscribe", "sunsubscribe", "smessage"},
}

// pubsubHub is the server's subscriptions: for each kind, the subscribers
// of each channel or pattern that has any.
type pubsubHub struct {
	mu     sync.RWMutex
	topics [numSubKinds]map[string]*topic
}

// topic is one channel or pattern and its subscribers.
type topic struct {
	name    []byte // the map's key, as bytes for types.Match
	clients map[*Client]struct{}
}

// add subscribes cl to name of kind k.
func (h *pubsubHub) add(k subKind, name []byte, cl *Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.topics[k] == nil {
		h.topics[k] = make(map[string]*topic)
	}
	t := h.topics[k][string(name)]
	if t == nil {
		t = &topic{name: slices.Clone(name), clients: make(map[*Client]struct{})}
		h.topics[k][string(t.name)] = t
	}
	t.clients[cl] = struct{}{}
}

// remove unsubscribes cl from name of kind k; a topic left without
// subscribers goes, as Redis drops the channel from its dict.
func (h *pubsubHub) remove(k subKind, name string, cl *Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[k][name]
	if t == nil {
		return
	}
	delete(t.clients, cl)
	if len(t.clients) == 0 {
		delete(h.topics[k], name)
	}
}

// count is the number of channels (or patterns) of kind k that have
// subscribers: INFO's pubsub_channels, pubsub_patterns and
// pubsubshard_channels, PUBSUB NUMPAT.
func (h *pubsubHub) count(k subKind) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.topics[k])
}

// subscribers is the number of clients subscribed to name of kind k.
func (h *pubsubHub) subscribers(k subKind, name []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if t := h.topics[k][string(name)]; t != nil {
		return len(t.clients)
	}
	return 0
}

// names lists the channels of kind k that match pattern (all of them when
// pattern is nil), in no particular order, as Redis's dict.
func (h *pubsubHub) names(k subKind, pattern []byte) [][]byte {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out [][]byte
	for _, t := range h.topics[k] {
		// No shortcut for "*": Redis's PUBSUB CHANNELS * leaves out the
		// empty channel, as stringmatchlen does.
		if pattern == nil || types.Match(pattern, t.name) {
			out = append(out, t.name)
		}
	}
	return out
}

// subscriptions are one client's. The client's own goroutine changes them
// (subscribe, unsubscribe, RESET, disconnect); publishers read them.
type subscriptions struct {
	mu sync.Mutex // guards names and seq; held while delivering to the client
	// names are the client's channels, patterns and shard channels, each
	// with the order it was subscribed in: an UNSUBSCRIBE without
	// arguments answers in that order.
	names [numSubKinds]map[string]uint64
	seq   uint64
	// counts are len(names[k]), for CLIENT LIST and the dispatcher without
	// the lock; total is their sum: > 0 is Redis's subscribed mode (flag P).
	counts [numSubKinds]atomic.Int32
	total  atomic.Int32
}

// subscribed reports whether the client is in subscribed mode: it has a
// channel, a pattern or a shard channel.
func (cl *Client) subscribed() bool { return cl.subs.total.Load() > 0 }

// replyCount is the count a (un)subscribe reply of kind k carries, as
// Redis 7.0 counts: channels and patterns together, shard channels apart.
// s.mu is held.
func (s *subscriptions) replyCount(k subKind) int64 {
	if k == shardSub {
		return int64(len(s.names[shardSub]))
	}
	return int64(len(s.names[channelSub]) + len(s.names[patternSub]))
}

// setCounts publishes the counts after a change, and moves the client's
// connection between the normal and pubsub output classes. s.mu is held.
func (s *subscriptions) setCounts(cl *Client) {
	var total int32
	for k := range numSubKinds {
		n := int32(len(s.names[k]))
		s.counts[k].Store(n)
		total += n
	}
	s.total.Store(total)
	if cl.out != nil {
		cl.out.g.pubsub.Store(total > 0)
	}
}

// ordered returns the client's names of kind k in subscription order.
// s.mu is held.
func (s *subscriptions) ordered(k subKind) [][]byte {
	names := make([]string, 0, len(s.names[k]))
	for n := range s.names[k] {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(s.names[k][a], s.names[k][b]) })
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = []byte(n)
	}
	return out
}

// pushConn is the connection a subscribe reply goes to: the command's, but
// never a mutedConn, as Redis 7.0 sends pub/sub replies and messages
// whatever CLIENT REPLY says.
func (c *Ctx) pushConn() Reply {
	r := c.Reply()
	if m, ok := c.Conn.(mutedConn); ok {
		r.conn = m.Conn
	}
	return r
}

// confirm writes one (un)subscribe reply: its kind's name, the channel
// (a null when nil: an unsubscribe from nothing) and the count.
func confirm(r Reply, kind string, name []byte, count int64) {
	r.Push(3)
	r.BulkString(kind)
	if name == nil {
		r.Null()
	} else {
		r.Bulk(name)
	}
	r.Int(count)
}

// subscribe subscribes the client to names of kind k, replying one
// confirmation for each, and flushes the confirmations before any message
// can follow them.
func (c *Ctx) subscribe(k subKind, names [][]byte) {
	cl := c.Client
	s := &cl.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.names[k] == nil {
		s.names[k] = make(map[string]uint64)
	}
	r := c.pushConn()
	for _, name := range names {
		if _, ok := s.names[k][string(name)]; !ok {
			s.seq++
			s.names[k][string(name)] = s.seq
			c.Srv.pubsub.add(k, name, cl)
		}
		confirm(r, subKindNames[k].subscribe, name, s.replyCount(k))
	}
	s.setCounts(cl)
	// Publishers write to the socket directly, so the confirmations leave
	// now, while s.mu holds them back. No pipeline group is open: a
	// command that cannot join one commits it before it runs. Inside EXEC
	// they wait for the rest of EXEC's reply, which a flush would cut in
	// two: a message may then come before them, never inside a reply.
	if w := redcon.BaseWriter(cl.conn); w != nil && !cl.atomicRun.active {
		_ = w.Flush()
	}
}

// unsubscribe unsubscribes the client from names of kind k, or from all of
// that kind when names is empty, replying one confirmation for each; from
// nothing, one with a null channel.
func (c *Ctx) unsubscribe(k subKind, names [][]byte) {
	cl := c.Client
	s := &cl.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	r := c.pushConn()
	if len(names) == 0 {
		if names = s.ordered(k); len(names) == 0 {
			confirm(r, subKindNames[k].unsubscribe, nil, s.replyCount(k))
		}
	}
	for _, name := range names {
		if _, ok := s.names[k][string(name)]; ok {
			delete(s.names[k], string(name))
			c.Srv.pubsub.remove(k, string(name), cl)
		}
		confirm(r, subKindNames[k].unsubscribe, name, s.replyCount(k))
	}
	s.setCounts(cl)
}

// unsubscribeAll drops every subscription of cl without a reply: on RESET
// and when its connection ends.
func (s *Server) unsubscribeAll(cl *Client) {
	subs := &cl.subs
	subs.mu.Lock()
	defer subs.mu.Unlock()
	for k := range numSubKinds {
		for name := range subs.names[k] {
			s.pubsub.remove(k, name, cl)
		}
		subs.names[k] = nil
	}
	subs.setCounts(cl)
}

// publish sends msg on channel to the subscribers of kind k (channelSub or
// shardSub) and, for a channel, to those of every matching pattern; it
// returns how many received it, as PUBLISH replies. A client subscribed to
// the channel and to matching patterns gets a message for each, the
// channel's first.
func (s *Server) publish(k subKind, channel, msg []byte) int64 {
	dp := deliveryPool.Get().(*[]delivery)
	ds := (*dp)[:0]
	h := &s.pubsub
	h.mu.RLock()
	if t := h.topics[k][string(channel)]; t != nil {
		for cl := range t.clients {
			ds = append(ds, delivery{cl, t, k})
		}
	}
	if k == channelSub {
		for _, t := range h.topics[patternSub] {
			if types.Match(t.name, channel) {
				for cl := range t.clients {
					ds = append(ds, delivery{cl, t, patternSub})
				}
			}
		}
	}
	h.mu.RUnlock()

	var n int64
	f := framePool.Get().(*frame)
	var last *topic
	var push3 []byte // f.b as a RESP3 push, made when a RESP3 client needs it
	for _, d := range ds {
		if d.t != last { // deliveries come grouped by topic: one encoding each
			last = d.t
			f.b, push3 = f.b[:0], push3[:0]
			r := Reply{conn: f}
			if d.kind == patternSub {
				r.Push(4)
				r.BulkString(subKindNames[patternSub].message)
				r.Bulk(d.t.name)
			} else {
				r.Push(3)
				r.BulkString(subKindNames[k].message)
			}
			r.Bulk(channel)
			r.Bulk(msg)
		}
		out := f.b
		if d.cl.resp3.Load() {
			// The push differs from the array in its first byte only.
			if len(push3) == 0 {
				push3 = append(append(push3, '>'), f.b[1:]...)
			}
			out = push3
		}
		if d.cl.deliver(d.kind, d.t.name, out) {
			n++
		}
	}
	clear(ds) // the pool must not keep clients alive
	*dp = ds[:0]
	deliveryPool.Put(dp)
	if cap(f.b) <= maxPooledFrame {
		framePool.Put(f)
	}
	return n
}

// delivery is one message owed to one client: for its subscription to t,
// of kind kind.
type delivery struct {
	cl   *Client
	t    *topic
	kind subKind
}

// maxPooledFrame bounds the frame buffers kept for reuse: one large
// message must not pin its size.
const maxPooledFrame = 64 << 10

var (
	deliveryPool = sync.Pool{New: func() any { return new([]delivery) }}
	framePool    = sync.Pool{New: func() any { return new(frame) }}
)

// deliver sends frame, a message for the client's subscription to name of
// kind k, unless the client dropped that subscription since the publisher
// looked (then it reports false). The frame is copied into the client's
// output before deliver returns.
func (cl *Client) deliver(k subKind, name, frame []byte) bool {
	s := &cl.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.names[k][string(name)]; !ok {
		return false
	}
	// An error means the connection is closing or cut off: Redis counts
	// such a subscriber as a receiver too, until it is freed.
	cl.sendFrame(frame)
	return true
}

// sendFrame queues frame, whole encoded messages, for the client's
// connection (guardConn.sendMessage), outside any reply: pub/sub messages
// and client-tracking invalidations (tracking.go).
func (cl *Client) sendFrame(frame []byte) {
	if cl.out != nil {
		_ = cl.out.g.sendMessage(frame)
	} else if nc := cl.netConn; nc != nil {
		// No guardConn (a connection not accepted by guardListener, in
		// tests): nothing to queue in, so the write may wait.
		_, _ = nc.Write(frame)
	}
}

// frame encodes replies into bytes, for a message encoded once for all its
// subscribers: a redcon.Conn whose writes append to b. It implements the
// writes Reply makes; any other method of the nil Conn it embeds panics.
type frame struct {
	redcon.Conn
	b []byte
}

func (f *frame) WriteArray(n int)         { f.b = redcon.AppendArray(f.b, n) }
func (f *frame) WriteBulk(b []byte)       { f.b = redcon.AppendBulk(f.b, b) }
func (f *frame) WriteBulkString(s string) { f.b = redcon.AppendBulkString(f.b, s) }
func (f *frame) WriteInt64(n int64)       { f.b = redcon.AppendInt(f.b, n) }
func (f *frame) WriteNull()               { f.b = redcon.AppendNull(f.b) }
func (f *frame) WriteRaw(b []byte)        { f.b = append(f.b, b...) }

// subscribedModeError is Redis 7.0's refusal of cmd (sub: its subcommand's
// index, or -1) from a client in subscribed mode, or "" when cmd may run:
// a RESP2 subscriber may only (un)subscribe, PING, QUIT and RESET. The
// dispatcher calls it after authentication, where Redis checks. A RESP3
// client may run anything: its messages are pushes, which no reply can be
// mistaken for.
func subscribedModeError(cl *Client, cmd *Command, sub int) replyError {
	if !cl.subscribed() || cl.resp3.Load() {
		return ""
	}
	switch cmd.Name {
	case "subscribe", "ssubscribe", "psubscribe", "unsubscribe", "sunsubscribe", "punsubscribe", "ping", "quit", "reset":
		return ""
	}
	name := cmd.Name
	if sub >= 0 && !cmd.PrivateSubcommands {
		name += "|" + cmd.Subcommands[sub].Name
	}
	return errSubscribedMode(name)
}

// replySubscribedPing is PING's reply to a RESP2 client in subscribed
// mode, Redis's pub/sub shape: an array of "pong" and the message ("" without
// one). RESP3 clients get PING's usual reply.
func replySubscribedPing(c *Ctx, args [][]byte) {
	r := c.Reply()
	r.Array(2)
	r.BulkString("pong")
	if len(args) > 1 {
		r.Bulk(args[1])
	} else {
		r.BulkString("")
	}
}
