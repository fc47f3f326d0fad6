package main

import (
	"bufio"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestAppendCommand(t *testing.T) {
	got := string(appendCommand(nil, []byte("SET"), []byte("k"), []byte("")))
	if want := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestReplies(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		want    any
		isNil   bool
		wantErr string // prefix; "" for none
	}{
		{raw: "+OK\r\n", want: "OK"},
		{raw: ":42\r\n", want: int64(42)},
		{raw: "$3\r\nabc\r\n", want: "abc"},
		{raw: "$-1\r\n", want: nil, isNil: true},
		{raw: "*-1\r\n", want: nil, isNil: true},
		{raw: "*2\r\n$1\r\na\r\n:1\r\n", want: []any{"a", int64(1)}},
		{raw: "-ERR wrong\r\n", wantErr: "ERR wrong"},
		{raw: "$5\r\nab", wantErr: "unexpected EOF"},
		{raw: "?x\r\n", wantErr: "resp: protocol error"},
		{raw: "+OK\n", wantErr: "resp: protocol error"},
	} {
		v, err := readValue(bufio.NewReader(strings.NewReader(tc.raw)))
		isNil, derr := discardReply(bufio.NewReader(strings.NewReader(tc.raw)))
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) || derr == nil {
				t.Errorf("%q: got %v and %v, want error %q", tc.raw, err, derr, tc.wantErr)
			}
			continue
		}
		if err != nil || derr != nil || !reflect.DeepEqual(v, tc.want) || isNil != tc.isNil {
			t.Errorf("%q: got %#v, %v (nil %v, %v); want %#v (nil %v)", tc.raw, v, err, isNil, derr, tc.want, tc.isNil)
		}
	}
	var re replyError
	if _, err := discardReply(bufio.NewReader(strings.NewReader("-LOADING x\r\n"))); !errors.As(err, &re) {
		t.Errorf("error reply: got %v, want a replyError", err)
	}
}

func TestParseInfo(t *testing.T) {
	got := parseInfo("# Memory\r\nused_memory:123\r\nmem_allocator:go+rocksdb\r\n\r\n# RocksDB\r\nx:a:b\r\n")
	want := map[string]string{"used_memory": "123", "mem_allocator": "go+rocksdb", "x": "a:b"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
