package server

import (
	"bufio"
	"crypto/rand"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestCloseDuringFullSync closes the server while a replica that reads
// nothing holds its full sync in a write: the close must not touch the
// link's reply buffer while the link's goroutine fills it (the race
// detector's find under the command fuzzer).
func TestCloseDuringFullSync(t *testing.T) {
	s := startServer(t, nil, zerolog.Nop())
	c := newAdminClient(t, s, "")
	// Random values, which no compression shrinks: a checkpoint of 8 MB,
	// well past the socket buffers.
	value := make([]byte, 64<<10)
	for i := range 128 {
		_, _ = rand.Read(value)
		if err := c.Set(t.Context(), "k"+strconv.Itoa(i), value, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write([]byte("*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "+FULLRESYNC") {
		t.Fatalf("PSYNC: %q, %v", line, err)
	}
	time.Sleep(200 * time.Millisecond) // the checkpoint fills the socket
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
