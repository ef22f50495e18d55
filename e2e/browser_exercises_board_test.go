package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// boardWords are the scoreboard's words a test reads, per language.
type boardWords struct {
	count    func(done, total int) string
	abortHas string // in the hint of an ABORT marker where a COMMIT was due
}

var boardLanguages = map[string]boardWords{
	"en": {count: func(d, n int) string { return fmt.Sprintf("%d of %d done", d, n) }, abortHas: "is an ABORT marker"},
	"ko": {count: func(d, n int) string { return fmt.Sprintf("%d명 중 %d명 완료", n, d) }, abortHas: "ABORT 마커예요"},
}

// TestBrowserExerciseBoard is the teacher's side of a hands-on class in
// a real browser at 1280×720, in English and in Korean: the teacher
// starts `commit` on the Exercises page; two students join over the API
// (the first before, and the board shows them while nothing runs); one
// commits a transaction of three with a client nobody here wrote
// (confluent-kafka when OFFSETLAB_PYTHON is set, else franz-go), the
// other aborts it. The scoreboard turns ✓ and ✗ live without a reload,
// with the broker's evidence on selection, focus and hover; clicking a
// student (the keyboard in Korean) puts their log on the stage — GET
// /api/classroom says so and a student's page follows — and opens it for
// the teacher; the CSV link downloads the rows; Reset clears the board;
// the join code shows full screen and Esc closes it. Screenshots at
// 1280×720 in both languages and 1920×1080, with thirty students on the
// English board.
func TestBrowserExerciseBoard(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	for _, lang := range []string{"en", "ko"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			exerciseBoardScenario(t, chromium, lang, boardLanguages[lang])
		})
	}
}

