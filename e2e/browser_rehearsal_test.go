package e2e

import (
	"context"
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
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			followsLessonLog(t, kind)
		})
	}
}

// followsLessonLog is TestBrowserFollowsLessonLog on one broker.
func followsLessonLog(t *testing.T, kind brokerKind) {
	chromium := chromiumPath(t)
	a := startApp(t, kind)
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
	p.screenshot("rehearsal-follow-lesson2-end-"+string(kind)+"-1280x720", 1280, 720, false)
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

// stageSizes are the screens a class uses: a presenter's 1280×720 and
// 1920×1080, a phone, and 1280×720 zoomed to 150 %.
var stageSizes = []struct {
	name   string
	w, h   int64
	phone  bool
	factor float64
}{
	{"1280x720", 1280, 720, false, 1},
	{"1920x1080", 1920, 1080, false, 1},
	{"phone-390x844", 390, 844, true, 1},
	{"150pct", 853, 480, false, 1.5},
}

// resize puts the page at one of stageSizes and waits for the log to
// lay out again.
func (p *page) resize(size struct {
	name   string
	w, h   int64
	phone  bool
	factor float64
}) {
	p.t.Helper()
	var opts []chromedp.EmulateViewportOption
	if size.phone {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	if size.factor != 1 {
		opts = append(opts, chromedp.EmulateScale(size.factor))
	}
	p.do("resize to "+size.name, chromedp.EmulateViewport(size.w, size.h, opts...))
	p.wait("the log at "+size.name, fmt.Sprintf(`byTestID('log-viewport').clientWidth <= %d && document.querySelectorAll('[data-testid="log-cell"]').length > 0`, size.w), 5*time.Second)
	p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
}

// fillJS measures the log while it follows its end: the room left empty
// under its last row, whether its rows are more than the view holds, and
// which of the offsets asked for are not whole on screen (cell and lanes).
const fillJS = `((offsets) => {
	const vp = byTestID('log-viewport').getBoundingClientRect();
	const rows = [...document.querySelectorAll('#log-viewport .row')].filter((r) => r.getClientRects().length && [...r.querySelectorAll('.slot')].some((s) => !s.hidden));
	const bottom = Math.max(...rows.map((r) => r.getBoundingClientRect().bottom));
	const whole = (e) => { if (!e) return false; const r = e.getBoundingClientRect(); return r.top >= vp.top - 0.5 && r.bottom <= vp.bottom + 0.5 && r.height > 0; };
	return {
		// Room under the last row counts only when rows above are off screen.
		empty: whole(cell(0)) ? 0 : Math.max(0, vp.bottom - bottom),
		rowH: rows.length ? rows[0].getBoundingClientRect().height : 0,
		follow: byTestID('follow-toggle').getAttribute('aria-pressed') === 'true',
		missing: offsets.filter((o) => !whole(cell(o)) || !whole(lane('rc', o)) || !whole(lane('ru', o))),
	};
})`

// TestBrowserFollowFillsTheLog: following the end, the log fills its area
// with the latest rows — not the newest row alone over an empty area —
// and keeps an open transaction's records in view: kcat-like writes land
// (offsets 9 and 10) while a transaction holds 7–8 open, at 1280×720,
// 1920×1080, on a phone and at 150 %.
func TestBrowserFollowFillsTheLog(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			followFillsTheLog(t, kind)
		})
	}
}

// followFillsTheLog is TestBrowserFollowFillsTheLog on one broker.
func followFillsTheLog(t *testing.T, kind brokerKind) {
	chromium := chromiumPath(t)
	a := startApp(t, kind)
	topic := a.name("kcat-open")
	a.createTopic(topic)
	plain, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	produceAll(t, plain, topic, "r0", "r1", "r2", "r3", "r4", "r5", "r6")
	txn, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.TransactionalID(a.name("held")), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produceAll(t, txn, topic, "open-7", "open-8")

	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the open transaction holding the LSO at 7", `summary('lso')?.dataset.value === '7' && summary('hw')?.dataset.value === '9' && cell(8)?.dataset.txn === 'open'`, 15*time.Second)
	produceAll(t, plain, topic, "kcat-9", "kcat-10") // written from outside while the transaction is open
	p.wait("kcat's records", `summary('hw')?.dataset.value === '11' && cell(10)?.dataset.kind === 'data' && byTestID('lso-why').dataset.state === 'held'`, 15*time.Second)
	for _, size := range stageSizes {
		p.resize(size)
		var got struct {
			Empty   float64 `json:"empty"`
			RowH    float64 `json:"rowH"`
			Follow  bool    `json:"follow"`
			Missing []int64 `json:"missing"`
		}
		p.eval(fillJS+`([7, 8])`, &got)
		p.screenshot("rehearsal-follow-fills-"+string(kind)+"-"+size.name, size.w, size.h, size.phone)
		if !got.Follow {
			t.Errorf("%s: the log no longer follows its end", size.name)
		}
		if got.Empty > 2 {
			t.Errorf("%s: following, %.0f px of the log's area stand empty under its last row (a row is %.0f px)", size.name, got.Empty, got.RowH)
		}
		if len(got.Missing) > 0 {
			t.Errorf("%s: the open transaction's records %v are not whole on screen (cell and both lanes)", size.name, got.Missing)
		}
	}
	p.resize(stageSizes[0])
	// The newest record too, where the rows fit (1280×720).
	var got struct {
		Missing []int64 `json:"missing"`
	}
	p.eval(fillJS+`([7, 8, 9, 10])`, &got)
	if len(got.Missing) > 0 {
		t.Errorf("1280x720: offsets %v of 7–10 are not whole on screen", got.Missing)
	}
}

