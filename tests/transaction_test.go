package tests

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestTransactions runs MULTI, EXEC, DISCARD, WATCH and UNWATCH scripts on
// one connection of each backend: queueing and its errors, EXECABORT,
// errors inside EXEC's reply, reads of the transaction's own writes,
// keyless commands, blocking commands as their non-blocking forms, and
// the commands refused inside MULTI.
func TestTransactions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		conn := c.Conn()
		defer conn.Close()
		run(t, conn, []step{
			{cmd("EXEC"), errText("ERR EXEC without MULTI")},
			{cmd("DISCARD"), errText("ERR DISCARD without MULTI")},
			{cmd("MULTI"), ok},
			{cmd("MULTI"), errText("ERR MULTI calls can not be nested")},
			{cmd("WATCH", "x"), errText("ERR WATCH inside MULTI is not allowed")},
			{cmd("SET", "a", "1"), "QUEUED"},
			{cmd("EXEC"), []any{ok}}, // the errors above did not abort it
			// A refused command (arity, unknown name or subcommand) aborts.
			{cmd("MULTI"), ok},
			{cmd("SET", "a"), errText("ERR wrong number of arguments for 'set' command")},
			{cmd("INCR", "a"), "QUEUED"},
			{cmd("EXEC"), errText("EXECABORT Transaction discarded because of previous errors.")},
			{cmd("GET", "a"), "1"},
			{cmd("MULTI"), ok},
			{cmd("NOSUCH"), errPrefix("ERR unknown command 'NOSUCH'")},
			{cmd("EXEC"), errPrefix("EXECABORT")},
			{cmd("MULTI"), ok},
			{cmd("CLIENT", "NOSUCH"), errPrefix("ERR unknown subcommand 'NOSUCH'")},
			{cmd("EXEC"), errPrefix("EXECABORT")},
			// Refused inside MULTI, and aborting it.
			{cmd("MULTI"), ok},
			{cmd("SAVE"), errText("ERR Command not allowed inside a transaction")},
			{cmd("EXEC"), errPrefix("EXECABORT")},
			// DISCARD drops the queue, even after a refused command.
			{cmd("MULTI"), ok},
			{cmd("SET", "a", "2"), "QUEUED"},
			{cmd("SET", "b"), errPrefix("ERR wrong number")},
			{cmd("DISCARD"), ok},
			{cmd("GET", "a"), "1"},
			// Errors while executing go into the reply and stop nothing;
			// later commands read what earlier ones wrote.
			{cmd("MULTI"), ok},
			{cmd("INCR", "a"), "QUEUED"},
			{cmd("GET", "a"), "QUEUED"},
			{cmd("LPUSH", "a", "x"), "QUEUED"},
			{cmd("HSET", "h", "f"), errPrefix("ERR wrong number")},
			{cmd("DISCARD"), ok},
			{cmd("MULTI"), ok},
			{cmd("INCR", "a"), "QUEUED"},
			{cmd("GET", "a"), "QUEUED"},
			{cmd("LPUSH", "a", "x"), "QUEUED"},
			{cmd("HSET", "h", "f", "v", "g"), "QUEUED"},
			{cmd("RPUSH", "l", "x", "y", "z"), "QUEUED"},
			{cmd("LPOP", "l"), "QUEUED"},
			{cmd("LRANGE", "l", "0", "-1"), "QUEUED"},
			{cmd("SADD", "s", "m1", "m2"), "QUEUED"},
			{cmd("SREM", "s", "m1"), "QUEUED"},
			{cmd("SMEMBERS", "s"), "QUEUED"},
			{cmd("ZADD", "z", "1", "a", "2", "b"), "QUEUED"},
			{cmd("ZINCRBY", "z", "5", "a"), "QUEUED"},
			{cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), "QUEUED"},
			{cmd("HSET", "h2", "f", "v"), "QUEUED"},
			{cmd("HGETALL", "h2"), "QUEUED"},
			{cmd("DEL", "h2"), "QUEUED"},
			{cmd("EXISTS", "h2"), "QUEUED"},
			{cmd("EXEC"), []any{
				2, "2",
				errPrefix("WRONGTYPE"),
				errText("ERR wrong number of arguments for 'hset' command"),
				3, "x", []any{"y", "z"},
				2, 1, []any{"m2"},
				2, "6", []any{"b", "2", "a", "6"},
				1, []any{"f", "v"}, 1, 0,
			}},
			{cmd("GET", "a"), "2"},
			{cmd("LRANGE", "l", "0", "-1"), []any{"y", "z"}},
			// Commands without keys are isolated too, and see the
			// transaction's writes.
			{cmd("SELECT", "3"), ok},
			{cmd("MULTI"), ok},
			{cmd("SET", "k1", "v"), "QUEUED"},
			{cmd("DBSIZE"), "QUEUED"},
			{cmd("KEYS", "*"), "QUEUED"},
			{cmd("FLUSHDB"), "QUEUED"},
			{cmd("DBSIZE"), "QUEUED"},
			{cmd("SET", "k2", "v"), "QUEUED"},
			{cmd("SCAN", "0"), "QUEUED"},
			{cmd("RANDOMKEY"), "QUEUED"},
			{cmd("DBSIZE"), "QUEUED"},
			{cmd("EXEC"), []any{ok, 1, []any{"k1"}, ok, 0, ok, []any{"0", []any{"k2"}}, "k2", 1}},
			{cmd("DBSIZE"), 1},
			// SELECT inside a transaction moves the commands after it.
			{cmd("MULTI"), ok},
			{cmd("SELECT", "4"), "QUEUED"},
			{cmd("SET", "q", "1"), "QUEUED"},
			{cmd("MOVE", "q", "3"), "QUEUED"},
			{cmd("SELECT", "3"), "QUEUED"},
			{cmd("GET", "q"), "QUEUED"},
			{cmd("EXEC"), []any{ok, ok, 1, ok, "1"}},
			{cmd("SELECT", "0"), ok},
			// Blocking commands do not block.
			{cmd("MULTI"), ok},
			{cmd("BLPOP", "nolist", "0"), "QUEUED"},
			{cmd("BRPOPLPUSH", "nolist", "dst", "0"), "QUEUED"},
			{cmd("BZPOPMIN", "nozset", "0"), "QUEUED"},
			{cmd("RPUSH", "bl", "v"), "QUEUED"},
			{cmd("BLPOP", "bl", "0"), "QUEUED"},
			{cmd("EXEC"), []any{nil, nil, nil, 1, []any{"bl", "v"}}},
			// MONITOR inside EXEC.
			{cmd("MULTI"), ok},
			{cmd("MONITOR"), "QUEUED"},
			{cmd("PING"), "QUEUED"},
			{cmd("EXEC"), []any{errText("ERR MONITOR isn't allowed for DENY BLOCKING client"), "PONG"}},
			// An empty transaction.
			{cmd("MULTI"), ok},
			{cmd("EXEC"), []any{}},
		})
	})
}

