package server

import (
	"slices"
	"strings"
	"testing"
)

// TestScriptCommandPanic: a command that panics inside a script is the bug
// it is outside one (TestPanicCostsOnlyTheConnection): its client gets ERR
// internal error and loses its connection, the log has the panic and its
// stack, and nothing of the script is written, even when redis.pcall or
// Lua's pcall called it. The interpreter's PCall, which recovers every
// panic, made it a script error that showed the panic's text, let pcall
// go on, and committed the script's writes.
func TestScriptCommandPanic(t *testing.T) {
	// Not parallel: the test's row joins a family of the table while the
	// server starts, when no parallel test runs.
	saved := resetCommands
	resetCommands = append(slices.Clip(saved), cmd("test-panic", 1, Write, 0, 0, 0, func(*Ctx, [][]byte) error {
		panic("test panic")
	}))
	s, logs := startLoggedServer(t, nil)
	resetCommands = saved
	for _, script := range []string{
		"redis.call('set', 'a', '1') return redis.call('test-panic')",
		"redis.call('set', 'a', '1') return redis.pcall('test-panic')",
		"redis.call('set', 'a', '1') pcall(redis.call, 'test-panic') return 1",
	} {
		got := rawExchange(t, s, multibulk("EVAL", script, "0")+multibulk("SET", "b", "1"))
		if want := "-ERR internal error\r\n"; got != want {
			t.Errorf("EVAL %q: replies %q, want %q and a closed connection", script, got, want)
		}
	}
	other := newAdminClient(t, s, "")
	runScript(t, other, []step{
		{[]any{"EXISTS", "a", "b"}, int64(0)},
		{[]any{"EVAL", "return redis.call('set', 'a', '1')", "0"}, "OK"}, // the interpreter works on
	})
	out := logs.String()
	if n := strings.Count(out, `"message":"command panicked in a script"`); n != 3 {
		t.Errorf("%d lines for the panics in the log, want 3:\n%s", n, out)
	}
	for _, want := range []string{`"cmd":"test-panic"`, `"stack":"goroutine`, `"cmd":"eval"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s", want)
		}
	}
}
