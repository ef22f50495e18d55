package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserStudentExercise is the student's side of the hands-on
// exercises, in headless Chromium at 1280×720, in English and in Korean,
// over the embedded broker's classroom port (SASL, ACLs, a user per
// student). Each student opens /exercise from the stage's link and joins
// through the page: a bad name is refused by the page, a taken one by the
// API, each with its sentence in the page's language. The page then shows
// the student's Kafka identity and, once the teacher starts `commit`
// (without a reload), the exercise and its starter code filled in with
// the student's address, password and names. The Python starter, copied
// from the page as it is, runs under confluent-kafka: the English
// student's checklist turns ✓ live; the Korean student follows the
// starter's own comment and aborts instead, and their page shows the
// failing check with its hint, in Korean. A returning student sees their
// identity again; the log link opens their own partition. When the
// teacher starts another exercise, the page follows.
func TestBrowserStudentExercise(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	python := pythonPath(t, "the student's exercise page")
	h := startHandsOn(t, embedded)
	teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
	taken := h.join("taken")
	site := &app{t: t, url: h.url}

	students := []struct {
		lang, name string
		// abort turns the starter's commit_transaction into the abort its
		// comment offers: the wrong attempt.
		abort bool
		// Sentences the page shows in its language.
		badName, takenName, noExercise, passed, notYet, hint string
	}{
		{lang: "en", name: "ann" + h.suffix, badName: "cannot be a student's name", takenName: "already called",
			noExercise: "No exercise yet", passed: "Done", notYet: "Failed"},
		{lang: "ko", name: "min" + h.suffix, abort: true, badName: "학생 이름으로 쓸 수 없어요", takenName: "이미",
			noExercise: "아직 실습이 없어요", passed: "완료", notYet: "실패", hint: "ABORT 마커예요"},
	}
	pages := make([]*page, len(students))
	for i, s := range students {
		p := openPage(t, site, chromium, 1280, 720)
		pages[i] = p
		// The join URL is the stage; its student bar links to the exercise page.
		p.open("/")
		if i == 0 {
			p.screenshot("student-stage-1280x720-en", 1280, 720, false)
			var overflow bool
			p.eval(`document.documentElement.scrollHeight > document.documentElement.clientHeight`, &overflow)
			if overflow {
				t.Errorf("the student's stage scrolls at 1280×720 with the exercise link")
			}
		}
		var link string
		p.eval(`byTestID('student-exercise-link')?.getAttribute('href') ?? ''`, &link)
		if link != "/exercise" {
			t.Fatalf("the student's stage links to %q, want /exercise", link)
		}
		p.open(link)
		p.wait("the join form, its name field focused", `!byTestID('student-join').hidden && document.activeElement === byTestID('join-name')`, 10*time.Second)
		if s.lang != "en" {
			p.click("ui-lang-" + s.lang)
			p.wait("the page in "+s.lang, fmt.Sprintf(`document.documentElement.lang === %q`, s.lang), 5*time.Second)
		}

		// A bad name: the page says why before asking the API.
		p.fill("join-name", "ann-lee")
		p.click("join-submit")
		p.wait("the bad name's sentence", fmt.Sprintf(`!byTestID('join-error').hidden && byTestID('join-error').textContent.includes(%q)`, s.badName), 5*time.Second)
		// A taken name: the API answers 409, the page says so.
		p.fill("join-name", taken.Name)
		p.click("join-submit")
		p.wait("the taken name's sentence", fmt.Sprintf(`!byTestID('join-error').hidden && byTestID('join-error').textContent.includes(%q) && byTestID('join-error').textContent.includes(%q)`, s.takenName, taken.Name), 10*time.Second)
		if i == 0 {
			p.assertTextSize()
			p.studentScreenshot("student-join-1280x720-en", 1280, 720, false)
		}
		// Reached by keyboard: Tab to the field, type, Enter.
		p.fill("join-name", "")
		p.tabTo("join-name")
		p.press(s.name)
		p.press(kb.Enter)
		p.wait("the student's identity", fmt.Sprintf(`!byTestID('student-grid').hidden && byTestID('identity-username').textContent === %q`, s.name), 10*time.Second)
		if got := p.text("exercise-title"); got != s.noExercise {
			t.Errorf("%s: before the teacher starts anything the exercise reads %q, want %q", s.lang, got, s.noExercise)
		}
		p.eval(`window.offsetlabBoot = 'joined'`, nil)
	}

	en := pages[0]
	want := map[string]string{
		"bootstrap": strings.Join(h.kafka.Brokers(), ","), "securityProtocol": "SASL_PLAINTEXT", "saslMechanism": "SCRAM-SHA-256",
		"topic": "student-" + students[0].name + "-", "transactionalIdPrefix": "student-" + students[0].name + "-", "groupPrefix": "student-" + students[0].name + "-",
	}
	for field, v := range want {
		if got := en.text("identity-" + field); got != v {
			t.Errorf("the identity's %s reads %q, want %q", field, got, v)
		}
	}
	if got := en.text("identity-password"); len(got) < 12 {
		t.Errorf("the identity's password reads %q", got)
	}

	// The teacher starts commit: every student's page shows it without a reload.
	if status, body := teacher.post("/api/exercises/commit/start", ""); status != http.StatusOK {
		t.Fatalf("start commit: %d %s", status, body)
	}
	for i, s := range students {
		p := pages[i]
		p.wait("the commit exercise", `document.getElementById('app').dataset.exercise === 'commit' && !byTestID('exercise-body').hidden && byTestID('starter-code-python').textContent.includes('commit_transaction')`, 15*time.Second)
		var title string
		p.eval(`byTestID('exercise-title').textContent`, &title)
		if wantTitle := map[string]string{"en": "A committed transaction", "ko": "커밋된 트랜잭션"}[s.lang]; title != wantTitle {
			t.Errorf("%s: the exercise's title %q, want %q", s.lang, title, wantTitle)
		}
		password := p.text("identity-password")
		for client, parts := range map[string][]string{
			"python": {password, "student-" + s.name + "-commit", want["bootstrap"], `"transactional.id": "student-` + s.name + `-commit"`},
			"java":   {password, "student-" + s.name + "-commit", "sasl.mechanism=SCRAM-SHA-256"},
			"kcat":   {password, "-t " + "student-" + s.name + "-commit"},
			"go":     {password, `kgo.TransactionalID("student-` + s.name + `-commit")`},
		} {
			var code string
			p.eval(fmt.Sprintf(`byTestID('starter-code-%s').textContent`, client), &code)
			for _, part := range parts {
				if !strings.Contains(code, part) {
					t.Errorf("%s: the %s starter lacks %q:\n%s", s.lang, client, part, code)
				}
			}
		}
		p.wait("the checklist's rows", `document.querySelectorAll('[data-testid="check"]').length === 2`, 10*time.Second)
	}

	// The starter's tabs: Tab reaches the selected one, the arrows move.
	en.tabTo("starter-tab-python")
	en.press(kb.ArrowRight)
	en.wait("the Java tab chosen by keyboard", `document.activeElement === byTestID('starter-tab-java') && !byTestID('starter-java').hidden && byTestID('starter-python').hidden`, 5*time.Second)
	en.press(kb.ArrowLeft)
	en.click("copy-starter-python")
	en.wait("the copy said", `byTestID('page-status').textContent !== ''`, 5*time.Second)

	// The students run the Python starter copied from their page.
	for i, s := range students {
		p := pages[i]
		var code string
		p.eval(`byTestID('starter-code-python').textContent`, &code)
		if s.abort {
			code = strings.Replace(code, "p.commit_transaction()", "p.flush(); p.abort_transaction()", 1)
		}
		file := filepath.Join(t.TempDir(), "starter.py")
		if err := os.WriteFile(file, []byte(code), 0o600); err != nil {
			t.Fatal(err)
		}
		runStudent(t, exec.Command(python, file))
	}

	s := students[0]
	en.wait("the English checklist all ✓, live", fmt.Sprintf(`document.getElementById('app').dataset.done === 'true' &&
		[...document.querySelectorAll('[data-testid="check"]')].every((c) => c.dataset.state === 'ok' && c.querySelector('.check-mark').textContent === '✓' && c.querySelector('[data-testid="check-state"]').textContent === %q) &&
		window.offsetlabBoot === 'joined'`, s.passed), 45*time.Second)
	// The producer is named as on the partition page (P1), its id shortened.
	if got := en.text("checklist"); !strings.Contains(got, "offsets 0–2") || !strings.Contains(got, "COMMIT marker at offset 3 (producer P1, epoch") ||
		!strings.Contains(got, "producer P1 (id …") || regexp.MustCompile(`\d{10,}`).MatchString(got) {
		t.Errorf("the committed check's evidence reads %q", got)
	}
	en.assertTextSize()
	en.studentScreenshot("student-exercise-1280x720-en", 1280, 720, false)

	ko, s := pages[1], students[1]
	ko.wait("the Korean checklist's failing check with its hint, live", fmt.Sprintf(`(() => {
		const c = document.querySelector('[data-testid="check"][data-check="committed"]');
		return c && c.dataset.state === 'fail' && c.querySelector('.check-mark').textContent === '✗' &&
			c.querySelector('[data-testid="check-state"]').textContent === %q &&
			c.querySelector('[data-testid="check-hint"]')?.dataset.hintCode === 'exercise.hint.abortMarker' &&
			c.querySelector('[data-testid="check-hint"]').textContent.includes(%q) && window.offsetlabBoot === 'joined';
	})()`, s.notYet, s.hint), 45*time.Second)
	if got := ko.text("exercise-steps"); !strings.Contains(got, "init_transactions를 호출해요") {
		t.Errorf("the Korean steps read %q", got)
	}
	ko.assertTextSize()
	ko.studentScreenshot("student-exercise-1280x720-ko", 1280, 720, false)
	ko.studentScreenshot("student-exercise-390x844-ko", 390, 844, true)
	var sideways bool
	ko.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &sideways)
	if sideways {
		t.Errorf("the phone page scrolls sideways")
	}

	// A returning student sees their identity again; the log link opens
	// their own partition, not the teacher's.
	en.open("/exercise")
	en.wait("the returning student's identity", fmt.Sprintf(`byTestID('identity-username').textContent === %q && !byTestID('student-grid').hidden && byTestID('student-join').hidden`, students[0].name), 10*time.Second)
	en.wait("the log link", `byTestID('log-link').getAttribute('href') !== '/'`, 15*time.Second)
	var href string
	en.eval(`byTestID('log-link').getAttribute('href')`, &href)
	if wantHref := "/topics/student-" + students[0].name + "-commit/partitions/0?follow=off"; href != wantHref {
		t.Fatalf("the log link goes to %q, want %q", href, wantHref)
	}
	en.open(href)
	en.wait("the student's own log: three records and the COMMIT marker", `[0, 1, 2].every((o) => cell(o)?.dataset.kind === 'data') && cell(3)?.dataset.marker === 'COMMIT' && !byTestID('follow-teacher').checked`, 20*time.Second)

	// The teacher moves on: the Korean page follows without a reload.
	if status, body := teacher.post("/api/exercises/abort/start", ""); status != http.StatusOK {
		t.Fatalf("start abort: %d %s", status, body)
	}
	ko.wait("the abort exercise, live", `document.getElementById('app').dataset.exercise === 'abort' && byTestID('exercise-title').textContent === '중단된 트랜잭션' &&
		document.querySelectorAll('[data-testid="check"]').length === 3 && byTestID('names-topic').textContent.endsWith('-abort') && window.offsetlabBoot === 'joined'`, 15*time.Second)
}

