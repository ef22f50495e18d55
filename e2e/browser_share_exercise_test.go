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
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/exercises"
)

// TestBrowserShareExercise: the teacher's board offers the share
// exercise; once it is started, a student's page (Chromium, 1280×720, on
// the embedded broker's classroom port) shows it with Java's starter
// chosen and Go's beside it, no Python or kcat tab (confluent-kafka's
// share consumer is a preview; the steps say so), and the checklist
// turns ✓ live when the student's share consumer accepts the jobs and
// rejects the poison one, the poison's evidence saying how. The
// teacher's board shows it ✓ and another student, who accepted the
// poison job, ✗ with the hint and the evidence.
func TestBrowserShareExercise(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHandsOn(t, embedded)
	teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
	site := &app{t: t, url: h.url}
	name := "sam" + h.suffix

	p := openPage(t, site, chromium, 1280, 720)
	p.open("/exercise")
	p.wait("the join form", `!byTestID('student-join').hidden`, 10*time.Second)
	p.fill("join-name", name)
	p.click("join-submit")
	p.wait("the student's identity", fmt.Sprintf(`!byTestID('student-grid').hidden && byTestID('identity-username').textContent === %q`, name), 10*time.Second)

	if status, body := teacher.post("/api/exercises/share/start", ""); status != http.StatusOK {
		t.Fatalf("start share: %d %s", status, body)
	}
	p.wait("the share exercise, Java's starter chosen", `document.getElementById('app').dataset.exercise === 'share' &&
		!byTestID('exercise-body').hidden && byTestID('starter-tab-python').hidden && byTestID('starter-tab-kcat').hidden &&
		!byTestID('starter-tab-go').hidden && byTestID('starter-tab-java').getAttribute('aria-selected') === 'true' &&
		!byTestID('starter-java').hidden && byTestID('starter-python').hidden`, 15*time.Second)
	group := "student-" + name + "-share"
	for client, parts := range map[string][]string{
		"java": {"KafkaShareConsumer", `props.put("group.id", "` + group + `")`, "AcknowledgeType.REJECT"},
		"go":   {`kgo.ShareGroup("` + group + `")`, "kgo.AckReject"},
	} {
		var code string
		p.eval(fmt.Sprintf(`byTestID('starter-code-%s').textContent`, client), &code)
		for _, part := range parts {
			if !strings.Contains(code, part) {
				t.Errorf("the %s starter lacks %q:\n%s", client, part, code)
			}
		}
	}
	if got := p.text("exercise-steps"); !strings.Contains(got, "Python is left out") {
		t.Errorf("the steps do not say why there is no Python starter: %q", got)
	}
	p.wait("the checklist's two rows", `document.querySelectorAll('[data-testid="check"]').length === 2`, 10*time.Second)
	// The jobs are written once the grader says no share group read them.
	(&joined{Name: name, browser: teacher}).awaitVerdictsOf(t, "jobsAccepted=noShareGroup poisonRejected=noShareGroup")

	// The student's own share consumer, with the password their page shows;
	// another student accepts the poison job too.
	student := &joined{Name: name, Kafka: exercises.Identity{Bootstrap: p.text("identity-bootstrap"), Username: name, Password: p.text("identity-password")}}
	ex, _ := exercises.Find("share")
	student.shareConsume(t, ex, everyJob, func(r *kgo.Record) kgo.AckStatus {
		if string(r.Value) == exercises.PoisonValue {
			return kgo.AckReject
		}
		return kgo.AckAccept
	})
	accepts := h.join("accepts")
	accepts.awaitVerdicts(t, "share", "jobsAccepted=noShareGroup poisonRejected=noShareGroup")
	accepts.shareConsume(t, ex, everyJob, func(*kgo.Record) kgo.AckStatus { return kgo.AckAccept })
	p.wait("the checklist all ✓, live", `document.getElementById('app').dataset.done === 'true' &&
		[...document.querySelectorAll('[data-testid="check"]')].every((c) => c.dataset.state === 'ok')`, 45*time.Second)
	if got := p.text("checklist"); !strings.Contains(got, "acknowledged: offsets 0–5, 7–9") ||
		!strings.Contains(got, "the poison job at offset 6: archived (rejected by a consumer), delivered 1 time") {
		t.Errorf("the share checks' evidence reads %q", got)
	}
	p.assertTextSize()

	// The teacher's board: ✓ for one, ✗ for the other, and why.
	board := openPage(t, site, chromium, 1280, 720)
	login, _ := url.Parse(h.srv.TeacherLoginURL())
	board.open(login.RequestURI())
	board.wait("the teacher's page", `document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)
	board.open("/exercises")
	cell := func(student, check string) string {
		return fmt.Sprintf(`[data-testid="board-cell"][data-student=%q][data-check=%q]`, student, check)
	}
	board.waitBoard("the share exercise's cells", fmt.Sprintf(`document.querySelector(%q)?.dataset.state === 'ok' && document.querySelector(%q)?.dataset.state === 'ok' &&
		document.querySelector(%q)?.dataset.state === 'fail'`, cell(name, "poisonRejected"), cell(accepts.Name, "jobsAccepted"), cell(accepts.Name, "poisonRejected")), 45*time.Second)
	board.do("select the accepting student's poison cell", chromedp.Click(chromedp.CSS(cell(accepts.Name, "poisonRejected"))))
	board.wait("the evidence of the accepted poison job", `byTestID('evidence-hint')?.dataset.code === 'exercise.hint.poisonAccepted' &&
		[...document.querySelectorAll('[data-testid="evidence-line"]')].some((l) => l.textContent.includes('Poison job at offset 6: acknowledged, delivered 1 time'))`, 10*time.Second)
}

// awaitVerdictsOf polls the share exercise's results through j.browser
// (the teacher's client, who sees everyone) until j's verdicts read want,
// for at most 45 s.
func (j *joined) awaitVerdictsOf(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		status, body, _ := j.browser.get("/api/exercises/share/results")
		var all apiResults
		if err := json.Unmarshal([]byte(body), &all); status != http.StatusOK || err != nil {
			t.Fatalf("results: %d %v", status, err)
		}
		for _, s := range all.Students {
			if s.Name == j.Name {
				one := all
				one.Students = append(one.Students[:0:0], s)
				got = one.verdicts()
			}
		}
		if got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("share of %s: %s, want %s", j.Name, got, want)
}
