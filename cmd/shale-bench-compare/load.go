package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shaledb/shale/cmd/internal/benchhost"
)

// The loads redis-benchmark 7.0 cannot express: a MULTI block per round
// trip (its -t tests send one command per request, and a custom command is
// one command) and pub/sub fan-out (it has no subscriber side). The harness
// drives them itself over raw connections, with requests encoded once and
// replies read by a minimal RESP reader, so that the client's own cost
// stays small beside the server's on the two shared cores.

// loadConfig sizes the Go-driven loads of one round.
type loadConfig struct {
	TxnClients  int           // connections sending MULTI blocks
	TxnSets     int           // SETs per transaction
	TxnFor      time.Duration // how long the clients send
	PubFanouts  []int         // subscriber counts, one test each
	Publishers  int           // connections publishing
	PubFor      time.Duration // how long they publish
	PubPayload  int           // bytes per message
	PubDrainMax time.Duration // bound on the wait for the last deliveries
}

// txnTest and publishTest name the loads' rows in the report.
func txnTest(sets int) string { return fmt.Sprintf("MULTI + %d SET + EXEC", sets) }
func publishTest(subs int) string {
	if subs == 1 {
		return "PUBLISH, 1 subscriber"
	}
	return fmt.Sprintf("PUBLISH, %d subscribers", subs)
}

// appendCommand appends args as a RESP array of bulk strings.
func appendCommand(dst []byte, args ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, "\r\n"...)
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, "\r\n"...)
		dst = append(dst, a...)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

// reply is what readReply keeps of one RESP2 reply: its type byte, its
// line (a status or error text, an integer or a length), and an array's
// elements.
type reply struct {
	Kind  byte // '+', '-', ':', '$', '*'
	Line  string
	Elems []reply
}

func (r reply) String() string {
	if r.Kind == '*' && r.Elems != nil {
		return fmt.Sprintf("*%s%v", r.Line, r.Elems)
	}
	return string(r.Kind) + r.Line
}

// maxReplyLen bounds the bulk and array lengths readReply accepts: the
// loads' replies are a few bytes, and a length past this means the stream
// is not what the load expects.
const maxReplyLen = 1 << 20

// readReply reads one RESP2 reply. Bulk contents are read and dropped.
func readReply(r *bufio.Reader) (reply, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return reply{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return reply{}, fmt.Errorf("bad reply line %q", line)
	}
	rep := reply{Kind: line[0], Line: string(line[1 : len(line)-2])}
	switch rep.Kind {
	case '+', '-', ':':
		return rep, nil
	case '$', '*':
	default:
		return reply{}, fmt.Errorf("bad reply line %q", line)
	}
	n, err := strconv.Atoi(rep.Line)
	if err != nil || n > maxReplyLen {
		return reply{}, fmt.Errorf("bad length in %q", line)
	}
	if n < 0 { // a null bulk or array
		return rep, nil
	}
	if rep.Kind == '$' {
		_, err := r.Discard(n + 2)
		return rep, err
	}
	rep.Elems = make([]reply, n)
	for i := range rep.Elems {
		if rep.Elems[i], err = readReply(r); err != nil {
			return reply{}, err
		}
	}
	return rep, nil
}

// dialLoad connects to addr for a load that ends at until, with a
// deadline a minute after it, so that a stalled server fails the load
// instead of hanging it.
func dialLoad(addr string, until time.Time) (net.Conn, *bufio.Reader, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	_ = c.SetDeadline(until.Add(time.Minute))
	return c, bufio.NewReaderSize(c, 64<<10), nil
}

// runTxnLoad runs cfg.TxnClients connections that each send, for
// cfg.TxnFor, MULTI, cfg.TxnSets SETs of random keys among keyspace and
// EXEC in one write, then read the replies before the next. RPS counts
// transactions per second; the latencies are one block's round trip.
func runTxnLoad(addr string, cfg loadConfig, keyspace int) (benchResult, error) {
	start := time.Now()
	stop := start.Add(cfg.TxnFor)
	var (
		mu        sync.Mutex
		latencies []float64 // milliseconds
		firstErr  error
		wg        sync.WaitGroup
	)
	for id := range cfg.TxnClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, err := txnClient(addr, id, cfg.TxnSets, keyspace, stop)
			mu.Lock()
			defer mu.Unlock()
			latencies = append(latencies, lat...)
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("%s client %d: %w", txnTest(cfg.TxnSets), id, err)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return benchResult{}, firstErr
	}
	elapsed := time.Since(start).Seconds()
	return latencyResult(txnTest(cfg.TxnSets), float64(len(latencies))/elapsed, latencies), nil
}

