package server

import "time"

// LATENCY LATEST, HISTORY, RESET, DOCTOR, GRAPH and HELP, over the latency
// monitor of latency.go.

var latencySubcommands = []Subcommand{
	sub("latest", 2, Admin|NoScript|Loading|Stale, cmdLatencyLatest, cmdDoc{"Return the latest latency samples for all events.", "2.8.13", "server", "O(1)", ""}).tips("nondeterministic_output", "request_policy:all_nodes", "response_policy:special"),
	sub("history", 3, Admin|NoScript|Loading|Stale, cmdLatencyHistory, cmdDoc{"Return timestamp-latency samples for the event.", "2.8.13", "server", "O(1)", "event"}).tips("nondeterministic_output", "request_policy:all_nodes", "response_policy:special"),
	sub("reset", -2, Admin|NoScript|Loading|Stale, cmdLatencyReset, cmdDoc{"Reset latency data for one or more events.", "2.8.13", "server", "O(1)", "[event [event ...]]"}).tips("request_policy:all_nodes", "response_policy:all_succeeded"),
	sub("doctor", 2, Admin|NoScript|Loading|Stale, cmdLatencyDoctor, cmdDoc{"Return a human readable latency analysis report.", "2.8.13", "server", "O(1)", ""}).tips("nondeterministic_output", "request_policy:all_nodes", "response_policy:special"),
	sub("graph", 3, Admin|NoScript|Loading|Stale, cmdLatencyGraph, cmdDoc{"Return a latency graph for the event.", "2.8.13", "server", "O(1)", "event"}).tips("nondeterministic_output", "request_policy:all_nodes", "response_policy:special"),
	sub("help", 2, Loading|Stale, cmdLatencyHelp, cmdDoc{"Show helpful text about the different subcommands.", "2.8.13", "server", "O(1)", ""}),
}

// LATENCY LATEST: per event, its name, the time and latency of its latest
// sample, and its highest latency ever.
func cmdLatencyLatest(c *Ctx, _ [][]byte) error {
	rows := c.Srv.latency.latest()
	r := c.Reply()
	r.Array(len(rows))
	for _, l := range rows {
		r.Array(4)
		r.BulkString(l.event)
		r.Int(l.at)
		r.Int(l.ms)
		r.Int(l.allTime)
	}
	return nil
}

// LATENCY HISTORY event: its samples, oldest first, as [time, latency]
// pairs; none for an unknown event.
func cmdLatencyHistory(c *Ctx, args [][]byte) error {
	samples, _, _ := c.Srv.latency.history(string(args[2]))
	r := c.Reply()
	r.Array(len(samples))
	for _, s := range samples {
		r.Array(2)
		r.Int(s.at)
		r.Int(s.ms)
	}
	return nil
}

// LATENCY RESET [event ...]: how many events were forgotten.
func cmdLatencyReset(c *Ctx, args [][]byte) error {
	c.Reply().Int(c.Srv.latency.reset(args[2:]))
	return nil
}

// LATENCY DOCTOR
func cmdLatencyDoctor(c *Ctx, _ [][]byte) error {
	c.Reply().Verbatim(c.Srv.latency.doctor(c.Srv.slowlog.threshold.Load()))
	return nil
}

// LATENCY GRAPH event
func cmdLatencyGraph(c *Ctx, args [][]byte) error {
	event := string(args[2])
	samples, allTime, ok := c.Srv.latency.history(event)
	if !ok {
		return errNoLatencySamples(args[2])
	}
	c.Reply().Verbatim(graph(event, samples, allTime, time.Now().Unix()))
	return nil
}

// LATENCY HELP
func cmdLatencyHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "latency", []string{
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
	})
	return nil
}

var latencyCommands = []Command{
	cmd("latency", -2, 0, 0, 0, 0, nil).withSubcommands(latencySubcommands).
		doc("A container for latency diagnostics commands", "2.8.13", "server", "Depends on subcommand.", ""),
}
