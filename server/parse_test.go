package server

import (
	"errors"
	"testing"
)

func TestParseCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"+7", 7, true},
		{"", 0, true},
		{"-1", 1<<64 - 1, true},
		{"-0", 0, true},
		{"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false},
		{"-", 0, false},
		{"+", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"0x10", 0, false},
		{"--1", 0, false},
	} {
		got, err := parseCursor([]byte(tc.in))
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("parseCursor(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if !tc.ok && !errors.Is(err, errInvalidCursor) {
			t.Errorf("parseCursor(%q) = %d, %v; want invalid cursor", tc.in, got, err)
		}
	}
}
