package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// workerView is a share worker as the API answers it.
type workerView struct {
	Name    string `json:"name"`
	Crashed bool   `json:"crashed"`
	Held    []struct {
		Offset        int64 `json:"offset"`
		DeliveryCount int32 `json:"deliveryCount"`
	} `json:"held"`
}

func (v workerView) heldOffsets() []string {
	var out []string
	for _, h := range v.Held {
		out = append(out, fmt.Sprintf("%d/%d", h.Offset, h.DeliveryCount))
	}
	return out
}

// TestShareWorkers drives the dashboard's own share consumers on both
// brokers: w1 polls the five records, accepts 0, rejects 1, releases 2
// and hangs holding 3 and 4; their locks (2 s) expire and w2 receives 2,
// 3 and 4 again with delivery count 2. The share state names the worker
// holding each record on both brokers — on Kafka too, where only the
// dashboard knows it — and the story tells each step.
func TestShareWorkers(t *testing.T) {
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel() // the two brokers side by side; the test runs alone
			a := startApp(t, kind)
			topic, group := a.name("share-act"), a.name("act")
			a.createTopic(topic)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			produceShareJobs(t, ctx, a.bootstrap(), topic, 5)
			// Short locks: the group's setting, on both brokers.
			setGroupConfig(t, ctx, a, group, "share.record.lock.duration.ms", "2000")
			var w1 workerView
			a.do("POST", "/api/share/workers", map[string]any{"name": "w1", "group": group, "topic": topic, "fromStart": true}, http.StatusCreated, &w1)
			defer a.request("DELETE", "/api/share/workers/w1", nil)
			err := wait.Until(ctx, 10*time.Millisecond, func(context.Context) (bool, error) {
				a.do("POST", "/api/share/workers/w1/poll", nil, http.StatusOK, &w1)
				return len(w1.Held) == 5, nil
			})
			if err != nil {
				t.Fatalf("w1 holds %v: %v", w1.heldOffsets(), err)
			}
			s := a.shareState(topic, group, 0)
			for _, r := range s.Records {
				if r.State != "acquired" || r.Worker != "w1" || r.LockExpiresAt == nil {
					t.Errorf("offset %d: %s by %q until %v, want acquired by w1", r.Offset, r.State, r.Worker, r.LockExpiresAt)
				}
			}
			for offset, ack := range map[int]string{0: "accept", 1: "reject", 2: "release"} {
				a.do("POST", "/api/share/workers/w1/ack", map[string]any{"partition": 0, "offset": offset, "ack": ack}, http.StatusOK, &w1)
			}
			if got, want := w1.heldOffsets(), []string{"3/1", "4/1"}; !slices.Equal(got, want) {
				t.Errorf("w1 holds %v, want %v", got, want)
			}
			a.do("POST", "/api/share/workers/w1/crash", nil, http.StatusOK, &w1)
			status, _ := a.request("POST", "/api/share/workers/w1/poll", nil)
			if status != http.StatusConflict {
				t.Errorf("a crashed worker's poll: %d, want 409", status)
			}

			// Once their locks expire, 3 and 4 are acquired no longer
			// (on Kafka: the dashboard knows w1's deadlines passed).
			err = wait.Until(ctx, 100*time.Millisecond, func(context.Context) (bool, error) {
				s = a.shareState(topic, group, 3)
				return len(s.Records) == 2 && s.Records[0].State != "acquired" && s.Records[1].State != "acquired", nil
			})
			if err != nil {
				t.Fatalf("w1's locks never expired: %+v: %v", s.Records, err)
			}
			var w2 workerView
			a.do("POST", "/api/share/workers", map[string]any{"name": "w2", "group": group, "topic": topic}, http.StatusCreated, &w2)
			defer a.request("DELETE", "/api/share/workers/w2", nil)
			err = wait.Until(ctx, 100*time.Millisecond, func(context.Context) (bool, error) {
				a.do("POST", "/api/share/workers/w2/poll", nil, http.StatusOK, &w2)
				return len(w2.Held) == 3, nil
			})
			if err != nil {
				t.Fatalf("w2 received nothing: %v", err)
			}
			if got, want := w2.heldOffsets(), []string{"2/2", "3/2", "4/2"}; !slices.Equal(got, want) {
				t.Errorf("w2 holds %v, want %v (offset/delivery count)", got, want)
			}
			s = a.shareState(topic, group, 0)
			var states []string
			for _, r := range s.Records {
				states = append(states, fmt.Sprintf("%d:%s/%d/%s", r.Offset, r.State, r.DeliveryCount, r.Worker))
			}
			if want := []string{"2:acquired/2/w2", "3:acquired/2/w2", "4:acquired/2/w2"}; s.StartOffset != 2 || !slices.Equal(states, want) {
				t.Errorf("%s: SPSO %d, %v; want SPSO 2, %v", kind, s.StartOffset, states, want)
			}
			t.Logf("%s: after w1's crash: SPSO %d SPEO %d %v", kind, s.StartOffset, s.EndOffset, states)
			a.do("DELETE", "/api/share/workers/w2", nil, http.StatusNoContent, nil)
			var events struct {
				Events []struct {
					Topic string `json:"topic"`
					Key   string `json:"key"`
				} `json:"events"`
			}
			a.do("GET", "/api/events", nil, http.StatusOK, &events)
			told := map[string]bool{}
			for _, e := range events.Events {
				if e.Topic == topic {
					told[e.Key] = true
				}
			}
			for _, key := range []string{"started", "polled", "accept", "reject", "release", "crashed", "stopped"} {
				if !told["narration.share."+key] {
					t.Errorf("the story does not tell narration.share.%s", key)
				}
			}
		})
	}
}
