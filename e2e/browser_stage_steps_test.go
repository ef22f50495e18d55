package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/offsetlab/offsetlab/web"
)

// Every step of every lesson, as a class sees it on a 1280×720 projector:
// the step's words (title, narration, the command on real Kafka, each
// check with its mark, expected and observed values) are on screen without
// scrolling any panel, beside the log the step concerns with all of its
// cells, both consumer lanes and the LSO and HW pointers, and the document
// itself does not scroll — in English, in Korean, and in classroom mode on
// the teacher's page and a student's.

// walkStep is one step of a run as the lesson API returns it.
type walkStep struct {
	Index     int               `json:"index"`
	Title     map[string]string `json:"title"`
	Narration map[string]string `json:"narration"`
	Command   string            `json:"command"`
	Status    string            `json:"status"`
	Topic     string            `json:"topic"`
	Partition int32             `json:"partition"`
	Checks    []struct {
		Text     map[string]string `json:"text"`
		Expected string            `json:"expected"`
		Observed string            `json:"observed"`
		OK       bool              `json:"ok"`
	} `json:"expectations"`
}

// words is how many characters of words the step's card carries.
func (s walkStep) words(lang string) int {
	n := len([]rune(s.Title[lang])) + len([]rune(s.Narration[lang])) + len(s.Command)
	for _, c := range s.Checks {
		n += len([]rune(c.Text[lang])) + len(c.Expected) + len(c.Observed)
	}
	return n
}

// walkRun is a run as the lesson API returns it.
type walkRun struct {
	ID     string     `json:"id"`
	Lesson string     `json:"lesson"`
	Status string     `json:"status"`
	Cursor int        `json:"cursor"`
	Error  string     `json:"error"`
	Steps  []walkStep `json:"steps"`
	Focus  *struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
	} `json:"focus"`
}

// stageMode is one way a class sees the lessons: the languages the
// page is read in after each step, and whether the page is a classroom
// teacher's (with a student's page, in Korean, beside it).
type stageMode struct {
	name      string
	langs     []string
	classroom bool
}

// TestBrowserStageEveryStep walks every lesson the embedded broker can run
// (from GET /api/lessons; lesson 4 needs three brokers and is skipped with
// a message) with the page's Next button at 1280×720, once per mode, and
// asserts after each step that its words and its log are on screen and the
// page does not scroll: on its own in English and, after the masthead's
// switch, in Korean; in classroom mode on the teacher's page (English) and
// a student's (Korean). On its own it also zooms to 150 % at each lesson's
// wordiest step: the words may scroll with the page there, but nothing is
// clipped. OFFSETLAB_EVERY_STEP_LESSONS=2,3 walks only those lessons.
// Each mode walks lessons 1–6c and lessons 6d–9 side by side, each half on
// a server and pages of its own: the walk mostly waits on the lessons'
// timers and the page's redraws.
func TestBrowserStageEveryStep(t *testing.T) {
	t.Parallel()
	halves := []struct {
		name string
		in   func(id string) bool
	}{
		{"lessons 1-6c", func(id string) bool { return id < "6d" }},
		{"lessons 6d-9", func(id string) bool { return id >= "6d" }},
	}
	for _, mode := range []stageMode{{"default", []string{"en", "ko"}, false}, {"classroom", []string{"en"}, true}} {
		for _, half := range halves {
			t.Run(mode.name+"/"+half.name, func(t *testing.T) {
				t.Parallel()
				walkLessons(t, mode, half.in)
			})
		}
	}
}

