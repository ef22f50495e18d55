package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// stepAnswer is a step's answer as the lesson API sends it (the steps
// that only read): what the stage draws at the cells.
type stepAnswer struct {
	Transaction *struct {
		TransactionalID string `json:"transactionalId"`
		State           string `json:"state"`
		ProducerEpoch   int    `json:"producerEpoch"`
		Offset          int64  `json:"offset"`
		Anchor          string `json:"anchor"`
	} `json:"transaction"`
	Group *struct {
		Group     string `json:"group"`
		Committed int64  `json:"committed"`
		LogEnd    int64  `json:"logEnd"`
		Lag       int64  `json:"lag"`
	} `json:"group"`
	Read *struct {
		Isolation string  `json:"isolation"`
		Offsets   []int64 `json:"offsets"`
		Resume    *struct {
			Committed  int64 `json:"committed"`
			OutOfRange bool  `json:"outOfRange"`
			Start      int64 `json:"start"`
			Lost       int64 `json:"lost"`
			Next       int64 `json:"next"`
		} `json:"resume"`
	} `json:"read"`
	Log *struct {
		Markers []int64 `json:"markers"`
		Aborted []int64 `json:"aborted"`
		Gaps    []struct {
			From   int64  `json:"from"`
			To     int64  `json:"to"`
			Reason string `json:"reason"`
		} `json:"gaps"`
		Copies []struct {
			Value   string  `json:"value"`
			Offsets []int64 `json:"offsets"`
		} `json:"copies"`
		LogStartOffset   int64 `json:"logStartOffset"`
		LastStableOffset int64 `json:"lastStableOffset"`
		HighWatermark    int64 `json:"highWatermark"`
	} `json:"log"`
}

// answeredStep is a step of a run with its answer and log.
type answeredStep struct {
	Status    string      `json:"status"`
	Topic     string      `json:"topic"`
	Partition int32       `json:"partition"`
	Answer    *stepAnswer `json:"answer"`
}

