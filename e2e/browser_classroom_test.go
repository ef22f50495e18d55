package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/web"
)

// TestBrowserClassroom is acceptance 4 of the classroom issue, in two
// headless Chromiums side by side (two profiles, so two people): the
// teacher logs in with the one-time link, the student opens the join URL.
// The teacher sets up seed 000 and clicks "Crash before commit" in the
// processor panel (exactly-once, crash at O-2); the student's page follows
// the teacher to the output partition and shows the new cells, the held
// LSO and the crash narration without a reload. The student's page has no
// control that changes anything: the known ones are absent, and clicking
// every enabled button on it sends no state-changing request. A guided
// lesson the teacher steps through shows on the student's page too, in the
// student's own language.
func TestBrowserClassroom(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	c := startClassroom(t, web.Access{Classroom: true})
	join := c.srv.JoinURL()
	if join != "http://"+c.host+"/" {
		t.Fatalf("join URL %q, want http://%s/", join, c.host)
	}

	student := openPage(t, c.app, chromium, 1280, 720)
	student.open("/")
	student.eval(`window.offsetlabBoot = 'first load'`, nil)
	if got := student.text("empty-state"); !strings.Contains(got, "follows the partition the teacher opens") {
		t.Fatalf("the student's empty page says %q", got)
	}

	teacher := openPage(t, c.app, chromium, 1280, 720)
	login, _ := url.Parse(c.srv.TeacherLoginURL())
	teacher.open(login.RequestURI())
	teacher.wait("the teacher's page", `location.pathname === '/' && document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)
	if got := teacher.text("join-url"); got != join {
		t.Fatalf("the teacher's page shows the join URL %q, want %q", got, join)
	}
	teacher.wait("the QR code of the join URL", `byTestID('join-qr').complete && byTestID('join-qr').naturalWidth > 0`, 10*time.Second)
	// The student's page has no partition open yet, and counts already:
	// this is when the teacher projects the QR code.
	teacher.wait("one student watching before any partition is open", `byTestID('students-count').textContent === '1' && byTestID('students-bar').textContent.replace(/\s+/g, ' ').trim() === '1 watching'`, 15*time.Second)
	if got := student.text("stream-status"); !strings.Contains(got, "no log open") {
		t.Errorf("the student's empty page says %q: it reads as a broken connection", got)
	}
	if got := student.text("lesson-run"); !strings.Contains(got, "The teacher's lesson shows here") {
		t.Errorf("the student's lessons panel says %q", got)
	}

	orders, totals, totalsTx := c.name("orders"), c.name("order-totals"), c.name("order-totals-tx")
	teacher.fill("seed-orders", orders)
	teacher.fill("seed-totals", totals)
	teacher.fill("seed-totals-tx", totalsTx)
	teacher.click("seed-setup")
	teacher.wait("the seed to be set up", `byTestID('seed-status').dataset.done === 'true'`, 30*time.Second)
	onTotals := fmt.Sprintf(`location.pathname === '/topics/%s/partitions/0' && byTestID('stream-status').dataset.state === 'open' && summary('hw')`, totalsTx)
	teacher.wait("the teacher's page on "+totalsTx, onTotals, 15*time.Second)
	student.wait("the student's page to follow the teacher to "+totalsTx, onTotals, 15*time.Second)
	teacher.wait("one student watching", `byTestID('students-count').textContent === '1'`, 15*time.Second)

	teacher.fill("processor-mode", "tx")
	teacher.fill("processor-input", orders)
	teacher.fill("processor-output", totalsTx)
	teacher.fill("processor-group", c.name("totals-tx"))
	teacher.fill("processor-txid", c.name("order-totals-app"))
	teacher.fill("processor-crash-at", "O-2")
	if got := teacher.text("processor-crash"); got != "Crash before commit at O-2" {
		t.Fatalf("processor crash button reads %q", got)
	}
	teacher.click("processor-crash")
	teacher.wait("the crashed run", `document.querySelector('[data-testid="processor-run-log"][data-crashed="true"]')`, 60*time.Second)

	student.wait("O-2's write open with the LSO held at 2 on the student's page",
		`cell(2)?.dataset.txn === 'open' && summary('lso')?.dataset.value === '2' && summary('hw')?.dataset.value === '3'`, 10*time.Second)
	equal(t, "the student's log after the crash", shape(student.cells()), []string{"0:committed", "1:COMMIT", "2:open"})
	student.wait("the crash narrated on the student's page", `[...document.querySelectorAll('[data-testid="event"]')].some((e) => e.dataset.kind === 'crash')`, 10*time.Second)
	var boot string
	student.eval(`window.offsetlabBoot || ''`, &boot)
	if boot != "first load" {
		t.Fatal("the student's page reloaded")
	}
	student.screenshot("classroom-student-1280x720", 1280, 720, false)
	teacher.screenshot("classroom-teacher-1280x720", 1280, 720, false)

	// A guided lesson: the teacher drives it, the student's panel follows
	// it, read-only, in the student's own language.
	student.wait("the student's lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true' && byTestID('lesson-select').disabled`, 10*time.Second)
	teacher.fill("lesson-select", "2")
	teacher.click("lesson-start")
	teacher.wait("the lesson to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
	teacher.click("lesson-next")
	teacher.wait("the lesson's first step", `byTestID('lesson-run').dataset.cursor === '1'`, 60*time.Second)
	student.wait("the lesson's first step on the student's page", `byTestID('lesson-run').dataset.cursor === '1' && byTestID('lesson-current')?.dataset.index === '0'`, 15*time.Second)
	student.click("ui-lang-ko")
	student.wait("the student's panel in Korean", `byTestID('lessons-panel').lang === 'ko'`, 5*time.Second)
	if lang := teacher.attr("lessons-panel", "lang"); lang != "en" {
		t.Fatalf("the student's language switch changed the teacher's panel to %q", lang)
	}

	// No control on the student's page changes anything.
	var present []string
	student.eval(`['seed-setup', 'processor-crash', 'processor-run', 'txn-begin', 'txn-send', 'txn-commit', 'txn-abort', 'txn-crash',
		'produce-submit', 'create-submit', 'lesson-start', 'lesson-next', 'lesson-finish', 'lesson-reset'].filter((id) => byTestID(id))`, &present)
	if len(present) > 0 {
		t.Fatalf("the student's page has state-changing controls %v", present)
	}
	var clicked []string
	student.eval(`(() => {
		window.offsetlabWrites = [];
		window.offsetlabInflight = 0;
		const fetch0 = window.fetch;
		window.fetch = (input, init) => {
			const method = (init && init.method) || (input instanceof Request ? input.method : 'GET');
			if (!['GET', 'HEAD'].includes(method.toUpperCase())) window.offsetlabWrites.push(method + ' ' + String(input.url || input));
			window.offsetlabInflight++;
			return fetch0(input, init).finally(() => { window.offsetlabInflight--; });
		};
		const clicked = [];
		for (const el of document.querySelectorAll('button, input[type=submit], input[type=checkbox]')) {
			if (el.disabled || el.closest('[hidden]')) continue;
			clicked.push(el.dataset.testid || el.id || el.textContent.trim());
			el.click();
		}
		for (const form of document.querySelectorAll('form')) form.requestSubmit();
		return clicked;
	})()`, &clicked)
	t.Logf("enabled controls on the student's page, all clicked: %v", clicked)
	// The clicks' handlers have run (three turns of the event loop after
	// them) and every request they started has been answered.
	student.eval(`(() => { window.offsetlabTicks = 0; const tick = () => { if (++window.offsetlabTicks < 3) setTimeout(tick, 0); }; setTimeout(tick, 0); })()`, nil)
	student.wait("the clicks' requests to end", `window.offsetlabTicks >= 3 && window.offsetlabInflight === 0`, 10*time.Second)
	var writes []string
	student.eval(`window.offsetlabWrites`, &writes)
	if len(writes) > 0 {
		t.Fatalf("clicking the student's controls sent state-changing requests: %v", writes)
	}
	// The teacher reads it (a student reads only the stage, now the lesson's).
	status, body, _ := c.teacher().get("/api/topics/" + totalsTx + "/partitions/0/log?from=0&limit=100")
	var log partitionLog
	if status != http.StatusOK || json.Unmarshal([]byte(body), &log) != nil {
		t.Fatalf("the teacher reads %s: %d %s", totalsTx, status, body)
	}
	equal(t, "the log after the student clicked everything", log.shape(), []string{"0:committed", "1:COMMIT", "2:open"})
}