// labelsJS lists the log's labels that cover one another or are clipped:
// the pointer flags, the batch labels, a step's callout and its rings'
// labels — each pair that overlaps, each one cut by the log's edge or
// wider than its own box.
const labelsJS = `(() => {
	const vp = byTestID('log-viewport').getBoundingClientRect();
	const shown = (e) => e.getClientRects().length > 0 && e.textContent.trim() !== '' && getComputedStyle(e).visibility !== 'hidden' && !e.closest('.slot[hidden]');
	const labels = [...document.querySelectorAll('#log-viewport .row .flag, #log-viewport .row .batch-label, [data-testid="step-answer"], .step-answer-ring-label')]
		.filter(shown).map((e) => ({e, r: e.getBoundingClientRect(), name: (e.dataset.testid === 'step-answer' ? 'callout' : e.className) + ' "' + e.textContent.trim().slice(0, 24) + '"'}));
	const out = [];
	for (const a of labels) {
		if (a.r.left < vp.left - 0.5 || a.r.right > vp.right + 0.5 || a.r.top < vp.top - 0.5 || a.r.bottom > vp.bottom + 0.5) out.push(a.name + ' cut by the log\'s edge');
		if (a.e.scrollWidth > a.e.clientWidth + 1) out.push(a.name + ' wider than its box');
	}
	for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
		const a = labels[i], b = labels[j];
		if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
		const dx = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
		const dy = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
		if (dx > 0.5 && dy > 0.5) out.push(a.name + ' over ' + b.name);
	}
	// The callout stays off the pointers' rows: the flags and the group's pointer.
	return out;
})()`

// assertLabelsApart fails naming the labels that cover or clip each other.
func (p *page) assertLabelsApart(when string) {
	p.t.Helper()
	var got []string
	p.eval(labelsJS, &got)
	if len(got) > 0 {
		p.screenshot("rehearsal-labels-"+strings.NewReplacer(" ", "-", "/", "-", ",", "", "%", "pct").Replace(when), 1280, 720, false)
		p.t.Errorf("%s: %v", when, got)
	}
}

// TestBrowserLabelsApart: no pointer label covers or clips another, at
// 1280×720, 1920×1080, on a phone and at 150 %: a one-record open
// transaction (log start and LSO on 0, HW on 1); LSO and HW together on a
// row's last column after an abort (HW 14); lesson 2's end (LSO and HW 8).
func TestBrowserLabelsApart(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	one := a.name("one-open")
	a.createTopic(one)
	txn, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.TransactionalID(a.name("one")), kgo.DefaultProduceTopic(one))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produceAll(t, txn, one, "open-0")

	aborted := a.name("aborted")
	a.createTopic(aborted)
	plain, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(aborted))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	produceAll(t, plain, aborted, "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")
	abort, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.TransactionalID(a.name("aborting")), kgo.DefaultProduceTopic(aborted))
	if err != nil {
		t.Fatal(err)
	}
	defer abort.Close()
	if err := abort.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produceAll(t, abort, aborted, "aborted-12")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := abort.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	st := a.runLesson("2", true)

	p := openPage(t, a, chromium, 1280, 720)
	for _, c := range []struct{ name, topic, ready string }{
		{"a one-record open transaction", one, `summary('lso')?.dataset.value === '0' && summary('hw')?.dataset.value === '1' && flag('lso') && flag('hw')`},
		{"HW 14 after an abort", aborted, `summary('hw')?.dataset.value === '14' && summary('lso')?.dataset.value === '14' && cell(13)?.dataset.marker === 'ABORT'`},
		{"lesson 2's end", st.Focus.Topic, `cell(7)?.dataset.marker === 'COMMIT' && summary('hw')?.dataset.value === '8'`},
	} {
		p.open("/topics/" + c.topic + "/partitions/0")
		p.wait(c.name, c.ready, 15*time.Second)
		for _, size := range stageSizes {
			p.resize(size)
			p.wait(c.name+": the HW's flag at "+size.name, `flag('hw')`, 5*time.Second)
			p.assertLabelsApart(c.name + " at " + size.name)
			p.screenshot("rehearsal-labels-"+strings.ReplaceAll(c.name, " ", "-")+"-"+size.name, size.w, size.h, size.phone)
		}
		p.resize(stageSizes[0])
	}
}

