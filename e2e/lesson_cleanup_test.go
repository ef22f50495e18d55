package e2e

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// topicGone reports whether GET /api/topics/{t} answers 404 within a
// few seconds (a real broker deletes asynchronously).
func (a *app) topicGone(topic string) bool {
	a.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		status, _ := a.request("GET", "/api/topics/"+topic, nil)
		if status == http.StatusNotFound {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestLessonCleanup: a finished run's cleanup deletes its topics and
// resets it under fresh names, on both brokers; on the embedded broker
// (which no other test shares) cleaning up every run deletes what earlier
// runs made and keeps the current run's topics and the teacher's own.
func TestLessonCleanup(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			st := a.runLesson("6d", true)
			if st.Status != "finished" {
				t.Fatalf("lesson 6d: %+v", st)
			}
			var cleaned lessonRun
			a.do("POST", "/api/lessons/runs/"+st.ID+"/cleanup", nil, http.StatusOK, &cleaned)
			if cleaned.Cursor != 0 || cleaned.Status != "ready" || cleaned.Suffix == st.Suffix {
				t.Fatalf("after cleanup the run is %+v; want it ready under fresh names", cleaned)
			}
			for _, topic := range st.Topics {
				if !a.topicGone(topic) {
					t.Fatalf("topic %s is still there after cleanup", topic)
				}
			}
			if kind != embedded {
				return
			}

			earlier := a.runLesson("1", true)
			own := a.name("teacher")
			a.createTopic(own)
			// A team's topics named like lesson topics: a lesson name, a
			// dash and six hex digits. No run created them.
			lookalikes := []string{"orders-202612", "order-totals-c0ffee", "payments-decade", "inventory-decade"}
			for _, name := range lookalikes {
				a.createTopic(name)
			}
			current := a.runLesson("6d", true)
			var plan struct {
				Topics []string `json:"topics"`
			}
			a.do("GET", "/api/lessons/cleanup", nil, http.StatusOK, &plan)
			if want := slices.Sorted(slices.Values(earlier.Topics)); !slices.Equal(slices.Sorted(slices.Values(plan.Topics)), want) {
				t.Fatalf("GET /api/lessons/cleanup = %v, want the earlier run's topics %v", plan.Topics, want)
			}
			status, body := a.request("POST", "/api/lessons/cleanup", map[string]any{"confirm": append(slices.Clone(plan.Topics), lookalikes[0])})
			if status != http.StatusConflict {
				t.Fatalf("confirming a look-alike topic: %d %s, want 409", status, body)
			}
			var answer struct {
				Deleted []string `json:"deleted"`
			}
			a.do("POST", "/api/lessons/cleanup", map[string]any{"confirm": plan.Topics}, http.StatusOK, &answer)
			for _, topic := range earlier.Topics {
				if !slices.Contains(answer.Deleted, topic) || !a.topicGone(topic) {
					t.Fatalf("cleanup of every run answered %v; want %s deleted", answer.Deleted, topic)
				}
			}
			// Without a body (the first form of the API) it deletes what
			// is left to clean up: nothing, the look-alikes least of all.
			var again struct {
				Deleted []string `json:"deleted"`
			}
			a.do("POST", "/api/lessons/cleanup", nil, http.StatusOK, &again)
			if len(again.Deleted) != 0 {
				t.Fatalf("cleaning up again deleted %v", again.Deleted)
			}
			for _, topic := range append(append([]string{own}, lookalikes...), current.Topics...) {
				if slices.Contains(answer.Deleted, topic) {
					t.Fatalf("cleanup of every run deleted %s", topic)
				}
				a.do("GET", "/api/topics/"+topic, nil, http.StatusOK, nil)
			}
			status, _ = a.request("GET", "/api/lessons/runs/"+earlier.ID, nil)
			if status != http.StatusNotFound {
				t.Fatalf("the earlier run after cleaning up every run: %d, want 404", status)
			}
			status, _ = a.requestFrom("https://evil.example", "POST", "/api/lessons/cleanup")
			if status != http.StatusForbidden {
				t.Fatalf("cross-origin cleanup: %d, want 403", status)
			}
		})
	}
}

// TestRecentEvents: GET /api/events answers the cluster's latest
// narration, oldest first and at most limit, and refuses a bad limit.
func TestRecentEvents(t *testing.T) {
	t.Parallel()
	a := startApp(t, embedded)
	a.runLesson("6d", true)
	type event struct {
		Topic string    `json:"topic"`
		Time  time.Time `json:"time"`
		Key   string    `json:"key"`
	}
	var all struct {
		Events []event `json:"events"`
	}
	a.do("GET", "/api/events", nil, http.StatusOK, &all)
	if len(all.Events) < 3 {
		t.Fatalf("after lesson 6d the cluster narrated %d events: %+v", len(all.Events), all.Events)
	}
	for i := 1; i < len(all.Events); i++ {
		if all.Events[i].Time.Before(all.Events[i-1].Time) {
			t.Fatalf("events out of order at %d: %+v", i, all.Events)
		}
	}
	var two struct {
		Events []event `json:"events"`
	}
	a.do("GET", "/api/events?limit=2", nil, http.StatusOK, &two)
	if len(two.Events) != 2 || two.Events[1] != all.Events[len(all.Events)-1] {
		t.Fatalf("limit=2 answered %+v; want the latest two of %d", two.Events, len(all.Events))
	}
	for _, bad := range []string{"0", "-1", "x"} {
		if status, _ := a.request("GET", "/api/events?limit="+bad, nil); status != http.StatusBadRequest {
			t.Fatalf("limit=%s: %d, want 400", bad, status)
		}
	}
}
