package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// What a teacher rehearsing a class would stumble on, each at the sizes a
// classroom uses: the page following a lesson driven elsewhere, the log
// filling its area, labels that never cover each other, every action's
// result on screen, one word per state on the board and the checklist,
// the classroom's join address, the lesson's end and the back row.

// TestBrowserFollowsLessonLog: a page opened on / before the lesson's
// log existed follows the lesson stepped from elsewhere (another tab, or
// curl): each step's log opens, and at the end the lesson's focus shows
// all of its cells with its pointers — not "Nothing to show yet".
func TestBrowserFollowsLessonLog(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/")
	p.wait("the lessons panel, no log open", `byTestID('lessons-panel')?.dataset.ready === 'true' && byTestID('empty-state')`, 10*time.Second)

	var st lessonRun
	a.do("POST", "/api/lessons/2/runs", nil, http.StatusCreated, &st)
	for i := range 3 {
		a.do("POST", "/api/lessons/runs/"+st.ID+"/next", nil, http.StatusOK, &st)
		topic := ""
		for _, s := range st.Steps[:i+1] {
			if s.Topic != "" {
				topic = s.Topic
			}
		}
		if topic == "" {
			continue
		}
		p.wait(fmt.Sprintf("step %d's log %s, opened by the page itself", i+1, topic),
			fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && location.pathname === '/topics/%s/partitions/0' && !byTestID('empty-state')`, i+1, topic), 10*time.Second)
	}
	a.do("POST", "/api/lessons/runs/"+st.ID+"/finish", nil, http.StatusOK, &st)
	if st.Status != "finished" || st.Focus == nil {
		t.Fatalf("lesson 2 ended %s with focus %v", st.Status, st.Focus)
	}
	p.wait("the finished run on the page", `byTestID('lesson-run').dataset.status === 'finished'`, 10*time.Second)
	p.logOnScreen("lesson 2 finished elsewhere", st.Focus.Topic)
	p.screenshot("rehearsal-follow-lesson2-end-1280x720", 1280, 720, false)
}

// emptyErrorsJS lists the error boxes drawn with nothing in them.
const emptyErrorsJS = `[...document.querySelectorAll('.error')].filter((e) => e.getClientRects().length > 0 && e.textContent.trim() === '').map((e) => e.dataset.testid || e.id || e.className)`

// TestBrowserLessonEnd: at 1280×720 "Lesson finished." is on screen when
// a lesson ends (not under the Lesson tab's sticky bar), stepped with Next
// (lesson 2) or run to its end (lesson 6c); the abort's confirmation on the
// held LSO's sentence (lesson 2's crash) shows no empty error box.
func TestBrowserLessonEnd(t *testing.T) {
	t.Parallel()
	for _, lesson := range []string{"2", "6c"} {
		t.Run(lesson, func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, embedded)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/")
			p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
			p.fill("lesson-select", lesson)
			p.click("lesson-start")
			p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
			if lesson == "2" {
				for i := range 9 {
					p.click("lesson-next")
					p.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined`, i+1), 60*time.Second)
					if i == 2 {
						p.wait("the held LSO's abort", `byTestID('lso-abort')`, 10*time.Second)
						p.click("lso-abort")
						p.wait("the confirmation", `byTestID('lso-abort-confirm')`, 5*time.Second)
						var empty []string
						p.eval(emptyErrorsJS, &empty)
						if len(empty) > 0 {
							p.screenshot("rehearsal-abort-confirm-empty-error-1280x720", 1280, 720, false)
							t.Errorf("the abort's confirmation shows empty error boxes: %v", empty)
						}
						p.click("lso-abort-cancel")
					}
				}
			} else {
				p.click("lesson-finish")
			}
			p.wait("the lesson to finish", `byTestID('lesson-run').dataset.status === 'finished' && byTestID('lesson-end') && byTestID('lesson-run').dataset.busy === undefined`, 120*time.Second)
			p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
			ends := map[string]string{"Lesson finished.": `byTestID('lesson-end')`, "the last step's title": `document.querySelector('[data-testid="lesson-current"] h3')`}
			p.assertOnScreen("lesson "+lesson+" finished", ends)
			p.assertUncovered("lesson "+lesson+" finished", ends)
			var empty []string
			p.eval(emptyErrorsJS, &empty)
			if len(empty) > 0 {
				t.Errorf("empty error boxes at the end: %v", empty)
			}
			p.screenshot("rehearsal-lesson"+lesson+"-finished-1280x720", 1280, 720, false)
		})
	}
}

// assertUncovered fails naming every element (a JavaScript expression)
// that something else is drawn over: a sticky bar, a callout, a label.
// It looks at the element's centre and near its four corners.
func (p *page) assertUncovered(when string, exprs map[string]string) {
	p.t.Helper()
	var covered []string
	for name, expr := range exprs {
		var by string
		p.eval(fmt.Sprintf(`(() => {
			const e = %s;
			if (!e) return 'missing';
			const r = e.getBoundingClientRect();
			const at = [[0.5, 0.5], [0.1, 0.2], [0.9, 0.2], [0.1, 0.8], [0.9, 0.8]];
			for (const [fx, fy] of at) {
				const top = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
				if (top && top !== e && !e.contains(top)) return (top.dataset.testid || top.className || top.tagName) + ' "' + top.textContent.trim().slice(0, 30) + '"';
			}
			return '';
		})()`, expr), &by)
		if by != "" {
			covered = append(covered, name+" under "+by)
		}
	}
	if len(covered) > 0 {
		p.screenshot("rehearsal-covered-"+strings.NewReplacer(" ", "-", "/", "-", ",", "").Replace(when), 1280, 720, false)
		p.t.Errorf("%s: covered: %v", when, covered)
	}
}
