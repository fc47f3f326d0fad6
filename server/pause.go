package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// CLIENT PAUSE's machinery: the pauser the dispatcher waits on while a
// pause holds back a command (CLIENT PAUSE and UNPAUSE are in cmd_client.go).

// pauseMode is what CLIENT PAUSE holds back.
type pauseMode int

const (
	pauseNone  pauseMode = iota
	pauseWrite           // commands that may write
	pauseAll             // every command
)

// pauser holds the CLIENT PAUSE state. Paused commands wait in their
// connection's goroutine for changed, which is closed (and replaced) on
// every change, or for the pause to end.
type pauser struct {
	active  atomic.Bool // a pause may be on: the dispatcher's fast check
	mu      sync.Mutex
	mode    pauseMode
	until   time.Time
	changed chan struct{}
	closing bool // the server is shutting down: nothing waits any more
}

// pause starts or extends a pause: the stricter mode and the later end win.
func (p *pauser) pause(mode pauseMode, until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == pauseNone || time.Now().After(p.until) {
		p.mode, p.until = mode, until
	} else {
		p.mode = max(p.mode, mode)
		if until.After(p.until) {
			p.until = until
		}
	}
	p.notify()
}

func (p *pauser) unpause() {
	p.mu.Lock()
	p.mode = pauseNone
	p.notify()
	p.mu.Unlock()
}

// close releases every waiter for good (server shutdown).
func (p *pauser) close() {
	p.mu.Lock()
	p.closing = true
	p.notify()
	p.mu.Unlock()
}

func (p *pauser) notify() {
	p.active.Store(p.mode != pauseNone && !p.closing)
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

// wait returns once a command of this kind may run.
func (p *pauser) wait(write bool) {
	for {
		p.mu.Lock()
		active := p.mode != pauseNone && !p.closing && time.Now().Before(p.until)
		holds := active && (p.mode == pauseAll || write)
		if !holds {
			if !active && p.mode != pauseNone {
				p.mode = pauseNone
				p.notify()
			}
			p.mu.Unlock()
			return
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		changed, until := p.changed, p.until
		p.mu.Unlock()
		t := time.NewTimer(time.Until(until))
		select {
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// mayWrite says whether a command of client c is held back by CLIENT
// PAUSE WRITE: write commands, those Redis flags may-replicate, and an
// EXEC whose queue holds one of those.
func mayWrite(c *Client, cmd *Command) bool {
	if cmd.Flags&(Write|MayReplicate) != 0 {
		return true
	}
	if cmd.Name == "exec" {
		for _, q := range c.txn.queued {
			if q.cmd.Flags&(Write|MayReplicate) != 0 {
				return true
			}
		}
	}
	return false
}
