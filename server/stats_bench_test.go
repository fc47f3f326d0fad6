package server

import (
	"testing"

	"github.com/rs/zerolog"
)

// BenchmarkObserve is the dispatcher's per-command cost of statistics: the
// two clock reads, the counters and histogram, the slow-log and monitor checks.
func BenchmarkObserve(b *testing.B) {
	s := &Server{table: buildTable(allCommands())}
	s.initStats()
	s.slowlog.init(10000, 128, zerolog.Nop())
	c := &Ctx{Client: &Client{addr: "127.0.0.1:1"}}
	for _, name := range []string{"get", "config"} {
		cmd := s.table[name]
		args := bytesArgs(name, "k")
		if name == "config" {
			args = bytesArgs(name, "get", "maxclients")
		}
		b.Run("cmd="+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				start := monoNow()
				s.observe(c, cmd, cmd.subcommandIndex(args), args, monoNow()-start, nil)
			}
		})
	}
}
