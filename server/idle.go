package server

import (
	"net"
	"time"
)

// The connections' timers: the idle timeout (server.timeout) and TCP
// keepalive (server.tcp_keepalive).

// idleSweep is how often idle clients are looked for.
const idleSweep = time.Second

// closeIdle closes, every idleSweep, the connections idle for longer than
// server.timeout, as Redis's clientsCron does. A client inside a command
// (blocked in BLPOP, paused, or MONITOR-like long commands) or in
// subscribed mode is never idle.
func (s *Server) closeIdle(stop <-chan struct{}) {
	t := time.NewTicker(idleSweep)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		timeout := s.config().Server.Timeout.Duration
		if timeout <= 0 {
			continue
		}
		cutoff := time.Now().Add(-timeout).UnixMilli()
		for _, cl := range s.clientList() {
			// A subscriber waits for messages: Redis never times it out.
			if cl.inCmd.Load() > 0 || cl.lastActive.Load() > cutoff || cl.subscribed() {
				continue
			}
			if nc := cl.netConn; nc != nil {
				s.log.Debug().Int64("client", cl.ID).Str("addr", cl.addr).Msg("closing idle client")
				cl.killed.Store(true)
				_ = nc.Close()
			}
		}
	}
}

// setKeepAlive applies server.tcp_keepalive to a new connection as Redis
// does: the first probe after period idle, then every period/3, 3 probes.
func setKeepAlive(nc net.Conn, period time.Duration) {
	if g, ok := nc.(*guardConn); ok {
		nc = g.Conn
	}
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return
	}
	if period <= 0 {
		_ = tc.SetKeepAlive(false)
		return
	}
	_ = tc.SetKeepAliveConfig(net.KeepAliveConfig{
		Enable:   true,
		Idle:     period,
		Interval: max(period/3, time.Second),
		Count:    3,
	})
}
