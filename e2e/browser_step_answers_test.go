package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/offsetlab/offsetlab/web"
)

// stageAnswer is a reading step's answer as the stage draws it: the
// callout (its offset, words and box) and the rings round cells and lanes.
type stageAnswer struct {
	Step   string `json:"step"`
	Kind   string `json:"kind"`
	Offset string `json:"offset"`
	Text   string `json:"text"`
	// InView: the callout lies inside the log view and the window; Font
	// is its text's size in px.
	InView bool    `json:"inView"`
	Font   float64 `json:"font"`
	// Rings are "offset:cell|lane:label", in order; RingsInView whether
	// every ring lies inside the log view.
	Rings       []string `json:"rings"`
	RingsInView bool     `json:"ringsInView"`
	// AtCell: the callout's offset names a cell the view draws (or the
	// slot after the last offset).
	AtCell bool `json:"atCell"`
}

// stageAnswerJS reads the stage's answer (null when none is drawn).
const stageAnswerJS = `(() => {
	const a = byTestID('step-answer');
	if (!a) return null;
	const vp = byTestID('log-viewport').getBoundingClientRect();
	const inside = (r) => r.left >= vp.left - 1 && r.right <= vp.right + 1 && r.top >= vp.top - 1 && r.bottom <= vp.bottom + 1 &&
		r.right <= window.innerWidth && r.bottom <= window.innerHeight && r.width > 0;
	const rings = [...document.querySelectorAll('[data-testid="step-answer-ring"]')];
	return {
		step: a.dataset.step, kind: a.dataset.kind, offset: a.dataset.offset ?? '', text: a.querySelector('.step-answer-text').textContent,
		inView: inside(a.getBoundingClientRect()),
		font: parseFloat(getComputedStyle(a.querySelector('.step-answer-text')).fontSize),
		rings: rings.map((r) => r.dataset.offset + ':' + r.dataset.on + ':' + r.textContent),
		ringsInView: rings.every((r) => inside(r.getBoundingClientRect())),
		atCell: !!document.querySelector('[data-testid="log-cell"][data-offset="' + a.dataset.offset + '"], [data-testid="log-row"][data-offset="' + a.dataset.offset + '"]'),
	};
})()`

// answerWant is what the stage must show after a step: the callout's kind,
// offset and words it contains, and the rings; a zero answerWant wants no
// answer on the stage.
type answerWant struct {
	kind, offset string
	says         []string
	rings        []string
}

// checkStageAnswer waits for step's answer (or its absence) on p.
func checkStageAnswer(t *testing.T, p *page, step int, want answerWant) {
	t.Helper()
	if want.kind == "" {
		p.wait(fmt.Sprintf("no answer on the stage after step %d", step+1), `!byTestID('step-answer')`, 10*time.Second)
		return
	}
	p.wait(fmt.Sprintf("step %d's answer on the stage", step+1),
		fmt.Sprintf(`byTestID('step-answer')?.dataset.step === '%d' && document.querySelectorAll('[data-testid="step-answer-ring"]').length === %d`, step, len(want.rings)), 20*time.Second)
	var got stageAnswer
	p.eval(stageAnswerJS, &got)
	if got.Kind != want.kind || got.Offset != want.offset || !got.AtCell {
		t.Errorf("step %d: answer %s at offset %q (a cell: %v), want %s at %s", step+1, got.Kind, got.Offset, got.AtCell, want.kind, want.offset)
	}
	for _, s := range want.says {
		if !strings.Contains(got.Text, s) {
			t.Errorf("step %d: the answer reads %q, want it to say %q", step+1, got.Text, s)
		}
	}
	if !got.InView || !got.RingsInView {
		t.Errorf("step %d: the answer in view %v, its rings %v: want both inside the log at 1280×720", step+1, got.InView, got.RingsInView)
	}
	if got.Font < 16 {
		t.Errorf("step %d: the answer's text is %.1f px, want ≥ 16", step+1, got.Font)
	}
	equal(t, fmt.Sprintf("step %d's rings", step+1), got.Rings, want.rings)
}

// stepHooks are what a lesson's walk does besides checking each step:
// screenshots after steps, checks after them, and checks while a step
// runs (right after Next), by step index.
type stepHooks struct {
	shots         map[int]string
	after, during map[int]func()
}