// walkLessons walks, in one mode, the lessons whose id in accepts, on a
// server and pages of its own.
func walkLessons(t *testing.T, mode stageMode, in func(id string) bool) {
	chromium := chromiumPath(t)
	var a *app
	var teacher *page
	var pages []*page
	if mode.classroom {
		c := startClassroom(t, web.Access{Classroom: true})
		a = c.app
		teacher = openPage(t, a, chromium, 1280, 720)
		login, _ := url.Parse(c.srv.TeacherLoginURL())
		teacher.open(login.RequestURI())
		teacher.wait("the teacher's page", `location.pathname === '/' && document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)
		student := openPage(t, a, chromium, 1280, 720)
		student.open("/")
		student.wait("the student's lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true' && document.getElementById('app').dataset.role === 'student'`, 10*time.Second)
		// A student reads in Korean: the teacher's page stays English.
		student.readIn("ko")
		pages = []*page{teacher, student}
	} else {
		a = startApp(t, embedded)
		teacher = openPage(t, a, chromium, 1280, 720)
		teacher.open("/")
		pages = []*page{teacher}
	}
	teacher.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	var list struct {
		Lessons []struct {
			ID        string `json:"id"`
			Available bool   `json:"available"`
		} `json:"lessons"`
	}
	a.do("GET", "/api/lessons", nil, http.StatusOK, &list)
	start := time.Now()
	asserted := map[string]int{}
	tooLong := map[string][]string{}
	for _, l := range list.Lessons {
		if only := os.Getenv("OFFSETLAB_EVERY_STEP_LESSONS"); !in(l.ID) || only != "" && !strings.Contains(","+only+",", ","+l.ID+",") {
			continue
		}
		if !l.Available {
			t.Logf("lesson %s skipped: the embedded broker cannot run it (it needs three brokers); TestBrowserReplicationLesson walks its steps on three real ones", l.ID)
			continue
		}
		walkLesson(t, a, mode, l.ID, teacher, pages, asserted, tooLong)
	}
	for who, n := range asserted {
		t.Logf("%s: %d steps asserted on %s at 1280×720 in %v", mode.name, n, who, time.Since(start).Round(time.Second))
		if len(tooLong[who]) > 0 {
			t.Errorf("%s: %d steps too long for the stage on %s (their command or checks a scroll of the Lesson tab away): %v", mode.name, len(tooLong[who]), who, tooLong[who])
		}
	}
}

// readIn switches the page to lang with the masthead's switch and waits
// for the lessons panel to redraw in it.
func (p *page) readIn(lang string) {
	p.t.Helper()
	p.click("ui-lang-" + lang)
	p.wait("the lessons panel in "+lang, fmt.Sprintf(`byTestID('lessons-panel').lang === %q`, lang), 5*time.Second)
}

