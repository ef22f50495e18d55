package e2e

import (
	"fmt"
	"net/http"
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