// stepAndCheck presses Next for every step of the lesson running on p and
// checks the stage after each one.
func stepAndCheck(t *testing.T, p *page, lesson string, wants map[int]answerWant, hooks stepHooks) {
	t.Helper()
	var steps int
	p.eval(`document.querySelectorAll('[data-testid="lesson-steps"] li').length`, &steps)
	for i := range steps {
		p.wait(fmt.Sprintf("Next before step %d", i+1), `!byTestID('lesson-next').disabled`, 10*time.Second)
		p.click("lesson-next")
		if f, ok := hooks.during[i]; ok {
			f()
		}
		p.wait(fmt.Sprintf("lesson %s step %d to be done", lesson, i+1),
			fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-current')?.dataset.index === '%d'`, i+1, i), 90*time.Second)
		checkStageAnswer(t, p, i, wants[i])
		if name, ok := hooks.shots[i]; ok {
			p.screenshot(name, 1280, 720, false)
		}
		if f, ok := hooks.after[i]; ok {
			f()
		}
	}
}

// lesson2Answers are lesson 2's reading steps as the stage must draw
// them: the open transaction at its first record (2), the group's
// committed offset on its input (1), the finished transaction at its last
// marker (7), the offsets read_committed received (0, 4, 6). The last
// step reads the group again, but the finished lesson shows its output,
// where that answer has no cell: it is drawn when the orders log opens.
func lesson2Answers(kind brokerKind) map[int]answerWant {
	const after = "CompleteCommit"
	return map[int]answerWant{
		3: {kind: "transaction", offset: "2", says: []string{"Coordinator: Ongoing", "order-totals-app-", "open since offset 2"}, rings: []string{"2:cell:open since here"}},
		4: {kind: "group", offset: "1", says: []string{"totals-tx-", "committed offset 1", "lag 2"}, rings: []string{"1:cell:committed 1"}},
		6: {kind: "transaction", offset: "7", says: []string{"Coordinator: " + after, "last marker is offset 7"}, rings: []string{"7:cell:its last marker"}},
		7: {kind: "read", offset: "0", says: []string{"read_committed received offsets 0, 4, 6"}, rings: []string{"0:lane:#1", "4:lane:#2", "6:lane:#3"}},
	}
}

// scrubToHeldLSO moves the replay scrubber back from the end of the
// recording to the first step (going back) whose log has the LSO held at
// 2 by the crashed transaction, HW 3.
func scrubToHeldLSO(p *page) {
	p.t.Helper()
	p.do("focus the scrubber", chromedp.Focus(chromedp.CSS(`[data-testid="replay-scrubber"]`)))
	p.press(kb.End)
	p.wait("the recording", `+byTestID('replay').dataset.steps > 0 && byTestID('replay-scrubber').value === byTestID('replay-scrubber').max`, 10*time.Second)
	var steps int
	p.eval(`+byTestID('replay').dataset.steps`, &steps)
	for range steps {
		p.press(kb.ArrowLeft)
		var held bool
		p.eval(`byTestID('log-panel').dataset.replay === 'true' && summary('lso')?.dataset.value === '2' && summary('hw')?.dataset.value === '3'`, &held)
		if held {
			return
		}
	}
	p.t.Fatalf("no recorded step with the LSO held at 2; page state: %s", p.state())
}

// TestBrowserStepAnswers runs lessons 2, 3 and 6g in headless Chromium at
// 1280×720 with the Next button, on the embedded broker and on real
// Kafka, and requires every step that only reads to put its answer on the
// stage, at the cell it concerns (by the offset data attribute), in words,
// at 16 px or more, inside the log and the window — and a step that
// writes to take the last answer away. Replayed back to the crash, the
// log keeps step 4's answer (the open transaction) and drops step 8's
// (offsets written later); Live brings each back. Then lesson 6g, whose
// answer is gone while a long step runs. Screenshots of lesson 2's steps 4,
// 5 and 8 go to test-output/screenshots.
func TestBrowserStepAnswers(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/")
			p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
			p.fill("lesson-select", "2")
			p.click("lesson-start")
			p.wait("lesson 2 to start", `byTestID('lesson-run').dataset.status === 'ready' && byTestID('lesson-upnext')`, 10*time.Second)
			shots := map[int]string{}
			for _, i := range []int{3, 4, 7} {
				shots[i] = fmt.Sprintf("step-answers-lesson2-step%d-%s", i+1, kind)
			}
			// In a replay the answer stays where the past holds its cells:
			// the open transaction at the crash, not the reads of offsets
			// written after it.
			replayed := func(step int, want answerWant) func() {
				return func() {
					scrubToHeldLSO(p)
					checkStageAnswer(t, p, step, want)
					p.click("replay-live")
					checkStageAnswer(t, p, step, lesson2Answers(kind)[step])
				}
			}
			stepAndCheck(t, p, "2", lesson2Answers(kind), stepHooks{shots: shots, after: map[int]func(){
				3: replayed(3, lesson2Answers(kind)[3]),
				7: replayed(7, answerWant{}),
			}})

			// Opened, the orders log draws the last answer at its cell: the
			// committed offset 3, the slot after the last offset.
			var list struct {
				Current string `json:"current"`
			}
			a.do("GET", "/api/lessons", nil, http.StatusOK, &list)
			var run lessonRun
			a.do("GET", "/api/lessons/runs/"+list.Current, nil, http.StatusOK, &run)
			p.fill("topic-select", run.Names["orders"]+"/0")
			checkStageAnswer(t, p, 8, answerWant{kind: "group", offset: "3", says: []string{"committed offset 3", "lag 0"}, rings: []string{"3:cell:committed 3"}})

			// A finished run folds the lesson list into its title.
			p.click("lesson-title")
			p.fill("lesson-select", "3")
			p.click("lesson-start")
			p.wait("lesson 3 to start", `byTestID('lesson-run').dataset.status === 'ready' && byTestID('lesson-run').dataset.cursor === '0'`, 10*time.Second)
			stepAndCheck(t, p, "3", map[int]answerWant{
				4: {kind: "read", offset: "0", says: []string{"read_uncommitted received offsets 0, 2, 4, 6"}, rings: []string{"0:lane:#1", "2:lane:#2", "4:lane:#3", "6:lane:#4"}},
				5: {kind: "log", offset: "1", says: []string{"markers 1, 3, 5, 7", "aborted 2", "LSO 8, HW 8"},
					rings: []string{"1:cell:marker", "3:cell:marker", "5:cell:marker", "7:cell:marker", "2:cell:aborted"}},
				6: {kind: "read", offset: "0", says: []string{"read_committed received offsets 0, 4, 6"}, rings: []string{"0:lane:#1", "4:lane:#2", "6:lane:#3"}},
			}, stepHooks{shots: map[int]string{5: "step-answers-lesson3-step6-" + string(kind)}, after: map[int]func(){
				// The table rings the rows' RC column the same way, the
				// ring's "#n" beside the lane's ✓, not over it.
				6: func() {
					// The button itself, not a pointer at its place: the
					// lesson's end may still move the log's foot (the
					// toggle's own click is TestBrowserExploreLesson2's).
					toggle := func() { p.eval(`byTestID('table-toggle').click()`, nil) }
					toggle()
					p.wait("the table", `byTestID('log-viewport').classList.contains('table') && document.querySelector('[data-testid="log-row"]')`, 5*time.Second)
					// From offset 0 on, so that the rows of the three
					// received offsets are on show (a laptop's table has
					// two lines a row beside the lesson's words).
					fromStart := func(what string) {
						p.eval(`byTestID('goto-offset').value = '0'; byTestID('goto-form').requestSubmit()`, nil)
						p.wait(what, `document.querySelector('[data-testid="log-row"][data-offset="0"]') && document.querySelector('[data-testid="step-answer-ring"][data-on="lane"]')`, 5*time.Second)
					}
					fromStart("the table from offset 0")
					checkStageAnswer(t, p, 6, answerWant{kind: "read", offset: "0", says: []string{"read_committed received offsets 0, 4, 6"}, rings: []string{"0:lane:#1", "4:lane:#2", "6:lane:#3"}})
					for _, size := range []struct {
						name          string
						width, height int64
						phone         bool
					}{{"1280x720", 1280, 720, false}, {"1920x1080", 1920, 1080, false}, {"zoom150", 853, 480, false}, {"phone", 390, 844, true}} {
						emulate := []chromedp.EmulateViewportOption{}
						if size.phone {
							emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
						}
						p.do("resize to "+size.name, chromedp.EmulateViewport(size.width, size.height, emulate...))
						fromStart("a ringed row on show at " + size.name)
						p.screenshot("step-answers-lesson3-step7-table-"+size.name+"-"+string(kind), size.width, size.height, size.phone)
						if covered := laneMarksCovered(p); len(covered) > 0 {
							t.Errorf("%s: in the table at %s a ring's label covers the lane's mark: %v", kind, size.name, covered)
						}
					}
					p.do("back to 1280×720", chromedp.EmulateViewport(1280, 720))
					toggle()
				},
			}})

			// Lesson 6g: read_committed receives nothing while the open
			// transaction holds the LSO at 0 (the answer at that cell);
			// while the broker's abort is awaited, that answer is gone;
			// the coordinator's state ends at the ABORT marker, 3.
			const aborted = "CompleteAbort"
			p.click("lesson-title")
			p.fill("lesson-select", "6g")
			p.click("lesson-start")
			p.wait("lesson 6g to start", `byTestID('lesson-run').dataset.status === 'ready' && byTestID('lesson-run').dataset.cursor === '0'`, 10*time.Second)
			stepAndCheck(t, p, "6g", map[int]answerWant{
				4: {kind: "read", offset: "0", says: []string{"read_committed received nothing"}},
				5: {kind: "log", offset: "0", says: []string{"markers 3", "aborted 0", "LSO 4, HW 4"}, rings: []string{"3:cell:marker", "0:cell:aborted"}},
				6: {kind: "read", offset: "1", says: []string{"read_committed received offsets 1, 2"}, rings: []string{"1:lane:#1", "2:lane:#2"}},
				7: {kind: "transaction", offset: "3", says: []string{"Coordinator: " + aborted, "slow-app-", "last marker is offset 3"}, rings: []string{"3:cell:its last marker"}},
			}, stepHooks{during: map[int]func(){
				5: func() {
					p.wait("step 5's answer gone while the broker's abort is awaited",
						`byTestID('lesson-run').dataset.cursor === '5' && !byTestID('step-answer')`, 5*time.Second)
				},
			}})
		})
	}
}

