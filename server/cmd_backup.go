package server

// BGSAVE, SAVE and LASTSAVE, over the checkpoints of backup.go.

// BGSAVE [SCHEDULE]: SCHEDULE changes nothing, as in Redis when no AOF
// rewrite runs (Shale has none); a checkpoint under way is an error.
func cmdBgSave(c *Ctx, args [][]byte) error {
	if len(args) == 2 && !is(args[1], "SCHEDULE") { // the row's Shape allows at most 2
		return errSyntax
	}
	s := c.Srv
	if !s.backup.begin() {
		return errSaveInProgress
	}
	go s.checkpoint()
	c.Reply().Status("Background saving started")
	return nil
}

// SAVE: a checkpoint, replying when it is done.
func cmdSave(c *Ctx, _ [][]byte) error {
	s := c.Srv
	if !s.backup.begin() {
		return errSaveInProgress
	}
	if _, err := s.checkpoint(); err != nil {
		return err
	}
	c.Reply().OK()
	return nil
}

// LASTSAVE: the unix time of the last successful checkpoint (the start time
// of the server before the first one).
func cmdLastSave(c *Ctx, _ [][]byte) error {
	c.Srv.backup.mu.Lock()
	t := c.Srv.backup.lastSave
	c.Srv.backup.mu.Unlock()
	c.Reply().Int(t.Unix())
	return nil
}

var backupCommands = []Command{
	cmd("bgsave", -1, Admin|NoScript|NoAsyncLoading, 0, 0, 0, cmdBgSave).shaped(atMost(2, shapeSyntax)).
		doc("Asynchronously save the dataset to disk", "1.0.0", "server", "O(1)", "[SCHEDULE]"),
	cmd("save", 1, Admin|NoScript|NoAsyncLoading|NoMulti, 0, 0, 0, cmdSave).
		doc("Synchronously save the dataset to disk", "1.0.0", "server", "O(N) where N is the total number of keys in all databases", ""),
	cmd("lastsave", 1, Loading|Stale|Fast, 0, 0, 0, cmdLastSave).acl(ACLAdmin|ACLDangerous).tips("nondeterministic_output").
		doc("Get the UNIX time stamp of the last successful save to disk", "1.0.0", "server", "O(1)", ""),
}
