package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// scanLab is pageLab whose searches run until released.
type scanLab struct {
	pageLab
	started chan struct{}
	release chan struct{}
}

func (c *scanLab) Search(ctx context.Context, topic string, partition int32, _ inspect.SearchRequest) (*inspect.SearchResult, error) {
	c.started <- struct{}{}
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return &inspect.SearchResult{Topic: topic, Partition: partition, Matches: []inspect.Entry{}}, nil
}

// TestScansHaveTheirOwnLine: while every scan turn is taken, another scan
// (and a download's …/log?scan=1) waits and is turned away, but a window
// read is served at once.
func TestScansHaveTheirOwnLine(t *testing.T) {
	t.Parallel()
	lab := &scanLab{
		pageLab: pageLab{topics: []cluster.TopicInfo{topicWith("t", 10)}, lastWrite: map[string]time.Time{"t": time.Now()}},
		started: make(chan struct{}, 1), release: make(chan struct{}),
	}
	h := New(Deps{Lab: lab}, nil, WithLimits(Limits{Scans: 1, ScansPerClient: 4, ReadQueueWait: 50 * time.Millisecond})).Handler()
	get := func(path string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	done := make(chan int, 1)
	go func() { done <- get("/api/topics/t/partitions/0/search?q=x") }()
	<-lab.started

	tests := []struct {
		path string
		want int
	}{
		{"/api/topics/t/partitions/0/log?from=0&limit=1", http.StatusOK},
		{"/api/topics/t/partitions/0/search?q=y", http.StatusServiceUnavailable},
		{"/api/topics/t/partitions/0/log?from=0&limit=1&scan=1", http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		if got := get(tt.path); got != tt.want {
			t.Errorf("GET %s while a scan holds the only turn: %d, want %d", tt.path, got, tt.want)
		}
	}
	close(lab.release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("the scan that held the turn answered %d", code)
	}
}