func exerciseBoardScenario(t *testing.T, chromium, lang string, words boardWords) {
	h := startHandsOn(t, embedded)
	a := &app{t: t, url: h.url}
	teacher := openPage(t, a, chromium, 1280, 720)
	login, _ := url.Parse(h.srv.TeacherLoginURL())
	teacher.open(login.RequestURI())
	teacher.wait("the teacher's page", `location.pathname === '/' && document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)
	teacher.wait("the scoreboard in the teacher's classroom bar", `byTestID('classroom-scoreboard')?.getAttribute('href') === '/exercises'`, 5*time.Second)
	if lang != "en" {
		teacher.click("ui-lang-" + lang)
	}
	teacher.open("/exercises")
	teacher.wait("Exercises in the navigation, current", `byTestID('nav-exercises')?.getAttribute('aria-current') === 'page'`, 5*time.Second)
	teacher.wait("the page in "+lang, fmt.Sprintf(`document.documentElement.lang === %q`, lang), 5*time.Second)
	teacher.eval(`window.offsetlabBoot = 'first load'`, nil)
	teacher.wait("an empty board", `!byTestID('board-empty').hidden && byTestID('board-count').dataset.total === '0'`, 10*time.Second)

	// A student joins while no exercise runs: their row appears.
	right := h.join("right")
	teacher.wait("the first student on the board, nothing running", fmt.Sprintf(`byTestID('exercise-running').dataset.running === 'false' &&
		document.querySelector('[data-testid="board-row"][data-student=%q]') && byTestID('board-empty').hidden`, right.Name), 20*time.Second)

	// Start commit.
	teacher.fill("exercise-select", "commit")
	teacher.wait("the commit board", `document.getElementById('app').dataset.selected === 'commit' && document.querySelectorAll('#board-head th').length === 4`, 10*time.Second)
	teacher.click("exercise-start")
	teacher.wait("commit running", `byTestID('exercise-running').dataset.running === 'true' && byTestID('exercise-start').disabled`, 10*time.Second)
	var current struct {
		Current string `json:"current"`
	}
	a.do("GET", "/api/exercises", nil, 200, &current)
	if current.Current != "commit" {
		t.Fatalf("current exercise after Start: %q", current.Current)
	}

	// Another student joins: both rows live, waiting.
	wrong := h.join("wrong")
	teacher.wait("both students on the board, waiting", fmt.Sprintf(`document.querySelectorAll('[data-testid="board-row"]').length === 2 &&
		[...document.querySelectorAll('[data-testid="board-cell"]')].every((c) => c.dataset.state === 'pending') &&
		byTestID('board-count').textContent === %q`, words.count(0, 2)), 20*time.Second)

	ex, _ := exercises.Find("commit")
	if testenv.May(testenv.Python) && os.Getenv(pythonEnv) != "" {
		right.python(t, ex, "commit")
	} else {
		t.Logf("%s is not set: the right student uses franz-go", pythonEnv)
		franzTransaction(t, right, ex, kgo.TryCommit)
	}
	franzTransaction(t, wrong, ex, kgo.TryAbort)

	cellIs := func(student *joined, check, state string) string {
		return fmt.Sprintf(`document.querySelector('[data-testid="board-cell"][data-student=%q][data-check=%q]')?.dataset.state === %q`, student.Name, check, state)
	}
	teacher.waitBoard("✓ for the right student and ✗ for the wrong one, live", strings.Join([]string{
		cellIs(right, "committed", "ok"), cellIs(right, "readCommitted", "ok"),
		cellIs(wrong, "committed", "fail"), cellIs(wrong, "readCommitted", "fail"),
		fmt.Sprintf(`byTestID('board-count').textContent === %q`, words.count(1, 2)),
	}, " && "), 45*time.Second)
	var marks []string
	teacher.eval(`[...document.querySelectorAll('[data-testid="board-cell"]')].map((c) => c.dataset.student.replace(/[0-9a-z]{6}$/, '') + '/' + c.dataset.check + '=' + c.textContent.trim())`, &marks)
	t.Logf("cells: %v", marks)
	for _, m := range marks {
		if !strings.ContainsAny(m, "✓✗") {
			t.Errorf("a cell without its mark: %q", m)
		}
	}
	var boot string
	teacher.eval(`window.offsetlabBoot || ''`, &boot)
	if boot != "first load" {
		t.Fatal("the board reloaded to show the results")
	}

	// The evidence of the wrong student's cell, on selection.
	teacher.do("select the wrong student's cell", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="board-cell"][data-student=%q][data-check="committed"]`, wrong.Name))))
	teacher.wait("the evidence of the ABORT marker", fmt.Sprintf(`byTestID('board-evidence').dataset.student === %q && byTestID('evidence-hint')?.dataset.code === 'exercise.hint.abortMarker' &&
		byTestID('evidence-hint').textContent.includes(%q) && [...document.querySelectorAll('[data-testid="evidence-line"]')].some((l) => l.textContent.includes('ABORT'))`, wrong.Name, words.abortHas), 10*time.Second)
	t.Logf("evidence: %s", teacher.text("board-evidence"))
	// Its producer is named as on the student's partition page: P1, no
	// 19-digit id.
	var producers struct {
		Named bool `json:"named"`
		Long  bool `json:"long"`
	}
	teacher.eval(`(() => { const lines = [...document.querySelectorAll('[data-testid="evidence-line"]')].map((l) => l.textContent);
		return {named: lines.some((l) => l.includes('ABORT') && /\bP1\b/.test(l)), long: lines.some((l) => /\d{10,}/.test(l))}; })()`, &producers)
	if !producers.Named || producers.Long {
		t.Errorf("the evidence names the ABORT marker's producer P1: %v, shows a long producer id: %v (%s)", producers.Named, producers.Long, teacher.text("board-evidence"))
	}
	assertProjectorReadable(t, teacher)
	teacher.boardShot("exercise-board-"+lang+"-1280x720", 1280, 720)
	teacher.press(kb.Tab)
	teacher.wait("the evidence of the focused cell", fmt.Sprintf(`document.activeElement.dataset.check === 'readCommitted' && byTestID('board-evidence').dataset.student === %q &&
		byTestID('board-evidence').dataset.check === 'readCommitted' && byTestID('evidence-hint')?.dataset.code === 'exercise.hint.receivesFew'`, wrong.Name), 5*time.Second)
	var at struct{ X, Y float64 }
	teacher.eval(fmt.Sprintf(`(() => { const r = document.querySelector('[data-testid="board-cell"][data-student=%q][data-check="committed"]').getBoundingClientRect();
		return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()`, right.Name), &at)
	teacher.do("point at the right student's cell", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y))
	teacher.wait("the evidence of the cell pointed at", fmt.Sprintf(`byTestID('board-evidence').dataset.student === %q && byTestID('evidence-state').dataset.state === 'ok' &&
		[...document.querySelectorAll('[data-testid="evidence-line"]')].some((l) => l.textContent.includes('COMMIT'))`, right.Name), 5*time.Second)

	// The CSV link downloads the rows.
	var csv struct {
		Download    bool   `json:"download"`
		Disposition string `json:"disposition"`
		Body        string `json:"body"`
	}
	teacher.eval(`(() => { const a = byTestID('exercise-csv'); window.offsetlabCSV = null;
		fetch(a.href).then(async (r) => { window.offsetlabCSV = {download: a.hasAttribute('download'), disposition: r.headers.get('Content-Disposition') || '', body: await r.text()}; }); })()`, nil)
	teacher.wait("the CSV download", `window.offsetlabCSV !== null`, 10*time.Second)
	teacher.eval(`window.offsetlabCSV`, &csv)
	wantCSV := fmt.Sprintf("name,done,committed,readCommitted\n%s,1,1,1\n%s,0,0,0\n", right.Name, wrong.Name)
	if !csv.Download || !strings.Contains(csv.Disposition, "attachment") || csv.Body != wantCSV {
		t.Errorf("the CSV link: download=%v, %q, body %q, want %q", csv.Download, csv.Disposition, csv.Body, wantCSV)
	}

	// The join code, full screen; Esc closes it.
	teacher.click("show-join")
	var join struct {
		Open    bool    `json:"open"`
		QR      float64 `json:"qr"`
		URLFont float64 `json:"urlFont"`
		URL     string  `json:"url"`
		Count   string  `json:"count"`
	}
	teacher.wait("the join code full screen", `byTestID('join-dialog').open && byTestID('join-full-qr').complete && byTestID('join-full-qr').naturalWidth > 0`, 10*time.Second)
	teacher.eval(`(() => { const q = byTestID('join-full-qr').getBoundingClientRect(); return {open: byTestID('join-dialog').open, qr: Math.min(q.width, q.height),
		urlFont: parseFloat(getComputedStyle(byTestID('join-full-url')).fontSize), url: byTestID('join-full-url').textContent, count: byTestID('join-full-count').textContent}; })()`, &join)
	if join.QR < 600 || join.URLFont < 28 || join.URL != h.srv.JoinURL() {
		t.Errorf("the join code full screen at 1280×720: QR %.0f px (want ≥ 600), URL %q at %.0f px (want %q, ≥ 28 px), count %q", join.QR, join.URL, join.URLFont, h.srv.JoinURL(), join.Count)
	}
	teacher.boardShot("exercise-board-join-"+lang+"-1280x720", 1280, 720)
	teacher.press(kb.Escape)
	teacher.wait("Esc to close the join code", `!byTestID('join-dialog').open && document.activeElement === byTestID('show-join')`, 5*time.Second)

	// Put the right student on the stage: the stage is theirs, a student's
	// page follows, the teacher's page opens their log.
	student := openPage(t, a, chromium, 1280, 720)
	student.open("/")
	stage := "/topics/" + url.PathEscape(ex.NamesFor(right.Name).Topic) + "/partitions/0"
	link := fmt.Sprintf(`[data-testid="stage-student"][data-student=%q]`, right.Name)
	if lang == "en" {
		teacher.do("click the right student", chromedp.Click(chromedp.CSS(link)))
	} else {
		teacher.eval(fmt.Sprintf(`document.querySelector(%q).focus()`, link), nil)
		teacher.press(kb.Enter)
	}
	teacher.waitAcrossLoad("the teacher's page on the student's log", fmt.Sprintf(`location.pathname === %q && byTestID('stream-status')?.dataset.state === 'open'`, stage), 20*time.Second)
	var masthead float64
	teacher.eval(`document.querySelector('.masthead').getBoundingClientRect().height`, &masthead)
	t.Logf("the teacher's partition page: masthead %.0f px high", masthead)
	teacher.screenshot("exercise-board-stage-"+lang+"-1280x720", 1280, 720, false)
	var class struct {
		TeacherPartition *partitionRef `json:"teacherPartition"`
	}
	a.do("GET", "/api/classroom", nil, 200, &class)
	if class.TeacherPartition == nil || class.TeacherPartition.Topic != ex.NamesFor(right.Name).Topic || class.TeacherPartition.Partition != 0 {
		t.Fatalf("the stage after clicking %s: %+v", right.Name, class.TeacherPartition)
	}
	student.wait("the student's page to follow the stage", fmt.Sprintf(`location.pathname === %q && byTestID('stream-status')?.dataset.state === 'open'`, stage), 20*time.Second)
	equal(t, "the staged log on the student's page", shape(student.cells()), []string{"0:committed", "1:committed", "2:committed", "3:COMMIT"})

	// Back on the board: the student on the stage is marked; Reset clears.
	teacher.open("/exercises")
	teacher.wait("the staged student marked", fmt.Sprintf(`document.querySelector('[data-testid="board-row"][data-student=%q] [data-testid="on-stage"]')?.hidden === false`, right.Name), 15*time.Second)
	teacher.click("exercise-reset")
	teacher.wait("the reset confirmation", `byTestID('reset-dialog').open && byTestID('reset-text').textContent.length > 0`, 5*time.Second)
	teacher.click("reset-confirm")
	teacher.wait("a cleared board", fmt.Sprintf(`!byTestID('reset-dialog').open && [...document.querySelectorAll('[data-testid="board-cell"]')].every((c) => c.dataset.state === 'pending') &&
		document.querySelectorAll('[data-testid="board-cell"]').length === 4 && byTestID('board-count').textContent === %q`, words.count(0, 2)), 20*time.Second)

	if lang != "en" {
		return
	}
	// Thirty students: the board scrolls inside itself under its head.
	for i := range 28 {
		h.join(fmt.Sprintf("s%02d", i))
	}
	teacher.wait("thirty rows, live", `document.querySelectorAll('[data-testid="board-row"]').length === 30`, 30*time.Second)
	// A student who wrote nothing has no log to put on the stage.
	idle := fmt.Sprintf("s00%s", h.suffix)
	teacher.do("click a student who wrote nothing", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="stage-student"][data-student=%q]`, idle))))
	teacher.wait("the board to say there is no log", fmt.Sprintf(`location.pathname === '/exercises' && byTestID('board-status').dataset.i18n === 'board.stageNoTopic' &&
		byTestID('board-status').textContent.includes(%q)`, idle+"-commit"), 10*time.Second)
	franzTransaction(t, right, ex, kgo.TryCommit)
	teacher.wait("the right student done again", cellIs(right, "committed", "ok")+` && byTestID('board-count').textContent === '1 of 30 done'`, 45*time.Second)
	assertProjectorReadable(t, teacher)
	teacher.boardShot("exercise-board-30-en-1280x720", 1280, 720)
	var sticky struct {
		Scrolls bool    `json:"scrolls"`
		Head    float64 `json:"head"`
		Box     float64 `json:"box"`
	}
	teacher.eval(`(() => { const s = byTestID('board-scroll'); s.scrollTop = s.scrollHeight;
		return {scrolls: s.scrollHeight > s.clientHeight, head: document.querySelector('#board-head th').getBoundingClientRect().top, box: s.getBoundingClientRect().top}; })()`, &sticky)
	if !sticky.Scrolls || sticky.Head-sticky.Box > 2 {
		t.Errorf("thirty students: the board scrolls %v, its head at %.0f px in a box at %.0f px", sticky.Scrolls, sticky.Head, sticky.Box)
	}
	teacher.boardShot("exercise-board-30-en-1920x1080", 1920, 1080)

	// The teacher removes the idle student, keeping their (absent)
	// topics: the row leaves the board and the name is free again.
	teacher.eval(`window.confirm = (q) => !q.includes('topics'); true`, nil)
	teacher.do("remove the idle student", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="remove-student"][data-student=%q]`, idle))))
	teacher.wait("the idle student off the board", fmt.Sprintf(`!document.querySelector('[data-testid="board-row"][data-student=%q]') &&
		byTestID('board-status').dataset.i18n === 'board.removedKept'`, idle), 15*time.Second)
	h.join("s00") // the name is free
}

