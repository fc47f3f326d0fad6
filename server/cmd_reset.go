package server

// RESET: the connection's state back to a new connection's, as Redis 7.0's
// clearClientConnectionState does it.

// RESET: leaves MONITOR mode, discards a transaction and its watches,
// unsubscribes from everything, turns CLIENT TRACKING off, selects
// database 0, turns CLIENT REPLY on, drops the name, authenticates the
// client as a new connection is (only when there is no requirepass) and
// speaks RESP2 again; replies +RESET.
// Like Redis, it keeps CLIENT NO-EVICT and the CLIENT SETINFO attributes.
func cmdReset(c *Ctx, _ [][]byte) error {
	s, cl := c.Srv, c.Client
	s.monitors.leave(cl)
	s.endTransaction(cl)
	s.unsubscribeAll(cl)
	s.trackingOff(cl)
	db, err := s.eng.DB(0)
	if err != nil {
		return err
	}
	cl.setDB(db)
	cl.setName("")
	cl.setAuthed(s.requirePass() == "")
	// Back to RESP2, as Redis's clearClientConnectionState does: a client
	// that said HELLO 3 must say it again.
	cl.resp3.Store(false)
	c.resp3 = false
	// RESET after CLIENT REPLY OFF is answered; after CLIENT REPLY SKIP it
	// is the skipped command, as in Redis (which clears OFF, not the skip
	// of the command running).
	if replyMode(cl.replyMode.Swap(int32(replyOn))) == replyOff {
		if m, ok := c.Conn.(mutedConn); ok {
			c.Conn = m.Conn
		}
	}
	c.Reply().Status("RESET")
	return nil
}

// resetCommands is RESET's row.
var resetCommands = []Command{
	cmd("reset", 1, NoScript|Loading|Stale|Fast|NoAuth|AllowBusy, 0, 0, 0, cmdReset).
		doc("Reset the connection", "6.2.0", "connection", "O(1)", ""),
}
