package resp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func frameReader(in []byte) *FrameReader {
	return &FrameReader{R: bufio.NewReader(bytes.NewReader(in)), MaxArgs: 8, MaxBulk: 1 << 20}
}

func TestFrameGolden(t *testing.T) {
	got := AppendFrame(nil, []byte("BATCH"), []byte("42"), []byte("a\r\nb"), nil)
	want := "*4\r\n$5\r\nBATCH\r\n$2\r\n42\r\n$4\r\na\r\nb\r\n$0\r\n\r\n"
	if string(got) != want {
		t.Fatalf("AppendFrame = %q, want %q", got, want)
	}
}

func TestFrameRoundTrip(t *testing.T) {
	frames := [][][]byte{
		{[]byte("PING")},
		{[]byte("FILE"), []byte("000012.sst"), bytes.Repeat([]byte{0, '\r', '\n', 0xff}, 1000)},
		{},
		{[]byte("")},
	}
	var stream []byte
	for _, f := range frames {
		stream = AppendFrame(stream, f...)
	}
	stream = append(stream, "+CONTINUE abc\r\n"...)
	r := frameReader(stream)
	for i, want := range frames {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if len(got) != len(want) {
			t.Fatalf("frame %d: %d args, want %d", i, len(got), len(want))
		}
		for j := range want {
			if !bytes.Equal(got[j], want[j]) {
				t.Fatalf("frame %d arg %d: %q, want %q", i, j, got[j], want[j])
			}
		}
	}
	if line, err := r.Line(); err != nil || line != "+CONTINUE abc" {
		t.Fatalf("Line = %q, %v", line, err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("Next at the end: %v, want EOF", err)
	}
}

func TestFrameRejects(t *testing.T) {
	for _, in := range []string{
		"*9\r\n",                           // over MaxArgs
		"*1\r\n$2000000\r\n",               // over MaxBulk
		"*-1\r\n",                          // negative
		"*+1\r\n$1\r\na\r\n",               // not Redis's integer form
		"*1\r\n:1\r\n",                     // not a bulk
		"*1\r\n$1\r\nab\r\n",               // bulk longer than said
		"+OK\r\n",                          // a line, not a frame
		"*1\n$1\r\na\r\n",                  // bare LF
		"*1\r\n$1\r\na",                    // cut short
		strings.Repeat("x", 5000) + "\r\n", // line longer than the buffer
	} {
		if _, err := frameReader([]byte(in)).Next(); err == nil {
			t.Errorf("Next(%q) took it", in)
		}
	}
}

func FuzzFrames(f *testing.F) {
	f.Add(AppendFrame(nil, []byte("BATCH"), []byte("1"), []byte("xyz")))
	f.Add([]byte("*2\r\n$1\r\na\r\n$-1\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := frameReader(in)
		for {
			args, err := r.Next()
			if err != nil {
				return
			}
			// What parses encodes back to a prefix of the input's
			// remaining bytes' own frame: reading it again gives the
			// same arguments.
			again, err := frameReader(AppendFrame(nil, args...)).Next()
			if err != nil || len(again) != len(args) {
				t.Fatalf("re-read of %q: %q, %v", args, again, err)
			}
			for i := range args {
				if !bytes.Equal(again[i], args[i]) {
					t.Fatalf("re-read of %q: %q", args, again)
				}
			}
		}
	})
}