// TestBrowserCalloutsApart: a reading step's callout and its rings' labels
// never cover the pointer flags (the group's committed offset among them)
// or each other, stepped with Next at 1280×720 and looked at after every
// step at 1280×720 and 1920×1080 — lesson 2 (step 5 reads the group before
// the restart) and lesson 6c (step 10 reads with read_committed again).
func TestBrowserCalloutsApart(t *testing.T) {
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
			callouts := 0
			for i := 0; ; i++ {
				if p.attr("lesson-run", "data-status") == "finished" {
					break
				}
				p.click("lesson-next")
				p.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined`, i+1), 60*time.Second)
				p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
				// The callout finds its place a frame or two after the log's last change.
				p.waitErr(`!byTestID('step-answer') || byTestID('step-answer').style.top !== ''`, 2*time.Second)
				if p.count(`[data-testid="step-answer"]`) > 0 {
					callouts++
				}
				for _, size := range stageSizes[:2] {
					p.resize(size)
					p.waitErr(`document.getAnimations().length === 0`, 2*time.Second)
					when := fmt.Sprintf("lesson %s step %d at %s", lesson, i+1, size.name)
					p.assertLabelsApart(when)
					if (lesson == "2" && i+1 == 5) || (lesson == "6c" && i+1 == 10) {
						p.screenshot("rehearsal-callout-lesson"+lesson+fmt.Sprintf("-step%d-", i+1)+size.name, size.w, size.h, false)
					}
				}
				p.resize(stageSizes[0])
			}
			if callouts == 0 {
				t.Errorf("lesson %s drew no callout: nothing was looked at", lesson)
			}
		})
	}
}

// TestBrowserActFeedback: every action of the Act tab shows its result on
// screen at 1280×720 without scrolling anything: "Set up seed 000" (its
// confirmation, while the log switches to the seed's output topic),
// a transaction's Begin and Send, and Produce — with the cells they wrote.
func TestBrowserActFeedback(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/")
	p.wait("the page", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	p.click("dock-tab-act")
	orders, totals, totalsTx := a.name("orders"), a.name("order-totals"), a.name("order-totals-tx")
	p.fill("seed-orders", orders)
	p.fill("seed-totals", totals)
	p.fill("seed-totals-tx", totalsTx)
	p.click("seed-setup")
	p.wait("the seed set up", `byTestID('seed-status').dataset.done === 'true'`, 30*time.Second)
	p.wait("the log of the seed's output", fmt.Sprintf(`location.pathname === '/topics/%s/partitions/0' && summary('hw')`, totalsTx), 15*time.Second)
	p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
	p.assertOnScreen("after Set up seed 000", map[string]string{"the seed's confirmation": `byTestID('seed-status')`})
	p.screenshot("rehearsal-act-seed-1280x720", 1280, 720, false)

	p.fill("txn-id", a.name("act-txn"))
	p.fill("txn-topic", orders)
	p.click("txn-begin")
	p.wait("Begin's result", `byTestID('txn-status').dataset.step === 'begin'`, 15*time.Second)
	p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
	p.assertOnScreen("after Begin", map[string]string{"Begin's result": `byTestID('txn-status')`})
	p.screenshot("rehearsal-act-begin-1280x720", 1280, 720, false)
	p.fill("txn-value", "act-1")
	p.click("txn-send")
	p.wait("Send's result and its cell", fmt.Sprintf(`byTestID('txn-status').dataset.step === 'send' && location.pathname === '/topics/%s/partitions/0' && cell(3)?.dataset.txn === 'open'`, orders), 15*time.Second)
	p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
	p.assertOnScreen("after Send", map[string]string{"Send's result": `byTestID('txn-status')`, "the open record": `cell(3)`})
	p.click("txn-commit")
	p.wait("Commit's result", `byTestID('txn-status').dataset.step === 'commit' && cell(4)?.dataset.marker === 'COMMIT'`, 15*time.Second)

	p.fill("produce-topic", orders)
	p.fill("produce-value", "act-2")
	p.click("produce-submit")
	p.wait("Produce's result and its cell", `byTestID('produce-result').textContent.includes('offset 5') && cell(5)?.dataset.kind === 'data'`, 15*time.Second)
	p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
	p.assertOnScreen("after Produce", map[string]string{"Produce's result": `byTestID('produce-result')`, "the record": `cell(5)`})
	p.screenshot("rehearsal-act-produce-1280x720", 1280, 720, false)
}

// shownOffsetsJS lists the offsets whose state the first screen shows (the
// page not scrolled): a cell's number or its tag line (committed, aborted,
// marker…) inside the window and the log.
const shownOffsetsJS = `(() => {
	const vp = byTestID('log-viewport').getBoundingClientRect();
	const bottom = Math.min(vp.bottom, innerHeight);
	const inside = (e) => { const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= vp.top - 0.5 && r.bottom <= bottom + 0.5; };
	return [...document.querySelectorAll('[data-testid="log-cell"]')].filter((c) => c.dataset.kind !== 'next' && !c.closest('.slot').hidden &&
		[...c.querySelectorAll('.off, .tag')].some((e) => e.textContent.trim() !== '' && inside(e))).map((c) => +c.dataset.offset);
})()`

// TestBrowserStackedStage: a laptop's 1280×720 zoomed to 150 % stacks the
// page; its first screen still shows the lesson's controls — where the
// run is and its Next, in the masthead — and more than three of the log's
// cells: lesson 2 stepped there with that Next to its end, in English and
// Korean, nothing clipped.
func TestBrowserStackedStage(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/")
	p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	p.fill("lesson-select", "2")
	p.click("lesson-start")
	p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
	p.click("lesson-next")
	p.wait("step 1's log", `byTestID('lesson-run').dataset.cursor === '1' && byTestID('lesson-run').dataset.busy === undefined && document.querySelectorAll('[data-testid="log-cell"]').length > 0`, 60*time.Second)
	p.zoom(1.5)
	for i := 1; ; i++ {
		p.eval(`window.scrollTo(0, 0)`, nil)
		p.assertOnScreen(fmt.Sprintf("150 %%, after step %d", i), map[string]string{"the run's place": `byTestID('lesson-mini-where')`, "Next": `byTestID('lesson-mini-next')`})
		if got, title := p.text("lesson-mini-where"), p.attr("lesson-mini-where", "title"); !strings.HasPrefix(got, fmt.Sprintf("%d/9", min(i+1, 9))) || !strings.Contains(title, fmt.Sprintf("Step %d of 9", min(i+1, 9))) {
			t.Errorf("after step %d the masthead says %q (%q)", i, got, title)
		}
		checkZoomedMasthead(t, p)
		if p.attr("lesson-run", "data-status") == "finished" {
			break
		}
		p.do("Next in the masthead", chromedp.Click(chromedp.CSS(`[data-testid="lesson-mini-next"]`)))
		p.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined`, i+1), 60*time.Second)
		p.wait("animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
	}
	var disabled bool
	p.eval(`byTestID('lesson-mini-next').disabled`, &disabled)
	if !disabled {
		t.Errorf("the masthead's Next is enabled after the lesson's end")
	}
	for _, lang := range []string{"en", "ko"} {
		p.click("ui-lang-" + lang)
		p.wait("the page in "+lang, fmt.Sprintf(`document.documentElement.lang === %q`, lang), 5*time.Second)
		p.eval(`window.scrollTo(0, 0)`, nil)
		p.wait("the log's end", `cell(7)?.dataset.marker === 'COMMIT' && document.getAnimations().length === 0`, 5*time.Second)
		var shown []int64
		p.eval(shownOffsetsJS, &shown)
		if len(shown) <= 3 {
			t.Errorf("%s at 150 %%: the first screen shows the cells of offsets %v, want more than three", lang, shown)
		}
		p.assertOnScreen("150 %, "+lang, map[string]string{"Next": `byTestID('lesson-mini-next')`})
		if c := p.clipped(); len(c) > 0 {
			t.Errorf("%s at 150 %%: clipped %v", lang, c)
		}
		p.screenshot("rehearsal-stacked-150pct-"+lang, 853, 480, false)
	}
	// A wide page never shows the masthead's copy.
	p.do("back to 100%", chromedp.EmulateViewport(1280, 720))
	p.wait("the wide page", `byTestID('log-viewport').clientWidth > 600`, 5*time.Second)
	if n := p.count(`[data-testid="lesson-mini"]:not([hidden])`); n != 1 {
		t.Fatalf("the masthead's lesson controls: %d", n)
	}
	var display string
	p.eval(`getComputedStyle(byTestID('lesson-mini')).display`, &display)
	if display != "none" {
		t.Errorf("at 1280×720 the masthead shows the lesson's controls too (display %s)", display)
	}
}
