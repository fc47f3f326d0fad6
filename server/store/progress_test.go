package store

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestTrackJob(t *testing.T) {
	var out syncBuffer
	s := &Store{log: zerolog.New(&out)}
	lines := func() int { return strings.Count(out.String(), `"message":"background job progress"`) }
	done := s.trackJob("test job", 10*time.Millisecond, func(e *zerolog.Event) { e.Int("step", 7) })
	// Wait for two lines, however loaded the machine is.
	for deadline := time.Now().Add(20 * time.Second); lines() < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	done()
	if n := lines(); n < 2 || !strings.Contains(out.String(), `"job":"test job"`) || !strings.Contains(out.String(), `"step":7`) {
		t.Fatalf("%d progress lines:\n%s", n, out.String())
	}
	after := out.String()
	time.Sleep(30 * time.Millisecond)
	if out.String() != after {
		t.Fatal("progress lines after done")
	}

	// A job shorter than the interval logs nothing.
	var quiet syncBuffer
	s = &Store{log: zerolog.New(&quiet)}
	s.trackJob("short", time.Hour, nil)()
	if quiet.String() != "" {
		t.Fatalf("short job logged %q", quiet.String())
	}
}