// partitionRef is a partition as GET /api/classroom names it.
type partitionRef struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// franzTransaction writes one transaction of three records to the
// student's commit topic with franz-go, and commits or aborts it.
func franzTransaction(t *testing.T, j *joined, ex exercises.Exercise, end kgo.TransactionEndTry) {
	t.Helper()
	n := ex.NamesFor(j.Name)
	cl := j.franz(t, kgo.TransactionalID(n.TransactionalID))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produceAll(t, cl, n.Topic, "a", "b", "c")
	if err := cl.EndTransaction(ctx, end); err != nil {
		t.Fatal(err)
	}
}

// assertProjectorReadable fails when the page scrolls at its size or a
// visible text on it is under 16 px.
func assertProjectorReadable(t *testing.T, p *page) {
	t.Helper()
	var got struct {
		Scroll   float64  `json:"scroll"`
		Small    []string `json:"small"`
		Viewport float64  `json:"viewport"`
	}
	p.eval(`(() => {
		const small = [];
		for (const el of document.querySelectorAll('main *')) {
			if (!el.childNodes.length || ![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
			const r = el.getBoundingClientRect();
			if (!r.width || !r.height || el.closest('[hidden], dialog:not([open]), .sr-only')) continue;
			const size = parseFloat(getComputedStyle(el).fontSize);
			if (size < 16) small.push(el.tagName + '.' + el.className + ' ' + size + 'px: ' + el.textContent.trim().slice(0, 30));
		}
		return {scroll: document.documentElement.scrollHeight, viewport: innerHeight, small};
	})()`, &got)
	if got.Scroll > got.Viewport+1 {
		t.Errorf("the Exercises page scrolls: %.0f px in a %.0f px window", got.Scroll, got.Viewport)
	}
	if len(got.Small) > 0 {
		t.Errorf("text under 16 px on the Exercises page: %v", got.Small)
	}
}

