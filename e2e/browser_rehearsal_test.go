package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/web"
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

// TestBrowserClassroomLoopback: classroom mode whose join URL is this
// computer's loopback address says so where the teacher shows the class
// the join address — the classroom bar, the QR code's panel and the
// full-screen join code — with the flag that fixes it, in English and
// Korean, and in the server's log; a join URL students can reach says
// nothing of the kind, and a student's page never does.
func TestBrowserClassroomLoopback(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHandsOn(t, embedded)
	c := &classroom{app: &app{t: t, url: h.url}, srv: h.srv}
	fix, loopback := c.srv.JoinLoopback()
	if !loopback || fix != "--addr 0.0.0.0:"+h.url[strings.LastIndex(h.url, ":")+1:] {
		t.Fatalf("JoinLoopback() = %q, %v on %s", fix, loopback, c.srv.JoinURL())
	}
	teacher := openPage(t, c.app, chromium, 1280, 720)
	login, _ := url.Parse(c.srv.TeacherLoginURL())
	teacher.open(login.RequestURI())
	teacher.wait("the teacher's page", `location.pathname === '/' && document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)
	var warnings []string
	teacher.eval(`[...document.querySelectorAll('[data-testid="join-loopback"]')].map((e) => e.textContent.trim())`, &warnings)
	if len(warnings) != 2 {
		t.Fatalf("the teacher's page warns %d times (%q), want in the classroom bar and beside the QR code", len(warnings), warnings)
	}
	for i, w := range warnings {
		// The bar's stands right after the join address; the panel's names it.
		if (i > 0 && !strings.Contains(w, c.srv.JoinURL())) || !strings.Contains(w, fix) || !strings.Contains(w, "loopback") {
			t.Errorf("the warning reads %q; want it to name %s, loopback and %s", w, c.srv.JoinURL(), fix)
		}
	}
	teacher.assertOnScreen("the classroom bar's warning", map[string]string{"the warning": `document.querySelector('[data-testid="classroom-bar"] [data-testid="join-loopback"]')`})
	teacher.screenshot("rehearsal-classroom-loopback-teacher-1280x720", 1280, 720, false)
	teacher.readIn("ko")
	var ko string
	teacher.eval(`document.querySelector('[data-testid="join-loopback"]').textContent`, &ko)
	if !strings.Contains(ko, "루프백") || !strings.Contains(ko, fix) {
		t.Errorf("the Korean warning reads %q", ko)
	}
	teacher.readIn("en")
	teacher.open("/exercises")
	teacher.click("show-join")
	teacher.screenshot("rehearsal-classroom-loopback-join-full-1280x720", 1280, 720, false)
	var dialog string
	teacher.eval(`document.querySelector('[data-testid="join-dialog"] [data-testid="join-loopback"]')?.textContent || ''`, &dialog)
	if !strings.Contains(dialog, fix) {
		t.Errorf("the full-screen join code warns %q", dialog)
	}

	student := openPage(t, c.app, chromium, 1280, 720)
	student.open("/")
	student.screenshot("rehearsal-classroom-loopback-student-1280x720", 1280, 720, false)
	if n := student.count(`[data-testid="join-loopback"]`); n != 0 {
		t.Errorf("the student's page shows the teacher's warning %d times", n)
	}

	// The server's log says it too, with the flag, when it starts.
	srv := startServerProcess(t, "--classroom", "--data-dir", t.TempDir())
	port := srv.url[strings.LastIndex(srv.url, ":")+1:]
	srv.waitLog(regexp.MustCompile(`level=WARN msg="classroom mode on a loopback address: students cannot open the join URL; start again with the flag named" joinURL=http://127\.0\.0\.1:`+port+`/ flag="--addr 0\.0\.0\.0:`+port+`"`), 10*time.Second)

	// A join URL the class can reach: no warning.
	reach := startClassroom(t, web.Access{Classroom: true, JoinURL: "http://192.0.2.10:8080/"})
	if fix, loopback := reach.srv.JoinLoopback(); loopback {
		t.Errorf("a join URL on the network is called loopback (%q)", fix)
	}
	other := openPage(t, reach.app, chromium, 1280, 720)
	login, _ = url.Parse(reach.srv.TeacherLoginURL())
	other.open(login.RequestURI())
	other.wait("the teacher's page", `document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)
	if n := other.count(`[data-testid="join-loopback"]`); n != 0 {
		t.Errorf("a reachable join URL is warned about %d times", n)
	}
}

// count is how many elements match a CSS selector.
func (p *page) count(selector string) int {
	p.t.Helper()
	var n int
	p.eval(fmt.Sprintf(`document.querySelectorAll(%q).length`, selector), &n)
	return n
}

// checkWord is a check's state as a page shows it: its data-state, its
// mark and its word.
type checkWord struct {
	State string `json:"state"`
	Mark  string `json:"mark"`
	Word  string `json:"word"`
}

// TestBrowserOneWordPerState: the teacher's board and the student's
// checklist say a check's state with one word and one shape — not
// started, waiting, failed, done — on both pages, at 1280×720, in English
// and Korean: before the exercise starts the board shows its cells not
// started and no "0 of 1 done" under "No exercise is running"; after
// Start, before any attempt, both say waiting (not a red ✗); after a
// wrong attempt (an ABORT) both say failed.
func TestBrowserOneWordPerState(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHandsOn(t, embedded)
	site := &app{t: t, url: h.url}
	teacher := openPage(t, site, chromium, 1280, 720)
	login, _ := url.Parse(h.srv.TeacherLoginURL())
	teacher.open(login.RequestURI())
	teacher.wait("the teacher's page", `document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)

	student := openPage(t, site, chromium, 1280, 720)
	student.open("/exercise")
	name := "ann" + h.suffix
	student.wait("the join form", `!byTestID('student-join').hidden`, 10*time.Second)
	student.fill("join-name", name)
	student.click("join-submit")
	student.wait("the student's identity", fmt.Sprintf(`byTestID('identity-username')?.textContent === %q`, name), 10*time.Second)

	teacher.open("/exercises")
	teacher.fill("exercise-select", "commit")
	teacher.wait("the student on the board of commit, which does not run", fmt.Sprintf(`byTestID('exercise-running').dataset.running === 'false' &&
		document.querySelectorAll('[data-testid="board-cell"][data-student=%q]').length === 2`, name), 20*time.Second)
	const boardCells = `[...document.querySelectorAll('[data-testid="board-cell"]')].map((c) => ({state: c.dataset.state, mark: c.querySelector('.verdict-mark').textContent, word: c.querySelector('.verdict-word').textContent}))`
	var before []checkWord
	teacher.eval(boardCells, &before)
	for _, c := range before {
		if c.State != "none" || c.Mark != "○" || c.Word != "Not started" {
			t.Errorf("before any exercise runs a cell says %+v, want ○ Not started", c)
		}
	}
	if got := teacher.text("board-count"); got != "" {
		t.Errorf("before any exercise runs the board counts %q", got)
	}
	teacher.screenshot("rehearsal-board-not-running-1280x720", 1280, 720, false)

	teacher.click("exercise-start")
	teacher.wait("commit running", `byTestID('exercise-running').dataset.running === 'true'`, 10*time.Second)
	studentChecks := `[...document.querySelectorAll('[data-testid="check"]')].map((c) => ({state: c.dataset.state, mark: c.querySelector('.check-mark').textContent, word: c.querySelector('[data-testid="check-state"]').textContent}))`
	same := func(when, state string) {
		t.Helper()
		teacher.wait(when+": the board", fmt.Sprintf(`[...document.querySelectorAll('[data-testid="board-cell"]')].every((c) => c.dataset.state === %q)`, state), 30*time.Second)
		student.wait(when+": the checklist", fmt.Sprintf(`document.querySelectorAll('[data-testid="check"]').length === 2 && [...document.querySelectorAll('[data-testid="check"]')].every((c) => c.dataset.state === %q)`, state), 30*time.Second)
		var board, list []checkWord
		teacher.eval(boardCells, &board)
		student.eval(studentChecks, &list)
		for _, b := range board {
			for _, s := range list {
				if b != s {
					t.Errorf("%s: the board says %+v, the student's checklist %+v", when, b, s)
				}
			}
		}
		teacher.screenshot("rehearsal-board-"+state+"-1280x720", 1280, 720, false)
		student.screenshot("rehearsal-checklist-"+state+"-1280x720", 1280, 720, false)
	}
	same("before an attempt", "pending")

	// A wrong attempt: an ABORT where a COMMIT was due.
	var id struct{ Bootstrap, Username, Password string }
	student.eval(`({Bootstrap: byTestID('identity-bootstrap').textContent, Username: byTestID('identity-username').textContent, Password: byTestID('identity-password').textContent})`, &id)
	ex, _ := exercises.Find("commit")
	franzTransaction(t, &joined{Name: name, Kafka: exercises.Identity{Bootstrap: id.Bootstrap, Username: id.Username, Password: id.Password}}, ex, kgo.TryAbort)
	same("after a wrong attempt", "fail")

	// The same words in Korean.
	teacher.click("ui-lang-ko")
	student.click("ui-lang-ko")
	teacher.wait("the board in Korean", `document.documentElement.lang === 'ko'`, 5*time.Second)
	student.wait("the checklist in Korean", `document.documentElement.lang === 'ko'`, 5*time.Second)
	var board, list []checkWord
	teacher.eval(boardCells, &board)
	student.eval(studentChecks, &list)
	for _, b := range board {
		if b.Word != "실패" || b.Mark != "✗" {
			t.Errorf("in Korean the board says %+v, want ✗ 실패", b)
		}
		for _, s := range list {
			if b != s {
				t.Errorf("in Korean the board says %+v, the student's checklist %+v", b, s)
			}
		}
	}
}

// backRowJS lists the back row's complaints about the RC/RU summaries
// and the cells' producer lines (P1·e0·s0): under the cells' text size
// (and under 16 px), or in another colour than the words they stand with
// (the summaries: the page's ink; a producer line: its cell's value).
const backRowJS = `(() => {
	const out = [];
	const cellText = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--cell-text'));
	const check = (e, what, ink) => {
		const s = getComputedStyle(e);
		const size = parseFloat(s.fontSize);
		if (size < 16 || size < cellText) out.push(what + ' "' + e.textContent.trim().slice(0, 40) + '": ' + size + 'px');
		if (s.color !== ink) out.push(what + ' "' + e.textContent.trim().slice(0, 40) + '": ' + s.color + ', not ' + ink);
	};
	const ink = getComputedStyle(document.body).color;
	for (const e of document.querySelectorAll('[data-testid="lane-count-rc"], [data-testid="lane-count-ru"]')) check(e, 'summary', ink);
	for (const c of document.querySelectorAll('[data-testid="log-cell"]')) {
		const pid = c.querySelector('.pid');
		if (!pid || !pid.textContent || !pid.getClientRects().length) continue;
		check(pid, 'producer line of ' + c.dataset.offset, getComputedStyle(c.querySelector('.val')).color);
	}
	return out;
})()`

// TestBrowserBackRow: what the back row reads — the RC/RU summaries above
// the log and each cell's producer line (P1·e0·s0) — is at the cells' text
// size (at least 16 px) in the ink of the words beside it, at 1280×720 and
// 1920×1080, in English and Korean.
func TestBrowserBackRow(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	st := a.runLesson("2", true)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + st.Focus.Topic + "/partitions/0")
	p.wait("lesson 2's log", `cell(7)?.dataset.marker === 'COMMIT' && byTestID('lessons-panel')?.dataset.ready === 'true'`, 15*time.Second)
	for _, lang := range []string{"en", "ko"} {
		p.readIn(lang)
		for _, size := range []struct {
			name string
			w, h int64
		}{{"1280x720", 1280, 720}, {"1920x1080", 1920, 1080}} {
			p.do("resize to "+size.name, chromedp.EmulateViewport(size.w, size.h))
			p.wait("the log at "+size.name, fmt.Sprintf(`byTestID('log-viewport').clientWidth <= %d && cell(7)`, size.w), 5*time.Second)
			var got []string
			p.eval(backRowJS, &got)
			if len(got) > 0 {
				t.Errorf("%s at %s: %v", lang, size.name, got)
			}
			p.screenshot(fmt.Sprintf("rehearsal-back-row-%s-%s", size.name, lang), size.w, size.h, false)
		}
		p.do("back to 1280×720", chromedp.EmulateViewport(1280, 720))
	}
}