// txnClient is one connection of runTxnLoad; it returns each block's
// round trip in milliseconds.
func txnClient(addr string, id, sets, keyspace int, stop time.Time) ([]float64, error) {
	c, r, err := dialLoad(addr, stop)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(uint64(id), 0x5ba1e))
	var (
		buf       []byte
		key       = []byte("key:000000000000") // redis-benchmark's key:__rand_int__
		value     = []byte("xxx")              // and its default -d 3 value
		latencies []float64
	)
	for time.Now().Before(stop) {
		buf = appendCommand(buf[:0], []byte("MULTI"))
		for range sets {
			// The last 12 bytes: the key number, zero-padded as
			// redis-benchmark pads it.
			putPadded(key[len(key)-12:], rng.IntN(keyspace))
			buf = appendCommand(buf, []byte("SET"), key, value)
		}
		buf = appendCommand(buf, []byte("EXEC"))
		t0 := time.Now()
		if _, err := c.Write(buf); err != nil {
			return latencies, err
		}
		if err := readTxnReplies(r, sets); err != nil {
			return latencies, err
		}
		latencies = append(latencies, float64(time.Since(t0))/float64(time.Millisecond))
	}
	return latencies, nil
}

// readTxnReplies reads and checks the replies of one MULTI block: OK,
// QUEUED per SET, and EXEC's array of an OK per SET.
func readTxnReplies(r *bufio.Reader, sets int) error {
	want := func(what string, ok func(reply) bool) error {
		rep, err := readReply(r)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if !ok(rep) {
			return fmt.Errorf("%s: got %v", what, rep)
		}
		return nil
	}
	status := func(text string) func(reply) bool {
		return func(rep reply) bool { return rep.Kind == '+' && rep.Line == text }
	}
	if err := want("MULTI", status("OK")); err != nil {
		return err
	}
	for range sets {
		if err := want("SET", status("QUEUED")); err != nil {
			return err
		}
	}
	return want("EXEC", func(rep reply) bool {
		if rep.Kind != '*' || len(rep.Elems) != sets {
			return false
		}
		for _, e := range rep.Elems {
			if !status("OK")(e) {
				return false
			}
		}
		return true
	})
}

// latencyResult is a load's benchResult: its rate and the p50, p99 and
// p99.9 of its latencies (milliseconds; 0 when it has none).
func latencyResult(test string, rps float64, latencies []float64) benchResult {
	res := benchResult{Test: test, RPS: rps}
	if len(latencies) > 0 {
		s := append([]float64(nil), latencies...)
		slices.Sort(s)
		at := func(p float64) float64 { return s[benchhost.RankOf(int64(len(s)), p)-1] }
		res.P50, res.P99, res.P999 = at(50), at(99), at(99.9)
	}
	return res
}

// fanoutChannel is the channel of the publish loads.
const fanoutChannel = "bench:fanout"

// runPublishLoad subscribes subs connections to one channel, then runs
// cfg.Publishers connections that PUBLISH to it, one message per round
// trip, for cfg.PubFor. RPS counts messages delivered per second: the
// deliveries PUBLISH reported, which the subscribers must all receive,
// over the time from the first PUBLISH to the last delivery, so that a
// backlog still queued when the publishers stop is waited for and
// counted. The P50 and P99 are PUBLISH's own round trip.
func runPublishLoad(addr string, cfg loadConfig, subs int) (benchResult, error) {
	test := publishTest(subs)
	payload := bytes.Repeat([]byte("m"), cfg.PubPayload)
	// Every delivery is this frame, byte for byte: the subscribers check
	// the stream against it instead of parsing it.
	frame := appendCommand(nil, []byte("message"), []byte(fanoutChannel), payload)
	publish := appendCommand(nil, []byte("PUBLISH"), []byte(fanoutChannel), payload)
	stop := time.Now().Add(cfg.PubFor)
	deadline := stop.Add(cfg.PubDrainMax)

	subscribers := make([]*subscriber, subs)
	defer func() {
		for _, s := range subscribers {
			if s != nil {
				s.conn.Close()
			}
		}
	}()
	for i := range subscribers {
		s, err := subscribe(addr, deadline, frame)
		if err != nil {
			return benchResult{}, fmt.Errorf("%s: subscriber %d: %w", test, i, err)
		}
		subscribers[i] = s
	}
	var received atomic.Int64
	var lastDelivery atomic.Int64 // unix nanoseconds
	subErrs := make(chan error, subs)
	for _, s := range subscribers {
		go func() { subErrs <- s.count(&received, &lastDelivery) }()
	}

	start := time.Now()
	var (
		mu        sync.Mutex
		delivered int64 // the sum of PUBLISH's replies
		latencies []float64
		firstErr  error
		wg        sync.WaitGroup
	)
	for id := range cfg.Publishers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, lat, err := publisher(addr, publish, subs, stop)
			mu.Lock()
			defer mu.Unlock()
			delivered += n
			latencies = append(latencies, lat...)
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("%s: publisher %d: %w", test, id, err)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return benchResult{}, firstErr
	}
	for received.Load() < delivered {
		select {
		case err := <-subErrs:
			return benchResult{}, fmt.Errorf("%s: a subscriber stopped after %d of %d deliveries: %w", test, received.Load(), delivered, err)
		default:
		}
		if time.Now().After(deadline) {
			return benchResult{}, fmt.Errorf("%s: %d of %d deliveries within %v of the last PUBLISH", test, received.Load(), delivered, cfg.PubDrainMax)
		}
		time.Sleep(time.Millisecond)
	}
	if got := received.Load(); got != delivered {
		return benchResult{}, fmt.Errorf("%s: subscribers received %d messages, PUBLISH reported %d deliveries", test, got, delivered)
	}
	elapsed := time.Unix(0, lastDelivery.Load()).Sub(start).Seconds()
	return latencyResult(test, float64(delivered)/elapsed, latencies), nil
}