// nextAnswer runs the next step of run and returns it as the API sends it.
func (a *app) nextAnswer(run string, step int) answeredStep {
	a.t.Helper()
	code, body := a.request("POST", "/api/lessons/runs/"+run+"/next", nil)
	if code != http.StatusOK {
		a.t.Fatalf("step %d: %d %s", step+1, code, body)
	}
	var st struct {
		Steps []answeredStep `json:"steps"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		a.t.Fatal(err)
	}
	return st.Steps[step]
}

// answerText spells an answer the way the cases below want it.
func answerText(s answeredStep, names map[string]string) string {
	logical := s.Topic
	for k, v := range names {
		if v == s.Topic {
			logical = k
		}
	}
	ans := s.Answer
	switch {
	case ans == nil:
		return "none"
	case ans.Transaction != nil:
		x := ans.Transaction
		return logical + " " + x.State + " " + x.Anchor + " at " + itoa64(x.Offset) + " id=" + strings.TrimSuffix(x.TransactionalID, "-"+suffixOf(names))
	case ans.Group != nil:
		return logical + " committed " + itoa64(ans.Group.Committed) + " logEnd " + itoa64(ans.Group.LogEnd)
	case ans.Read != nil && ans.Read.Resume != nil:
		g := ans.Read.Resume
		return fmt.Sprintf("%s group from %d (out of range %v, start %d, lost %d) received %s committed %d",
			logical, g.Committed, g.OutOfRange, g.Start, g.Lost, joinInts(ans.Read.Offsets), g.Next)
	case ans.Read != nil:
		return logical + " " + ans.Read.Isolation + " received " + joinInts(ans.Read.Offsets)
	case ans.Log != nil:
		var gaps []string
		for _, g := range ans.Log.Gaps {
			gaps = append(gaps, fmt.Sprintf("%d-%d %s", g.From, g.To, g.Reason))
		}
		for _, c := range ans.Log.Copies {
			gaps = append(gaps, c.Value+" at "+joinInts(c.Offsets))
		}
		return logical + " markers " + joinInts(ans.Log.Markers) + " aborted " + joinInts(ans.Log.Aborted) + " gaps " + strings.Join(gaps, ",") +
			" start " + itoa64(ans.Log.LogStartOffset) + " lso " + itoa64(ans.Log.LastStableOffset) + " hw " + itoa64(ans.Log.HighWatermark)
	}
	return "empty"
}

func suffixOf(names map[string]string) string {
	for k, v := range names {
		return strings.TrimPrefix(v, k+"-")
	}
	return ""
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func joinInts(ns []int64) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = itoa64(n)
	}
	return strings.Join(parts, ",")
}

// TestLessonStepAnswers runs lessons 2, 3, 5, 6g and 8 through the API on the
// embedded broker and on real Kafka and requires each step that only
// reads to carry its answer in structured fields, on the log it
// concerns: the coordinator's state at the open transaction's first
// record (or the producer's last marker), the group's committed offset,
// the offsets a consumer received, the markers and pointers of the log.
// Steps that write carry none.
func TestLessonStepAnswers(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			const after, aborted = "CompleteCommit", "CompleteAbort"
			lessons := map[string][]string{
				"2": {"none", "none", "none",
					"order-totals-tx Ongoing open at 2 id=order-totals-app",
					"orders committed 1 logEnd 3",
					"none",
					"order-totals-tx " + after + " marker at 7 id=order-totals-app",
					"order-totals-tx read_committed received 0,4,6",
					"orders committed 3 logEnd 3"},
				"3": {"none", "none", "none", "none",
					"order-totals-tx read_uncommitted received 0,2,4,6",
					"order-totals-tx markers 1,3,5,7 aborted 2 gaps  start 0 lso 8 hw 8",
					"order-totals-tx read_committed received 0,4,6"},
			}
			// Of lessons 6g and 8, the steps below (by index): in 6g the
			// broker aborts the open transaction at its timeout and the
			// coordinator's state is drawn at that ABORT marker; in 8 the
			// groups resume below the log start.
			some := map[string]map[int]string{
				"6g": {4: "payments read_committed received ", 7: "payments " + aborted + " marker at 3 id=slow-app"},
				// Lesson 5: the copies of the events its reads of the log count.
				"5": {
					2: "reliable-orders markers  aborted  gaps event-1001 at 0,1 start 0 lso 2 hw 2",
					4: "reliable-orders markers  aborted  gaps event-1002 at 2 start 0 lso 3 hw 3",
					7: "reliable-orders markers  aborted  gaps event-1003 at 3,4 start 0 lso 5 hw 5",
					9: "reliable-orders markers  aborted  gaps event-1002 at 2,5 start 0 lso 6 hw 6",
				},
				"8": {
					2: "events group from -1 (out of range false, start 0, lost 0) received 0,1 committed 2",
					5: "events markers  aborted  gaps 0-3 beforeLogStart start 4 lso 6 hw 6",
					8: "events group from 2 (out of range true, start 4, lost 2) received 4,5,6,7 committed 8",
					9: "events group from 2 (out of range true, start 8, lost 6) received  committed 8",
				},
			}
			for _, id := range []string{"2", "3", "5", "6g", "8"} {
				var st lessonRun
				a.do("POST", "/api/lessons/"+id+"/runs", nil, http.StatusCreated, &st)
				var got []string
				for i := range st.Steps {
					got = append(got, answerText(a.nextAnswer(st.ID, i), st.Names))
				}
				if steps, ok := some[id]; ok {
					for i, want := range steps {
						if got[i] != want {
							t.Errorf("lesson %s step %d answers %q, want %q", id, i+1, got[i], want)
						}
					}
					continue
				}
				equal(t, "lesson "+id+"'s answers", got, lessons[id])
			}
		})
	}
}
