package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// TestClassLimitsPerClient: one client address joins at most
// JoinsPerClient students in a burst (then 429 with Retry-After and a
// sentence), and holds at most LongPollsPerClient long polls of the
// results (one more: 429 at once); plain reads of the results are not
// counted. Red without the limits: the class filled from one address and
// every long poll was accepted.
func TestClassLimitsPerClient(t *testing.T) {
	t.Parallel()
	grader := exercises.NewGrader(nil, exercises.NewClass(exercises.ClassConfig{}), exercises.GraderConfig{})
	srv := New(Deps{Lab: &sectionLab{}, Exercises: grader}, nil, WithLimits(Limits{JoinsPerClient: 3, JoinEvery: time.Hour, LongPollsPerClient: 2}))
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	post := func(name string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/classroom/students", strings.NewReader(fmt.Sprintf(`{"name":%q}`, name)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", ts.URL)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for i := range 3 {
		if resp := post(fmt.Sprintf("s%d", i)); resp.StatusCode != http.StatusCreated {
			t.Fatalf("join %d: %d", i, resp.StatusCode)
		}
	}
	if resp := post("s9"); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a fourth join from one address: %d (Retry-After %q), want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	poll := func() chan int {
		out := make(chan int, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/exercises/commit/results?after=1000", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				out <- 0
				return
			}
			resp.Body.Close()
			out <- resp.StatusCode
		}()
		return out
	}
	held := []chan int{poll(), poll()}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := wait.Until(wctx, 5*time.Millisecond, func(context.Context) (bool, error) { return srv.polls.heldBy("127.0.0.1") == 2, nil }); err != nil {
		t.Fatalf("the two long polls never reached the server: %v", err)
	}
	if got := <-poll(); got != http.StatusTooManyRequests {
		t.Errorf("a third long poll from one address: %d, want 429", got)
	}
	resp, err := http.Get(ts.URL + "/api/exercises/commit/results")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		t.Error("a plain read of the results counted as a long poll")
	}
	cancel()
	for _, h := range held {
		<-h
	}
}