// walkLesson starts lesson id on the teacher's page and steps it to its
// end with Next, asserting every page after every step (the teacher's in
// each of the mode's languages, then back to its first).
func walkLesson(t *testing.T, a *app, mode stageMode, id string, teacher *page, pages []*page, asserted map[string]int, tooLong map[string][]string) {
	t.Helper()
	before := teacher.attr("lesson-run", "data-run")
	if teacher.attr("lessons-panel", "data-run") != "" {
		// A run is on show: its title opens the lesson list again.
		teacher.click("lesson-title")
	}
	teacher.fill("lesson-select", id)
	teacher.click("lesson-start")
	teacher.wait("lesson "+id+" to start", fmt.Sprintf(`byTestID('lesson-run').dataset.run && byTestID('lesson-run').dataset.run !== %q && byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, before), 15*time.Second)
	runID := teacher.attr("lesson-run", "data-run")
	// While the lesson runs its controls fit one bar.
	var bar float64
	teacher.eval(`document.querySelector('.lesson-sticky').getBoundingClientRect().height`, &bar)
	if bar > 110 {
		t.Errorf("%s: lesson %s's controls take %.0f px, want one bar (≤ 110 px)", mode.name, id, bar)
	}
	var st walkRun
	a.do("GET", "/api/lessons/runs/"+runID, nil, http.StatusOK, &st)
	wordiest := 0
	for i, s := range st.Steps {
		if s.words("en") > st.Steps[wordiest].words("en") {
			wordiest = i
		}
	}
	topic, partition := "", int32(0)
	for i := range st.Steps {
		teacher.wait(fmt.Sprintf("lesson %s: Next before step %d", id, i+1), `!byTestID('lesson-next').disabled`, 15*time.Second)
		teacher.click("lesson-next")
		teacher.wait(fmt.Sprintf("lesson %s step %d", id, i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined && byTestID('lesson-current')?.dataset.index === '%d'`, i+1, i), 90*time.Second)
		a.do("GET", "/api/lessons/runs/"+runID, nil, http.StatusOK, &st)
		if st.Status == "failed" {
			t.Fatalf("lesson %s failed at step %d: %s", id, i+1, st.Error)
		}
		if s := st.Steps[i]; s.Topic != "" {
			topic, partition = s.Topic, s.Partition
		}
		if st.Status == "finished" && st.Focus != nil {
			topic, partition = st.Focus.Topic, st.Focus.Partition
		}
		for n, p := range pages {
			langs, who := mode.langs, "the page"
			if mode.classroom {
				who = "the teacher's page"
			}
			if n > 0 {
				langs, who = []string{"ko"}, "the student's page"
				p.wait(fmt.Sprintf("%s: lesson %s step %d: the step on the student's page", mode.name, id, i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-current')?.dataset.index === '%d'`, i+1, i), 15*time.Second)
			}
			for k, lang := range langs {
				if n == 0 && k > 0 {
					p.readIn(lang)
				}
				when := fmt.Sprintf("%s: lesson %s step %d (%s, %s)", mode.name, id, i+1, who, lang)
				if p.assertStepOnStage(when, lang, st.Steps[i], topic, partition) {
					tooLong[who] = append(tooLong[who], fmt.Sprintf("%s/%d %s", id, i+1, lang))
					p.screenshot("stage-step-too-long-"+strings.NewReplacer(" ", "-", ":", "", "(", "", ")", "", ",", "", "'", "").Replace(when), 1280, 720, false)
				}
				asserted[who]++
			}
			if n == 0 && len(langs) > 1 {
				p.readIn(langs[0])
			}
		}
		if !mode.classroom && i == wordiest {
			teacher.assertStepZoomed(fmt.Sprintf("%s: lesson %s step %d", mode.name, id, i+1))
		}
	}
	if id == "2" {
		// Lesson 2 at its end, as the class sees it: to look at.
		for n, p := range pages {
			name := "stage-steps-lesson2-end-" + mode.name
			if mode.classroom {
				name += map[int]string{0: "-teacher", 1: "-student"}[n]
			}
			p.screenshot(name+"-1280x720", 1280, 720, false)
			if !mode.classroom {
				p.screenshot(name+"-1920x1080", 1920, 1080, false)
				p.screenshot(name+"-phone", 390, 844, true)
				p.zoom(1.5)
				p.screenshot(name+"-150pct", 853, 480, false)
			}
			p.do("back to 1280×720", chromedp.EmulateViewport(1280, 720))
			p.wait("the log to redraw at 1280×720", `byTestID('log-viewport').clientWidth > 600`, 5*time.Second)
		}
	}
}

// assertStepOnStage fails unless step's words and the log of topic (when
// the lesson has opened one) are on screen at 1280×720 without scrolling,
// the words' text measures at least 16 px, no label of the log covers or
// clips another and the page does not scroll.
// One exception, which it returns true for: a step whose words the page
// itself finds too long for the screen beside all of the log's cells
// (stepplace.js marks the log panel data-arrangement="-1"); its title,
// narration and cells must still show, and its command and checks stand
// whole in the Lesson tab, a scroll of that tab away.
func (p *page) assertStepOnStage(when, lang string, step walkStep, topic string, partition int32) (tooLong bool) {
	p.t.Helper()
	return p.assertStepOnStageTry(when, lang, step, topic, partition, true)
}

// assertStepOnStageTry is assertStepOnStage; with again, a log that moved
// meanwhile (a retention step deletes records on the broker's own time)
// gets one more look.
func (p *page) assertStepOnStageTry(when, lang string, step walkStep, topic string, partition int32, again bool) (tooLong bool) {
	p.t.Helper()
	// The words are the step's, in the page's language.
	var shown struct {
		Title     string   `json:"title"`
		Narration string   `json:"narration"`
		Command   string   `json:"command"`
		Checks    []string `json:"checks"`
	}
	p.waitErr(fmt.Sprintf(`document.querySelector('[data-testid="lesson-current"] [data-testid="lesson-narration"]')?.textContent === %q`, step.Narration[lang]), 5*time.Second)
	p.eval(`(() => { const q = (sel) => document.querySelector('[data-testid="lesson-current"] ' + sel); return {title: q('h3')?.textContent || '',
		narration: q('[data-testid="lesson-narration"]')?.textContent || '', command: q('[data-testid="lesson-command"]')?.textContent || '',
		checks: [...document.querySelectorAll('[data-testid="lesson-current"] [data-testid="lesson-check"]')].map((li) => li.dataset.ok + ' ' + li.textContent)}; })()`, &shown)
	if !strings.Contains(shown.Title, step.Title[lang]) || shown.Narration != step.Narration[lang] || shown.Command != step.Command || len(shown.Checks) != len(step.Checks) {
		p.t.Fatalf("%s: the card shows %+v; want the step's title %q, narration %q, command %q and %d checks", when, shown, step.Title[lang], step.Narration[lang], step.Command, len(step.Checks))
	}
	exprs := map[string]string{
		"the step's title":     `document.querySelector('[data-testid="lesson-current"] h3')`,
		"the step's narration": `document.querySelector('[data-testid="lesson-current"] [data-testid="lesson-narration"]')`,
		"the masthead":         `document.querySelector('.masthead')`,
	}
	if step.Command != "" {
		exprs["the step's command"] = `document.querySelector('[data-testid="lesson-current"] [data-testid="lesson-command"]')`
	}
	for i := range step.Checks {
		c := fmt.Sprintf(`document.querySelectorAll('[data-testid="lesson-current"] [data-testid="lesson-check"]')[%d]`, i)
		exprs[fmt.Sprintf("check %d", i+1)] = c
		exprs[fmt.Sprintf("check %d's mark", i+1)] = c + `.querySelector('.mark')`
		exprs[fmt.Sprintf("check %d's expected value", i+1)] = c + `.querySelector('[data-testid="check-expected"], [data-expected="same"]')`
		exprs[fmt.Sprintf("check %d's observed value", i+1)] = c + `.querySelector('[data-testid="check-observed"]')`
	}
	if p.attr("lesson-next", "data-testid") != "" {
		exprs["Next"] = `byTestID('lesson-next')`
	}
	var l partitionLog
	if topic != "" {
		// The page at the log's pointers as the API reads them, read
		// again until they agree: an acks=0 step is done once its
		// producer sent, before the broker appended everything.
		onPage := func(l partitionLog) string {
			return fmt.Sprintf(`location.pathname === '/topics/%s/partitions/%d' && byTestID('stream-status').dataset.state === 'open' &&
				summary('hw')?.dataset.value === '%d' && summary('lso')?.dataset.value === '%d' && summary('logstart')?.dataset.value === '%d'`,
				topic, partition, l.HighWatermark, l.LastStableOffset, l.LogStartOffset)
		}
		for settle := time.Now().Add(5 * time.Second); ; {
			l = p.a.logOf(topic, partition)
			var agree bool
			p.eval(onPage(l), &agree)
			if agree || time.Now().After(settle) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		p.wait(fmt.Sprintf("%s: the page on %s-%d at HW %d", when, topic, partition, l.HighWatermark), onPage(l), 20*time.Second)
		// All of the log when its rows fit the screen; else (lesson 4's
		// fifteen records) the newest rows that do: the log follows its end.
		first := l.LogStartOffset
		var fit struct {
			Rows int64 `json:"rows"`
			Cols int64 `json:"cols"`
			RowH int64 `json:"rowH"`
		}
		p.eval(`(() => { const row = document.querySelector('#log-viewport .row'); const vp = byTestID('log-viewport');
			return {rows: row ? Math.floor((vp.clientHeight + 1) / row.offsetHeight) : 0, cols: row ? row.querySelectorAll('.slot').length : 0, rowH: row ? row.offsetHeight : 0}; })()`, &fit)
		if room := fit.Rows * fit.Cols; room > 0 && l.HighWatermark-l.LogStartOffset+1 > room {
			// Two rows of cells fit the stage's log at 1280×720 on every
			// page, share lanes and the classroom bar included: only a
			// longer log may leave its older rows a scroll away.
			if l.HighWatermark-l.LogStartOffset+1 <= 2*fit.Cols {
				p.t.Errorf("%s: the log's %d offsets take two rows, but only %d fits the screen (%d px a row)", when, l.HighWatermark-l.LogStartOffset, fit.Rows, fit.RowH)
			}
			// Rows start at the log start, the next offset's slot on the last.
			rows := (l.HighWatermark - l.LogStartOffset + fit.Cols) / fit.Cols
			first = l.LogStartOffset + (rows-fit.Rows)*fit.Cols
			p.t.Logf("%s: the log's %d offsets need more rows than the screen's %d: offsets %d–%d are asserted, the rest a scroll of the log away", when, l.HighWatermark-l.LogStartOffset, fit.Rows, first, l.HighWatermark-1)
		}
		// Every cell drawn, none still loading (a cell scrolled out of the
		// log is not drawn: the assertions below name it).
		p.waitErr(fmt.Sprintf(`[...Array(%d).keys()].every((o) => cell(o + %d) && cell(o + %d).dataset.kind !== 'loading')`,
			l.HighWatermark-first, first, first), 5*time.Second)
		// The log's own controls stay: its replay bar and tools.
		exprs["the replay's scrubber"] = `byTestID('replay-scrubber')`
		exprs["the replay's Live button"] = `byTestID('replay-live')`
		exprs["the Table toggle"] = `byTestID('table-toggle')`
		exprs["Save this view"] = `byTestID('save-view')`
		exprs["the LSO summary"] = `summary('lso')`
		exprs["the HW summary"] = `summary('hw')`
		exprs["the LSO flag"] = `flag('lso')`
		exprs["the HW flag"] = `flag('hw')`
		exprs["the next offset's slot"] = fmt.Sprintf(`cell(%d)`, l.HighWatermark)
		for o := first; o < l.HighWatermark; o++ {
			exprs[fmt.Sprintf("cell %d", o)] = fmt.Sprintf(`cell(%d)`, o)
			exprs[fmt.Sprintf("cell %d's read_committed lane", o)] = fmt.Sprintf(`lane('rc', %d)`, o)
			exprs[fmt.Sprintf("cell %d's read_uncommitted lane", o)] = fmt.Sprintf(`lane('ru', %d)`, o)
		}
	}
	p.wait(when+": animations to finish", `document.getAnimations().length === 0`, 5*time.Second)
	// The card finds its place within a frame or two of the log's last change.
	var all []string
	for _, e := range exprs {
		all = append(all, "visible("+e+")")
	}
	p.waitErr("(() => {"+visibleJS+" return "+strings.Join(all, " && ")+"; })()", 3*time.Second)
	off := p.offScreen(exprs)
	if len(off) > 0 && topic != "" && again {
		if now := p.a.logOf(topic, partition); now.LogStartOffset != l.LogStartOffset || now.HighWatermark != l.HighWatermark {
			return p.assertStepOnStageTry(when, lang, step, topic, partition, false)
		}
	}
	if len(off) > 0 && p.attr("log-panel", "data-arrangement") == "-1" {
		var below []string
		for _, name := range off {
			if name == "the step's command" || strings.HasPrefix(name, "check ") {
				below = append(below, name)
			}
		}
		if len(below) == len(off) {
			var outside []string
			p.eval(`[...document.querySelectorAll('[data-testid="lesson-current"] :is([data-testid="lesson-command"], [data-testid="lesson-check"])')]
				.filter((e) => { const tab = byTestID('dock-lesson').getBoundingClientRect(); const r = e.getBoundingClientRect();
					return !e.closest('[data-testid="dock-lesson"]') || r.left < tab.left - 0.5 || r.right > tab.right + 0.5; })
				.map((e) => e.dataset.testid + ' "' + e.textContent.slice(0, 30) + '"')`, &outside)
			if len(outside) == 0 {
				p.t.Logf("%s: too long for the stage at 1280×720: %v are a scroll of the Lesson tab away", when, below)
				off, tooLong = nil, true
			}
		}
	}
	var small []string
	p.eval(`[...document.querySelectorAll('[data-testid="lesson-current"] :is(h3, [data-testid="lesson-narration"], [data-testid="lesson-command"], [data-testid="lesson-check"] *)')]
		.filter((e) => e.getClientRects().length > 0 && e.textContent.trim() !== '' && !e.closest('.sr-only'))
		.map((e) => [(e.dataset.testid || e.className || e.tagName) + ' "' + e.textContent.trim().slice(0, 30) + '"', parseFloat(getComputedStyle(e).fontSize)])
		.filter(([, size]) => size < 16).map(([what, size]) => what + ': ' + size + 'px')`, &small)
	var doc struct {
		Height int `json:"height"`
		Width  int `json:"width"`
		InnerH int `json:"innerH"`
		InnerW int `json:"innerW"`
	}
	p.eval(`({height: document.scrollingElement.scrollHeight, width: document.scrollingElement.scrollWidth, innerH: innerHeight, innerW: innerWidth})`, &doc)
	var problems []string
	if len(off) > 0 {
		problems = append(problems, fmt.Sprintf("not on screen without scrolling: %v", off))
	}
	if topic != "" {
		// No label over another: flags, batches, the step's callout and its rings' labels.
		var labels []string
		p.eval(labelsJS, &labels)
		if len(labels) > 0 {
			problems = append(problems, fmt.Sprintf("labels covering or clipping each other: %v", labels))
		}
	}
	if len(small) > 0 {
		problems = append(problems, fmt.Sprintf("the step's words under 16 px: %v", small))
	}
	if doc.Height > doc.InnerH || doc.Width > doc.InnerW {
		problems = append(problems, fmt.Sprintf("the document is %d×%d px in a %d×%d window: it scrolls", doc.Width, doc.Height, doc.InnerW, doc.InnerH))
	}
	if len(problems) > 0 {
		p.screenshot("stage-step-"+strings.NewReplacer(" ", "-", ":", "", "(", "", ")", "").Replace(when), 1280, 720, false)
		p.t.Errorf("%s: %s", when, strings.Join(problems, "; "))
	}
	return tooLong
}

// assertStepZoomed zooms the page to 150 % (a laptop's 1280×720 at 853×480
// CSS pixels, where the page stacks and scrolls), fails if any of the
// step's words or the stage's labels are clipped, and zooms back.
func (p *page) assertStepZoomed(when string) {
	p.t.Helper()
	p.zoom(1.5)
	// The stacked page may grow a scroll bar after the first layout: the
	// log lays out again for the narrower width.
	p.waitErr(`![...document.querySelectorAll('.cell .off, .cell .val, .cell .pid, .cell .tag, .lane, .ptr, [role="tab"], button, select, .flag')]
		.some((e) => e.getClientRects().length > 0 && !e.closest('[hidden]') && e.textContent.trim() !== '' && e.scrollWidth > e.clientWidth + 1)`, 3*time.Second)
	clipped := p.clipped()
	var words []string
	p.eval(`(() => {
		const out = [];
		for (const e of document.querySelectorAll('[data-testid="lesson-current"], [data-testid="lesson-current"] *')) {
			if (!e.getClientRects().length || e.closest('.sr-only')) continue;
			if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible') out.push((e.dataset.testid || e.className || e.tagName) + ' scrolls sideways');
			const r = e.getBoundingClientRect();
			for (let a = e.parentElement; a; a = a.parentElement) {
				const s = getComputedStyle(a);
				if (!/hidden|clip/.test(s.overflowX + ' ' + s.overflowY)) continue;
				const q = a.getBoundingClientRect();
				if (r.left < q.left - 0.5 || r.right > q.right + 0.5 || r.top < q.top - 0.5 || r.bottom > q.bottom + 0.5) {
					out.push((e.dataset.testid || e.className || e.tagName) + ' "' + e.textContent.trim().slice(0, 30) + '" cut by ' + (a.dataset.testid || a.className || a.tagName));
					break;
				}
			}
		}
		return out;
	})()`, &words)
	p.screenshot("stage-step-zoom150-"+strings.NewReplacer(" ", "-", ":", "").Replace(when), 853, 480, false)
	p.do("back to 100%", chromedp.EmulateViewport(1280, 720))
	p.wait("the log to redraw at 100%", `byTestID('log-viewport').clientWidth > 600`, 5*time.Second)
	if len(clipped)+len(words) > 0 {
		p.t.Errorf("%s at 150 %%: clipped %v %v", when, clipped, words)
	}
}

// logOf reads a partition's log (its first 100 offsets) from the API.
func (a *app) logOf(topic string, partition int32) partitionLog {
	a.t.Helper()
	var l partitionLog
	a.do("GET", fmt.Sprintf("/api/topics/%s/partitions/%d/log?from=0&limit=100", topic, partition), nil, http.StatusOK, &l)
	return l
}
