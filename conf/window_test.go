package conf

import (
	"testing"
	"time"
)

func TestParseWindow(t *testing.T) {
	tests := []struct {
		in      string
		want    Window
		wantErr bool
	}{
		{"", Window{}, false},
		{"03:00-05:00", Window{true, 180, 300}, false},
		{"23:30-01:00", Window{true, 1410, 60}, false},
		{"00:00-23:59", Window{true, 0, 1439}, false},
		{" 03:00 - 05:00 ", Window{true, 180, 300}, false},
		{"03:00-03:00", Window{}, true},
		{"3:00-05:00", Window{}, true},
		{"24:00-05:00", Window{}, true},
		{"03:60-05:00", Window{}, true},
		{"03:00", Window{}, true},
		{"aa:bb-cc:dd", Window{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseWindow(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseWindow(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err == nil && tt.in != "" {
				if back, _ := ParseWindow(got.String()); back != got {
					t.Fatalf("round trip via %q = %+v", got.String(), back)
				}
			}
		})
	}
}

func TestWindowOpened(t *testing.T) {
	day := func(d, h, m int) time.Time { return time.Date(2026, 3, d, h, m, 30, 0, time.UTC) }
	tests := []struct {
		window string
		at     time.Time
		start  time.Time
		open   bool
	}{
		{"03:00-05:00", day(10, 2, 59), time.Time{}, false},
		{"03:00-05:00", day(10, 3, 0), day(10, 3, 0).Add(-30 * time.Second), true},
		{"03:00-05:00", day(10, 4, 59), day(10, 3, 0).Add(-30 * time.Second), true},
		{"03:00-05:00", day(10, 5, 0), time.Time{}, false},
		{"23:30-01:00", day(10, 23, 45), day(10, 23, 30).Add(-30 * time.Second), true},
		{"23:30-01:00", day(11, 0, 30), day(10, 23, 30).Add(-30 * time.Second), true},
		{"23:30-01:00", day(11, 1, 0), time.Time{}, false},
		{"23:30-01:00", day(11, 12, 0), time.Time{}, false},
		{"", day(11, 12, 0), time.Time{}, false},
	}
	for _, tt := range tests {
		w, err := ParseWindow(tt.window)
		if err != nil {
			t.Fatal(err)
		}
		start, open := w.Opened(tt.at)
		if open != tt.open || !start.Equal(tt.start) {
			t.Errorf("%q.Opened(%v) = %v, %v; want %v, %v", tt.window, tt.at, start, open, tt.start, tt.open)
		}
	}
}
