package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// missingOffsetNumbers are the checks of lessons 7 and 8 each run must
// hold on either broker: the offsets and states Apache Kafka 4.3.1 showed
// (docs/lessons.md).
func missingOffsetNumbers() map[string][]string {
	const pass1, gaps1, markers, pass2, gaps2 = "removed=1, 2, 3", "gaps=1-3 compacted", "markers=4 COMMIT", "removed=6", "gaps=1-3 compacted, 6 compacted"
	return map[string][]string{
		"7": {
			"shape=0:none 1:none 2:none 3:committed 4:COMMIT 5:none 6:none 7:none", "gaps=none",
			"latest=apple=apple 130 · kiwi=<null> · pear=pear 300 · plum=plum 80",
			pass1, gaps1, markers, "logStart=0", pass2,
			gaps2, markers, "latest=apple=apple 130 · pear=pear 300 · plum=plum 90",
			"readCommitted=0, 5, 7, 8", "readUncommitted=0, 5, 7, 8",
			"records=0: pear 300 · 5: apple 130 · 7: plum 80 · 8: plum 90",
		},
		"8": {
			"offsets=0, 1", "next=2", "offsets=0, 1", "next=2", "logStart=4", "gaps=0-3 beforeLogStart",
			"committed=2", "logEnd=6", "lag=4",
			"outOfRange=yes", "start=4", "lost=2", "records=4: event 4 · 5: event 5 · 6: event 6 · 7: event 7", "next=8",
			"outOfRange=yes", "start=8", "lost=6", "records=none", "next=8",
			"logStart=8", "hw=8", "gaps=0-7 beforeLogStart", "committed=8", "lag=0",
		},
	}
}

// TestMissingOffsetLessons runs lessons 7 (compaction) and 8 (retention
// and delete-records) through the lesson API on both brokers, step by
// step, and requires every check to hold with the numbers above.
func TestMissingOffsetLessons(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			for id, want := range missingOffsetNumbers() {
				st := a.runLesson(id, false)
				var got []string
				for _, s := range st.Steps {
					if s.Status != "done" {
						t.Errorf("%s: lesson %s step %d %q: status %s (%s)", kind, id, s.Index+1, s.Title["en"], s.Status, s.Error)
					}
					for _, c := range s.Checks {
						got = append(got, c.Fact+"="+c.Expected)
						if !c.OK {
							t.Errorf("%s: lesson %s step %d %q: %s: expected %q — observed %q\noutput:\n%s",
								kind, id, s.Index+1, s.Title["en"], c.Text["en"], c.Expected, c.Observed, strings.Join(s.Output, "\n"))
						}
						if c.Note != nil {
							t.Errorf("lesson %s: a divergence note on %s: %v", id, kind, c.Note)
						}
					}
				}
				if st.Status != "finished" || st.Passed != st.Check {
					t.Errorf("%s: lesson %s: status %s, %d of %d checks hold (%s)", kind, id, st.Status, st.Passed, st.Check, st.Error)
				}
				if !containsInOrder(got, want) {
					t.Errorf("%s: lesson %s checks %q do not contain %q in order", kind, id, got, want)
				}
				a.checkGapReasons(id, st)
			}
		})
	}
}

// checkGapReasons reads the log and the map of the lesson's topic through
// the HTTP API once the lesson is done: lesson 7's partition (compacted)
// has gaps with reason "compacted", lesson 8's (truncated to its high
// watermark) only "beforeLogStart" ones, and the map counts them so.
func (a *app) checkGapReasons(lesson string, st lessonRun) {
	a.t.Helper()
	topic, reason, field := st.Names["prices"], "compacted", "gapsCompacted"
	if lesson == "8" {
		topic, reason, field = st.Names["events"], "beforeLogStart", "gapsBeforeLogStart"
	}
	part := "/api/topics/" + topic + "/partitions/0"
	var log struct {
		Entries []struct {
			Offset  int64  `json:"offset"`
			Kind    string `json:"kind"`
			Reason  string `json:"reason"`
			Deleted *struct {
				At       string `json:"at"`
				From, To int64
			} `json:"deleted"`
		} `json:"entries"`
	}
	a.do("GET", part+"/log?from=0&limit=100", nil, http.StatusOK, &log)
	gaps := int64(0)
	for _, e := range log.Entries {
		switch {
		case e.Kind == "gap" && e.Reason != reason:
			a.t.Errorf("%s: lesson %s: gap %d has reason %q, want %q", a.kind, lesson, e.Offset, e.Reason, reason)
		case e.Kind == "gap":
			gaps++
			// delete-records moved the log start from 0 to 4: the
			// partition's history knows when (retention's move is
			// recorded only while someone watches).
			if lesson == "8" && e.Offset < 4 && (e.Deleted == nil || e.Deleted.From != 0 || e.Deleted.To != 4 || e.Deleted.At == "") {
				a.t.Errorf("%s: lesson 8: gap %d deleted %+v, want from 0 to 4 with a time", a.kind, e.Offset, e.Deleted)
			}
		case e.Reason != "":
			a.t.Errorf("%s: lesson %s: %s entry %d has a reason %q", a.kind, lesson, e.Kind, e.Offset, e.Reason)
		}
	}
	var m struct {
		Buckets []map[string]any `json:"buckets"`
	}
	a.do("GET", part+"/map?from=0&buckets=1", nil, http.StatusOK, &m)
	if len(m.Buckets) != 1 {
		a.t.Fatalf("%s: lesson %s: map %v", a.kind, lesson, m)
	}
	b := m.Buckets[0]
	if gaps == 0 || b["gaps"] != float64(gaps) || b[field] != float64(gaps) {
		a.t.Errorf("%s: lesson %s: the log has %d %s gaps, the map says %v", a.kind, lesson, gaps, reason, b)
	}
	for _, f := range []string{"gapsCompacted", "gapsBeforeLogStart", "gapsUnknown"} {
		if _, ok := b[f]; !ok {
			a.t.Errorf("%s: lesson %s: the map's bucket lacks %q: %v", a.kind, lesson, f, b)
		}
	}
}