// TestWatch: what makes EXEC fail with a null reply, on each backend.
func TestWatch(t *testing.T) {
	forEachBackend(t, func(t *testing.T, c *redis.Client, b backend) {
		ctx := context.Background()
		conn := c.Conn()
		defer conn.Close()
		other := c.Conn()
		defer other.Close()
		// watchThen watches key, lets the other connection run its
		// commands, and runs a transaction: EXEC's reply is the result.
		type change struct {
			name  string
			setup [][]any // before WATCH
			key   string
			other [][]any // between WATCH and EXEC
			want  any     // EXEC's reply: nil for a failed transaction
		}
		changes := []change{
			{"untouched", nil, "w", nil, []any{"PONG"}},
			{"set", nil, "w", [][]any{{"SET", "w", "1"}}, nil},
			{"created", [][]any{{"DEL", "w"}}, "w", [][]any{{"SET", "w", "1"}}, nil},
			{"deleted", [][]any{{"SET", "w", "1"}}, "w", [][]any{{"DEL", "w"}}, nil},
			{"del of a missing key", [][]any{{"DEL", "w"}}, "w", [][]any{{"DEL", "w"}}, []any{"PONG"}},
			{"sadd of a present member", [][]any{{"DEL", "w"}, {"SADD", "w", "m"}}, "w", [][]any{{"SADD", "w", "m"}}, []any{"PONG"}},
			{"sadd of a new member", [][]any{{"DEL", "w"}, {"SADD", "w", "m"}}, "w", [][]any{{"SADD", "w", "n"}}, nil},
			{"expire", [][]any{{"SET", "w", "1"}}, "w", [][]any{{"EXPIRE", "w", "100"}}, nil},
			{"rename source", [][]any{{"SET", "w", "1"}}, "w", [][]any{{"RENAME", "w", "w2"}}, nil},
			{"rename target", [][]any{{"SET", "w", "1"}, {"SET", "w3", "1"}}, "w", [][]any{{"RENAME", "w3", "w"}}, nil},
			{"move", [][]any{{"SET", "w", "1"}}, "w", [][]any{{"MOVE", "w", "5"}}, nil},
			{"move into", [][]any{{"DEL", "w"}, {"SELECT", "5"}, {"SET", "w", "1"}}, "w", [][]any{{"SELECT", "5"}, {"MOVE", "w", "0"}}, nil},
			{"flushdb", [][]any{{"SET", "w", "1"}}, "w", [][]any{{"FLUSHDB"}}, nil},
			{"flushall", [][]any{{"SET", "w", "1"}}, "w", [][]any{{"FLUSHALL"}}, nil},
			{"hset", [][]any{{"DEL", "w"}}, "w", [][]any{{"HSET", "w", "f", "v"}}, nil},
			{"lpush", [][]any{{"DEL", "w"}}, "w", [][]any{{"LPUSH", "w", "v"}}, nil},
			{"zadd", [][]any{{"DEL", "w"}}, "w", [][]any{{"ZADD", "w", "1", "m"}}, nil},
			{"ltrim that removes nothing", [][]any{{"DEL", "w"}, {"RPUSH", "w", "a"}}, "w", [][]any{{"LTRIM", "w", "0", "100"}}, nil},
			{"lrem that removes nothing", [][]any{{"DEL", "w"}, {"RPUSH", "w", "a"}}, "w", [][]any{{"LREM", "w", "0", "b"}}, []any{"PONG"}},
			{"other key", nil, "w", [][]any{{"SET", "unrelated", "1"}}, []any{"PONG"}},
			{"read", [][]any{{"SET", "w", "1"}}, "w", [][]any{{"GET", "w"}}, []any{"PONG"}},
		}
		for _, ch := range changes {
			for _, a := range ch.setup {
				if err := other.Do(ctx, a...).Err(); err != nil && err != redis.Nil {
					t.Fatalf("%s: setup %v: %v", ch.name, a, err)
				}
			}
			if err := other.Do(ctx, "SELECT", "0").Err(); err != nil {
				t.Fatal(err)
			}
			run(t, conn, []step{{cmd("WATCH", ch.key), ok}})
			for _, a := range ch.other {
				if err := other.Do(ctx, a...).Err(); err != nil && err != redis.Nil {
					t.Fatalf("%s: %v: %v", ch.name, a, err)
				}
			}
			if err := other.Do(ctx, "SELECT", "0").Err(); err != nil {
				t.Fatal(err)
			}
			t.Run(ch.name, func(t *testing.T) {
				run(t, conn, []step{
					{cmd("MULTI"), ok},
					{cmd("PING"), "QUEUED"},
					{cmd("EXEC"), ch.want},
				})
			})
		}
		// The client's own write aborts it too; UNWATCH and DISCARD end
		// the watches; EXEC ends them even when it fails.
		run(t, conn, []step{
			{cmd("WATCH", "w"), ok},
			{cmd("SET", "w", "mine"), ok},
			{cmd("MULTI"), ok},
			{cmd("GET", "w"), "QUEUED"},
			{cmd("EXEC"), nil},
			{cmd("SET", "w", "again"), ok},
			{cmd("MULTI"), ok},
			{cmd("GET", "w"), "QUEUED"},
			{cmd("EXEC"), []any{"again"}},
			{cmd("WATCH", "w"), ok},
			{cmd("UNWATCH"), ok},
			{cmd("SET", "w", "x"), ok},
			{cmd("MULTI"), ok},
			{cmd("EXEC"), []any{}},
			{cmd("WATCH", "w"), ok},
			{cmd("MULTI"), ok},
			{cmd("DISCARD"), ok},
			{cmd("SET", "w", "y"), ok},
			{cmd("MULTI"), ok},
			{cmd("EXEC"), []any{}},
		})
		// A watched key that expires fails the transaction; one already
		// expired at WATCH does not.
		run(t, conn, []step{
			{cmd("SET", "e", "1", "PX", "50"), ok},
			{cmd("WATCH", "e"), ok},
		})
		time.Sleep(100 * time.Millisecond)
		run(t, conn, []step{
			{cmd("MULTI"), ok},
			{cmd("EXEC"), nil},
			{cmd("SET", "e", "1", "PX", "1"), ok},
		})
		time.Sleep(10 * time.Millisecond)
		run(t, conn, []step{
			{cmd("WATCH", "e"), ok},
			{cmd("MULTI"), ok},
			{cmd("EXEC"), []any{}},
		})
	})
}
