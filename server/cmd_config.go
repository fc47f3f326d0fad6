package server

import (
	"slices"
	"strings"

	"github.com/shaledb/shale/server/types"
)

// CONFIG GET, SET, RESETSTAT, REWRITE and HELP, over the parameter table
// of config.go.

var configSubcommands = []Subcommand{
	sub("get", -3, Admin|NoScript|Loading|Stale, cmdConfigGet, cmdDoc{"Get the values of configuration parameters", "2.0.0", "server", "O(N) when N is the number of configuration parameters provided", "parameter [parameter ...]"}),
	sub("set", -4, Admin|NoScript|Loading|Stale, cmdConfigSet, cmdDoc{"Set configuration parameters to the given values", "2.0.0", "server", "O(N) when N is the number of configuration parameters provided", "parameter value [parameter value ...]"}).shaped(pairsFrom(2, shapeSyntax)).tips("request_policy:all_nodes", "response_policy:all_succeeded"),
	sub("resetstat", 2, Admin|NoScript|Loading|Stale, cmdConfigResetStat, cmdDoc{"Reset the stats returned by INFO", "2.0.0", "server", "O(1)", ""}),
	sub("rewrite", 2, Admin|NoScript|Loading|Stale, cmdConfigRewrite, cmdDoc{"Rewrite the configuration file with the in memory configuration", "2.8.0", "server", "O(1)", ""}),
	sub("help", 2, Loading|Stale, cmdConfigHelp, cmdDoc{"Show helpful text about the different subcommands", "5.0.0", "server", "O(1)", ""}),
}

// CONFIG GET pattern [pattern ...]: a map of names to values; glob
// patterns match names case-insensitively and each parameter comes once.
func cmdConfigGet(c *Ctx, args [][]byte) error {
	cfg := c.Srv.config()
	seen := make([]bool, len(configParams))
	var pairs []string
	for _, a := range args[2:] {
		pattern := []byte(strings.ToLower(string(a)))
		for i := range configParams {
			p := &configParams[i]
			if !seen[i] && types.Match(pattern, []byte(p.name)) {
				seen[i] = true
				pairs = append(pairs, p.name, p.get(&cfg))
			}
		}
	}
	r := c.Reply()
	r.Map(len(pairs) / 2)
	for _, v := range pairs {
		r.BulkString(v)
	}
	return nil
}

// CONFIG SET name value [name value ...]: all or nothing, as in Redis 7.
func cmdConfigSet(c *Ctx, args [][]byte) error {
	type change struct {
		p     *configParam
		arg   string // the name as the client spelled it, for errors
		value string
	}
	var changes []change
	unknown := ""
	for i := 2; i < len(args); i += 2 {
		arg := string(args[i])
		p := lookupConfig(arg)
		switch {
		case p == nil:
			if unknown == "" {
				unknown = arg
			}
			continue
		case p.set == nil && unknown == "":
			return errConfigSet(arg, "can't set immutable config")
		case slices.ContainsFunc(changes, func(ch change) bool { return ch.p == p }) && unknown == "":
			return errConfigSet(arg, "duplicate parameter")
		}
		changes = append(changes, change{p, arg, string(args[i+1])})
	}
	if unknown != "" {
		return errUnknownConfig(unknown)
	}

	// s.mu is not held while the changes are applied: redcon calls closed(),
	// which takes s.mu, with its own lock held, and SetIdleClose takes that
	// lock too. configMu keeps CONFIG SETs from interleaving instead.
	s := c.Srv
	s.configMu.Lock()
	defer s.configMu.Unlock()
	cur := s.config()
	next := cur
	for _, ch := range changes {
		if err := ch.p.set(&next, ch.value); err != nil {
			return errConfigSet(ch.arg, err.Error())
		}
	}
	if err := next.Validate(); err != nil {
		problems := strings.Split(err.Error(), "\n")
		blame := changes[0].arg
		for _, ch := range changes {
			if ch.p.key != "" && strings.HasPrefix(problems[0], ch.p.key) {
				blame = ch.arg
				break
			}
		}
		return errConfigSet(blame, strings.Join(problems, "; "))
	}
	if err := s.st.ApplyOptions(cur.RocksDB, next.RocksDB); err != nil {
		return errConfigSet(changes[0].arg, errRocksRejected) // the store logged why
	}
	s.mu.Lock()
	s.cfg = next
	s.mu.Unlock()
	s.applyConfig(&cur, &next)
	names := make([]string, len(changes))
	for i, ch := range changes {
		names[i] = ch.p.name
	}
	s.log.Info().Strs("params", names).Msg("config changed")
	c.Reply().OK()
	return nil
}

// CONFIG RESETSTAT: zeroes the counters of INFO stats, commandstats and
// errorstats, as Redis does. The slow log, the rocksdb and reclaim sections
// and the states (clients, keys) stay.
func cmdConfigResetStat(c *Ctx, _ [][]byte) error {
	c.Srv.stats.reset()
	c.Srv.eng.ResetExpiredKeys()
	c.Srv.repl.resetStats()
	c.Reply().OK()
	return nil
}

// CONFIG REWRITE: writes the current configuration into the file the
// server was started with (conf.Rewrite keeps its comments and layout),
// through a temporary file renamed over it.
func cmdConfigRewrite(c *Ctx, _ [][]byte) error {
	s := c.Srv
	s.configMu.Lock() // no CONFIG SET in between
	defer s.configMu.Unlock()
	s.mu.Lock()
	path, cfg := s.configFile, s.cfg
	s.mu.Unlock()
	if path == "" {
		return errNoConfigFile
	}
	if err := rewriteConfigFile(path, cfg); err != nil {
		s.log.Error().Err(err).Str("file", path).Msg("config rewrite failed")
		return rewriteFailed(err)
	}
	s.log.Info().Str("file", path).Msg("config rewritten")
	c.Reply().OK()
	return nil
}

// CONFIG HELP
func cmdConfigHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "config", []string{
		"GET <pattern>",
		"    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>",
		"    Set the configuration <directive> to <value>.",
		"RESETSTAT",
		"    Reset statistics reported by the INFO command.",
		"REWRITE",
		"    Rewrite the configuration file.",
	})
	return nil
}
