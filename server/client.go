package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/shaledb/shale/server/types"
)

// Client is one connection's state. Its own goroutine changes it; CLIENT
// LIST reads it from others, hence the mutex.
type Client struct {
	ID         int64
	conn       redcon.Conn
	netConn    net.Conn // conn's socket, the same after an event loop hands conn over (loop.go)
	addr       string
	laddr      string
	created    time.Time
	lastActive atomic.Int64  // unix ms of the last command's start or end
	inCmd      atomic.Int32  // > 0 while a command runs: never idle then
	blocked    atomic.Bool   // waiting in a blocking command or CLIENT PAUSE
	killed     atomic.Bool   // CLIENT KILL or the idle timeout closed it
	noEvict    atomic.Bool   // CLIENT NO-EVICT ON
	replyMode  atomic.Int32  // a replyMode: CLIENT REPLY
	resp3      atomic.Bool   // HELLO 3: replies in RESP3; publishers read it
	out        *replyCounter // what handlers write to; nil when conn is not a guardConn
	subs       subscriptions // its channels, patterns and shard channels (pubsub.go)
	// trk is its CLIENT TRACKING mode and held-back invalidations
	// (tracking.go).
	trk clientTracking
	// ctx is the running command's context, reused by each command of the
	// connection's goroutine instead of allocated: nothing keeps a Ctx
	// after its command returns.
	ctx Ctx

	// Touched only by the connection's own goroutine.
	closeAfterReply bool // CLIENT KILL of itself
	// loop is the connection while an event loop serves it (loop.go);
	// nil once a goroutine does.
	loop *loopConn
	// afterCommand, when set, runs once the connection's goroutine is done
	// with the running command: MONITOR starts the goroutines that take the
	// connection over then, and not while the dispatcher still records the
	// MONITOR itself.
	afterCommand func()
	skipSetNow   bool          // this command is CLIENT REPLY SKIP
	pipe         pipelineGroup // pipelined commands sharing one write (pipeline.go)
	txn          txnState      // MULTI's queue and WATCH's keys (multi.go)
	// atomicRun is set while EXEC or a script runs the client's commands
	// in one group holding their locks: blocking commands try once, and
	// keys made ready for blocked clients wait in ready for the commit.
	atomicRun struct {
		active bool
		ready  []blockKey
	}
	// log is what the client's writes did (its database views keep it:
	// types.DB.Logging); events are the keyspace events of its writes that
	// wait for their group's or transaction's commit (notify.go).
	log    types.WriteLog
	events []keyEvent

	mu      sync.Mutex
	name    string
	db      *types.DB
	authed  bool
	lastCmd string
	libName string // CLIENT SETINFO
	libVer  string
	monitor bool // in MONITOR mode (monitor.go)
	// What a replica said in its handshake (REPLCONF): the port it
	// listens on and the address it announces (replication_primary.go).
	replPort int
	replIP   string
	// replica is set once the client is a replica's link (PSYNC).
	replica atomic.Pointer[downstream]
	// storeUse counts the client's commands using the store now (the
	// store gate of a replica's full sync; replication.go).
	storeUse atomic.Int64
}

func (c *Client) runAfterCommand() {
	if fn := c.afterCommand; fn != nil {
		c.afterCommand = nil
		fn()
	}
}

func (c *Client) currentDB() *types.DB {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.db
}

// setDB selects db, through a view that counts the client's writes.
func (c *Client) setDB(db *types.DB) {
	db = db.Logging(&c.log)
	c.mu.Lock()
	c.db = db
	c.mu.Unlock()
}

func (c *Client) isAuthed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authed
}

func (c *Client) setAuthed(v bool) {
	c.mu.Lock()
	c.authed = v
	c.mu.Unlock()
}

func (c *Client) setLastCmd(name string) {
	c.mu.Lock()
	c.lastCmd = name
	c.mu.Unlock()
}

func (c *Client) getName() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

func (c *Client) setName(n string) {
	c.mu.Lock()
	c.name = n
	c.mu.Unlock()
}

func (c *Client) isMonitor() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.monitor
}

func (c *Client) setMonitor(v bool) {
	c.mu.Lock()
	c.monitor = v
	c.mu.Unlock()
}
