package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestBrowserMissingOffsetLessons walks lessons 7 (compaction) and 8
// (delete-records and retention) through the lessons panel with its Next
// button at 1280×720, on both brokers: after each step the step's log —
// every cell from the log start to the high watermark, LSO and HW — and
// the Next button are on screen without scrolling; after the first
// cleaner pass the removed offsets are cells that say "compacted" by
// their label and shape; after delete-records the log start reads 4 and
// the cells start there. Screenshots go to test-output/screenshots.
func TestBrowserMissingOffsetLessons(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		for _, lesson := range []string{"7", "8"} {
			t.Run(string(kind)+"/"+lesson, func(t *testing.T) {
				t.Parallel()
				chromium := chromiumPath(t)
				a := startApp(t, kind)
				p := openPage(t, a, chromium, 1280, 720)
				p.open("/")
				p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
				p.fill("lesson-select", lesson)
				p.click("lesson-start")
				p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
				runID := p.attr("lesson-run", "data-run")
				var st lessonRun
				topic := ""
				for i := 0; ; i++ {
					p.click("lesson-next")
					p.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined`, i+1), 90*time.Second)
					a.do("GET", "/api/lessons/runs/"+runID, nil, http.StatusOK, &st)
					if st.Status == "failed" {
						t.Fatalf("lesson %s failed at step %d: %s", lesson, i+1, st.Error)
					}
					for _, c := range p.currentChecks() {
						if c.OK != "true" || c.Mark != "✓" {
							t.Errorf("%s: lesson %s step %d shows %q (ok=%s, mark %q)", kind, lesson, i+1, c.Text, c.OK, c.Mark)
						}
					}
					if s := st.Steps[i]; s.Topic != "" {
						topic = s.Topic
					}
					// Once retention.ms is set (lesson 8, step 11) the log start
					// moves whenever the broker's check runs: the next step
					// waits for it, and its log is checked then.
					if topic != "" && st.Status != "finished" && !(lesson == "8" && i == 10) {
						p.logOnScreen(fmt.Sprintf("lesson %s step %d", lesson, i+1), topic)
					}
					switch {
					case lesson == "7" && i == 12: // the log after the first pass
						p.wait("offsets 1 to 3 shown as compacted gaps",
							`[1, 2, 3].every((o) => cell(o)?.dataset.kind === 'gap' && cell(o).dataset.reason === 'compacted' && /compacted/.test(cell(o).textContent) && getComputedStyle(cell(o)).borderTopStyle === 'dashed')`, 10*time.Second)
						p.wait("the map to count the compacted gaps", `/\b3 compacted/.test(document.querySelector('[data-testid="map-summary"]')?.textContent ?? '')`, 10*time.Second)
						p.assertOnScreen("after the first cleaner pass", map[string]string{"the compacted gap at 1": `cell(1)`, "the compacted gap at 3": `cell(3)`})
						p.screenshot("stage-"+string(kind)+"-lesson7-compacted-1280x720", 1280, 720, false)
					case lesson == "8" && i == 5: // the log after delete-records
						p.wait("the log start at 4", `summary('logstart')?.dataset.value === '4' && cell(4)?.dataset.kind === 'data'`, 10*time.Second)
						p.screenshot("stage-"+string(kind)+"-lesson8-deleted-1280x720", 1280, 720, false)
					}
					if st.Status == "finished" {
						break
					}
				}
				// The story tells the compaction passes, or the log start
				// moving (delete-records, then retention) and the resets.
				story := map[string]string{"7": `narration.compacted`, "8": `narration.logStart`}[lesson]
				p.wait("the story to tell "+story, fmt.Sprintf(`document.querySelectorAll('[data-testid="timeline"] [data-testid="event"][data-key="%s"]').length >= 2`, story), 10*time.Second)
				if lesson == "8" {
					p.wait("the story to tell both resets", `document.querySelectorAll('[data-testid="timeline"] [data-testid="event"][data-key="narration.offsetReset"]').length === 2`, 10*time.Second)
				}
				if st.Passed != st.Check {
					t.Errorf("lesson %s: %d of %d checks hold", lesson, st.Passed, st.Check)
				}
				p.logOnScreen("lesson "+lesson+" at its end", st.Focus.Topic)
				p.screenshot("stage-"+string(kind)+"-lesson"+lesson+"-end-1280x720", 1280, 720, false)
			})
		}
	}
}