// TestBrowserStepAnswersClassroom: a student's page follows the teacher's
// lesson, and draws each reading step's answer at the same cell as the
// teacher's page, in the student's own language.
func TestBrowserStepAnswersClassroom(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	c := startClassroom(t, web.Access{Classroom: true})
	student := openPage(t, c.app, chromium, 1280, 720)
	student.open("/")
	teacher := openPage(t, c.app, chromium, 1280, 720)
	login, _ := url.Parse(c.srv.TeacherLoginURL())
	teacher.open(login.RequestURI())
	teacher.wait("the teacher's page", `document.getElementById('app').dataset.role === 'teacher' && byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	student.wait("the student's lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	student.click("ui-lang-ko")
	teacher.fill("lesson-select", "2")
	teacher.click("lesson-start")
	teacher.wait("the lesson to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
	wants := lesson2Answers(embedded)
	for i := range 5 {
		teacher.wait(fmt.Sprintf("Next before step %d", i+1), `!byTestID('lesson-next').disabled`, 10*time.Second)
		teacher.click("lesson-next")
		teacher.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d'`, i+1), 60*time.Second)
	}
	// After step 5 both pages show the group's committed offset at its
	// cell of the orders log; the teacher's in English, the student's in
	// Korean.
	checkStageAnswer(t, teacher, 4, wants[4])
	student.wait("the student's page on the orders log with step 5's answer",
		`byTestID('step-answer')?.dataset.step === '4' && byTestID('step-answer').dataset.offset === '1'`, 20*time.Second)
	var got stageAnswer
	student.eval(stageAnswerJS, &got)
	if !got.AtCell || !got.InView || !strings.Contains(got.Text, "커밋된 오프셋 1") {
		b, _ := json.Marshal(got)
		t.Errorf("the student's stage after step 5: %s, want the committed offset 1 at its cell, in Korean, in view", b)
	}
	student.screenshot("step-answers-classroom-student-step5", 1280, 720, false)
}

