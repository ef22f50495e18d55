package api

import (
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/web/httpx"
)

func TestFaultLimiter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	l := newFaultLimiter(3, 6)
	l.now = func() time.Time { return now }
	allowed := 0
	for range 20 {
		if l.allow(httpx.Teacher) {
			allowed++
		}
	}
	if allowed != 6 {
		t.Fatalf("a burst of 20 let %d through, want 6", allowed)
	}
	if !l.allow(httpx.Student) {
		t.Fatal("one role's burst emptied another's bucket")
	}
	now = now.Add(time.Second)
	allowed = 0
	for range 20 {
		if l.allow(httpx.Teacher) {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("one second later %d went through, want 3", allowed)
	}
	now = now.Add(time.Hour)
	allowed = 0
	for range 20 {
		if l.allow(httpx.Teacher) {
			allowed++
		}
	}
	if allowed != 6 {
		t.Fatalf("after a long pause %d went through, want the burst of 6", allowed)
	}
}
