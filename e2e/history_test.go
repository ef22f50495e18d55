package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// historyStep is a recorded step, as far as the tests read it.
type historyStep struct {
	Seq      int    `json:"seq"`
	Type     string `json:"type"`
	Pointers *struct {
		LastStableOffset int64 `json:"lastStableOffset"`
		HighWatermark    int64 `json:"highWatermark"`
	} `json:"pointers"`
	Entries []struct {
		Offset int64  `json:"offset"`
		Kind   string `json:"kind"`
		Marker string `json:"marker"`
		Txn    string `json:"txn"`
	} `json:"entries"`
	Event *struct {
		Key    string `json:"key"`
		Offset *int64 `json:"offset"`
	} `json:"event"`
}

// replayed is a partition as the replay shows it after some steps.
type replayed struct {
	cells  map[int64]string // offset → "txn" or the marker
	lso    int64
	hw     int64
	events []string
}

func replaySteps(steps []historyStep) replayed {
	r := replayed{cells: map[int64]string{}}
	for _, s := range steps {
		if s.Type == "snapshot" {
			clear(r.cells)
		}
		for _, e := range s.Entries {
			if e.Kind == "control" {
				r.cells[e.Offset] = e.Marker
			} else {
				r.cells[e.Offset] = e.Txn
			}
		}
		if s.Pointers != nil {
			r.lso, r.hw = s.Pointers.LastStableOffset, s.Pointers.HighWatermark
		}
		if s.Event != nil {
			r.events = append(r.events, s.Event.Key)
		}
	}
	return r
}

func (r replayed) shape() []string {
	var out []string
	for o := range r.hw {
		out = append(out, fmt.Sprintf("%d:%s", o, r.cells[o]))
	}
	return out
}

// TestHistoryReplaysLesson2: the server records order-totals-tx's story
// while lesson 2 runs, on both brokers. Replayed step by step it passes
// through the crash — HW 3, LSO 2, offset 2 open — and ends on the
// seed's log (COMMIT 1, ABORT 3, COMMIT 5 and 7); every sentence about a
// cell comes after the step that wrote it; and a restarted server answers
// the same story.
func TestHistoryReplaysLesson2(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			kafka, dir := connectKafka(t, kind), t.TempDir()
			var (
				topic string
				steps []historyStep
			)
			t.Run("first server", func(t *testing.T) {
				a := serveOn(t, kind, kafka, nil, dir)
				st := a.runLesson("2", true)
				if st.Status != "finished" {
					t.Fatalf("lesson 2: %+v", st)
				}
				topic = st.Names["order-totals-tx"]
				steps = a.history(topic)
			})
			if t.Failed() {
				return
			}
			crash := -1
			for i := range steps {
				r := replaySteps(steps[:i+1])
				if r.hw == 3 && r.lso == 2 && r.cells[2] == "open" {
					crash = i
					break
				}
			}
			if crash < 0 {
				t.Fatalf("no step of %s's history shows the crash (HW 3, LSO 2, offset 2 open): %+v", topic, steps)
			}
			end := replaySteps(steps)
			equal(t, "replayed to the end", end.shape(), []string{"0:committed", "1:COMMIT", "2:aborted", "3:ABORT", "4:committed", "5:COMMIT", "6:committed", "7:COMMIT"})
			if end.lso != 8 {
				t.Fatalf("replayed to the end, LSO %d; want 8", end.lso)
			}
			for i, s := range steps {
				if s.Event == nil || s.Event.Offset == nil {
					continue
				}
				if _, ok := replaySteps(steps[:i]).cells[*s.Event.Offset]; !ok {
					t.Fatalf("step %d tells %s about offset %d before a step wrote it", s.Seq, s.Event.Key, *s.Event.Offset)
				}
			}

			again := serveOn(t, kind, kafka, nil, dir)
			after := again.history(topic)
			if len(after) < len(steps) || after[len(steps)-1].Seq != steps[len(steps)-1].Seq {
				t.Fatalf("after a restart the history has %d steps; want the %d recorded", len(after), len(steps))
			}
			var from struct {
				Steps []historyStep `json:"steps"`
			}
			again.do("GET", fmt.Sprintf("/api/topics/%s/partitions/0/history?from=%d", topic, steps[crash].Seq), nil, http.StatusOK, &from)
			if len(from.Steps) == 0 || from.Steps[0].Seq != steps[crash].Seq {
				t.Fatalf("history from the crash's step %d starts at %+v", steps[crash].Seq, from.Steps)
			}
			for _, bad := range []string{"from=-1", "from=x"} {
				if status, _ := again.request("GET", "/api/topics/"+topic+"/partitions/0/history?"+bad, nil); status != http.StatusBadRequest {
					t.Fatalf("history?%s: %d, want 400", bad, status)
				}
			}
			if status, _ := again.request("GET", "/api/topics/"+topic+"/partitions/9/history", nil); status != http.StatusNotFound {
				t.Fatalf("history of a partition the topic lacks: %d, want 404", status)
			}
			if status, body := again.request("DELETE", "/api/topics/"+topic+"?confirm="+topic, nil); status/100 != 2 {
				t.Fatalf("delete %s: %d %s", topic, status, body)
			}
			if _, err := os.Stat(filepath.Join(dir, topic)); !os.IsNotExist(err) {
				t.Fatalf("a deleted topic's history is still kept: %v", err)
			}
		})
	}
}

// history is the partition 0 history of topic.
func (a *app) history(topic string) []historyStep {
	a.t.Helper()
	var h struct {
		Topic string        `json:"topic"`
		Steps []historyStep `json:"steps"`
	}
	a.do("GET", "/api/topics/"+topic+"/partitions/0/history", nil, http.StatusOK, &h)
	if h.Topic != topic {
		a.t.Fatalf("history of %s answered topic %q", topic, h.Topic)
	}
	return h.Steps
}