// laneMarksCovered lists, in the table, the rows whose lane's ✓ or ✗ the
// label ("#1") of a reading step's ring overlaps, box against box, as
// "offset: label [left,right] mark [left,right]"; a ring whose row is not
// drawn (scrolled away) is skipped.
func laneMarksCovered(p *page) []string {
	p.t.Helper()
	var out []string
	p.eval(`[...document.querySelectorAll('[data-testid="step-answer-ring"][data-on="lane"]')].flatMap((ring) => {
		const row = document.querySelector('[data-testid="log-row"][data-offset="' + ring.dataset.offset + '"]');
		const lanes = row ? [...row.querySelectorAll('.t-rc, .t-ru')].filter((l) => l.textContent.trim() !== '') : [];
		const label = ring.querySelector('.step-answer-ring-label').getBoundingClientRect();
		return lanes.flatMap((lane) => {
			const range = document.createRange();
			range.selectNodeContents(lane);
			const mark = range.getBoundingClientRect();
			const overlap = mark.width > 0 && label.left < mark.right && mark.left < label.right && label.top < mark.bottom && mark.top < label.bottom;
			return overlap ? [ring.dataset.offset + ': label [' + Math.round(label.left) + ',' + Math.round(label.right) + '] mark [' + Math.round(mark.left) + ',' + Math.round(mark.right) + ']'] : [];
		});
	})`, &out)
	return out
}