// boardShot saves the viewport as test-output/screenshots/name.png at
// width×height (the harness's screenshot waits for a log, which this
// page has none of).
func (p *page) boardShot(name string, width, height int64) {
	p.t.Helper()
	p.do("resize to "+name, chromedp.EmulateViewport(width, height))
	p.wait("the page at "+name, fmt.Sprintf(`innerWidth === %d && document.getAnimations().length === 0`, width), 5*time.Second)
	p.do("settle", chromedp.Sleep(200*time.Millisecond)) // let a frame paint after the resize; only for pixels
	dir := filepath.Join(repoRoot(p.t), "test-output", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
}

// waitBoard is wait with the board's cells in the failure message.
func (p *page) waitBoard(what, cond string, timeout time.Duration) {
	p.t.Helper()
	if err := p.waitErr(cond, timeout); err != nil {
		var cells []string
		p.eval(`[...document.querySelectorAll('[data-testid="board-cell"]')].map((c) => c.dataset.student + '/' + c.dataset.check + '=' + c.dataset.state).concat([byTestID('board-count').textContent, byTestID('board-evidence').textContent])`, &cells)
		p.t.Fatalf("waiting %v for %s: %v\nboard: %v", timeout, what, err, cells)
	}
}

// waitAcrossLoad is wait through a navigation the page starts itself
// (which ends the evaluation under way): it asks again in the new page.
func (p *page) waitAcrossLoad(what, cond string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := p.waitErr(cond, time.Until(deadline))
		if err == nil {
			return
		}
		if time.Now().After(deadline) || !(strings.Contains(err.Error(), "navigated") || strings.Contains(err.Error(), "context")) {
			p.t.Fatalf("waiting %v for %s: %v\npage state: %s", timeout, what, err, p.state())
		}
	}
}