// subscriber is one subscribed connection of runPublishLoad.
type subscriber struct {
	conn  net.Conn
	r     *bufio.Reader
	frame []byte // the one message frame it expects, over and over
}

// subscribe connects and subscribes to fanoutChannel; once SUBSCRIBE has
// answered, the server delivers every later PUBLISH to it.
func subscribe(addr string, until time.Time, frame []byte) (*subscriber, error) {
	c, r, err := dialLoad(addr, until)
	if err != nil {
		return nil, err
	}
	if _, err := c.Write(appendCommand(nil, []byte("SUBSCRIBE"), []byte(fanoutChannel))); err != nil {
		c.Close()
		return nil, err
	}
	rep, err := readReply(r)
	if err == nil && (rep.Kind != '*' || len(rep.Elems) != 3 || rep.Elems[2].Line != "1") {
		err = fmt.Errorf("SUBSCRIBE: got %v", rep)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return &subscriber{conn: c, r: r, frame: frame}, nil
}

// count reads the connection until it closes, checks every byte against
// the expected frame and adds each whole frame to received. It returns
// the error that ended the stream: the harness's own close once every
// delivery has arrived, or what cut the subscriber off before.
func (s *subscriber) count(received, lastDelivery *atomic.Int64) error {
	buf := make([]byte, 64<<10)
	pos := 0 // the offset in frame of the next byte
	for {
		n, err := s.r.Read(buf)
		frames := 0
		for b := buf[:n]; len(b) > 0; {
			k := min(len(b), len(s.frame)-pos)
			if !bytes.Equal(b[:k], s.frame[pos:pos+k]) {
				return fmt.Errorf("unexpected bytes %q in a message", b[:k])
			}
			b, pos = b[k:], pos+k
			if pos == len(s.frame) {
				frames, pos = frames+1, 0
			}
		}
		if frames > 0 {
			lastDelivery.Store(time.Now().UnixNano())
			received.Add(int64(frames))
		}
		if err != nil {
			return err
		}
	}
}

// publisher is one connection of runPublishLoad: it publishes until stop,
// checks that every PUBLISH reached subs subscribers, and returns the
// deliveries and each PUBLISH's round trip in milliseconds.
func publisher(addr string, publish []byte, subs int, stop time.Time) (int64, []float64, error) {
	c, r, err := dialLoad(addr, stop)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	var delivered int64
	var latencies []float64
	want := strconv.Itoa(subs)
	for time.Now().Before(stop) {
		t0 := time.Now()
		if _, err := c.Write(publish); err != nil {
			return delivered, latencies, err
		}
		rep, err := readReply(r)
		if err != nil {
			return delivered, latencies, err
		}
		if rep.Kind != ':' || rep.Line != want {
			// Fewer receivers: a subscriber was cut off (its output
			// buffer limit) or never counted.
			return delivered, latencies, fmt.Errorf("PUBLISH: got %v, want :%s", rep, want)
		}
		latencies = append(latencies, float64(time.Since(t0))/float64(time.Millisecond))
		delivered += int64(subs)
	}
	return delivered, latencies, nil
}