// assertTextSize fails when any visible text of the page measures less
// than 16 px.
func (p *page) assertTextSize() {
	p.t.Helper()
	var small []string
	p.eval(`[...document.querySelectorAll('main *, header *')]
		.filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '') && e.getClientRects().length > 0)
		.map((e) => [e.tagName + '.' + e.className + ' "' + e.textContent.trim().slice(0, 30) + '"', parseFloat(getComputedStyle(e).fontSize)])
		.filter(([, size]) => size < 16)
		.map(([what, size]) => what + ': ' + size + 'px')`, &small)
	if len(small) > 0 {
		p.t.Errorf("text under 16 px: %v", small)
	}
}

// studentScreenshot saves the viewport and the whole page at a size as
// PNG files under test-output/screenshots (see screenshot, which waits for
// a log this page has not).
func (p *page) studentScreenshot(name string, width, height int64, mobile bool) {
	p.t.Helper()
	emulate := []chromedp.EmulateViewportOption{}
	if mobile {
		emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	p.do("resize to "+name, chromedp.EmulateViewport(width, height, emulate...))
	p.eval(`window.scrollTo(0, 0)`, nil)
	p.wait("the layout at "+name, fmt.Sprintf(`document.documentElement.clientWidth === %d && document.getAnimations().length === 0`, width), 5*time.Second)
	p.do("settle", chromedp.Sleep(200*time.Millisecond)) // let a frame paint after the resize; only for pixels
	dir := filepath.Join(repoRoot(p.t), "test-output", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	for _, shot := range []struct {
		suffix string
		action chromedp.Action[[]byte]
	}{
		{"", chromedp.CaptureScreenshot()},
		{"-full", chromedp.FullScreenshot(100)},
	} {
		png, err := chromedp.Run(p.ctx, shot.action)
		if err != nil {
			p.t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(dir, name+shot.suffix+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			p.t.Fatal(err)
		}
		p.t.Logf("screenshot: %s", path)
	}
}
