package api

import (
	"testing"
	"time"
)

// TestPresence: a student page counts while it polls, whether or not a
// partition is open on it, and stops counting a few seconds after it
// goes quiet; a page polling twice is one page.
func TestPresence(t *testing.T) {
	t.Parallel()
	var p presence
	t0 := time.Unix(1000, 0)
	tests := []struct {
		at   time.Duration
		mark string
		want int64
	}{
		{0, "tab-aaaaaaaa", 1},
		{time.Second, "tab-bbbbbbbb", 2},
		{2 * time.Second, "tab-aaaaaaaa", 2},
		{7 * time.Second, "", 2}, // b polled 6 s ago: still in the window
		{8 * time.Second, "", 1}, // b gone quiet; a polled 6 s ago
		{10 * time.Second, "", 0},
	}
	for _, tt := range tests {
		now := t0.Add(tt.at)
		if tt.mark != "" {
			p.mark(tt.mark, now)
		}
		if got := p.count(now); got != tt.want {
			t.Errorf("at %v: %d pages present, want %d", tt.at, got, tt.want)
		}
	}
}
