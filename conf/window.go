package conf

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Window is a daily time window in local time, as compaction.full_window
// writes it: "HH:MM-HH:MM", start inclusive, end exclusive. An end at or
// before the start crosses midnight. The zero Window is off.
type Window struct {
	On         bool
	Start, End int // minutes since midnight, 0..1439
}

// ParseWindow parses "HH:MM-HH:MM"; "" is the zero (off) Window. Equal start
// and end are refused: it is unclear whether that means all day or never.
func ParseWindow(s string) (Window, error) {
	if s == "" {
		return Window{}, nil
	}
	from, to, ok := strings.Cut(s, "-")
	if !ok {
		return Window{}, fmt.Errorf("%q is not a window like \"03:00-05:00\"", s)
	}
	start, err1 := parseClock(strings.TrimSpace(from))
	end, err2 := parseClock(strings.TrimSpace(to))
	if err1 != nil || err2 != nil {
		return Window{}, fmt.Errorf("%q is not a window like \"03:00-05:00\" (HH:MM, 00:00..23:59)", s)
	}
	if start == end {
		return Window{}, fmt.Errorf("%q starts and ends at the same time", s)
	}
	return Window{On: true, Start: start, End: end}, nil
}

func parseClock(s string) (int, error) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) != 2 || len(m) != 2 {
		return 0, fmt.Errorf("bad time %q", s)
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, fmt.Errorf("bad time %q", s)
	}
	return hh*60 + mm, nil
}

// Opened returns the start of the occurrence of w that contains t, and
// whether one does. Two times in the same occurrence get the same start,
// which is how a caller runs a job once per occurrence.
func (w Window) Opened(t time.Time) (time.Time, bool) {
	if !w.On {
		return time.Time{}, false
	}
	midnight := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	min := t.Hour()*60 + t.Minute()
	at := func(day time.Time, minutes int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day(), minutes/60, minutes%60, 0, 0, t.Location())
	}
	if w.Start < w.End {
		if min >= w.Start && min < w.End {
			return at(midnight, w.Start), true
		}
		return time.Time{}, false
	}
	// Crosses midnight: [Start, 24:00) today or [00:00, End) from yesterday.
	if min >= w.Start {
		return at(midnight, w.Start), true
	}
	if min < w.End {
		return at(midnight.AddDate(0, 0, -1), w.Start), true
	}
	return time.Time{}, false
}

// String writes w as ParseWindow reads it.
func (w Window) String() string {
	if !w.On {
		return ""
	}
	return fmt.Sprintf("%02d:%02d-%02d:%02d", w.Start/60, w.Start%60, w.End/60, w.End%60)
}
