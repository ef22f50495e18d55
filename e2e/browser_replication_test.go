package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBrowserReplicationLesson runs lesson 4 in headless Chromium on three
// real brokers that the app runs itself, with the lessons panel's Next
// button only: the lesson's "Stop the two followers" step stops two real
// brokers, the Brokers panel shows them stopped, acks=all then shows
// NOT_ENOUGH_REPLICAS for every send, and after "Start the followers
// again" the ISR the panel polls is back to 1,2,3.
func TestBrowserReplicationLesson(t *testing.T) {
	chromium := chromiumPath(t)
	a, _ := startManagedTriple(t)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/")
	p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	p.wait("the Brokers panel to list three brokers up with Stop buttons",
		`byTestID('brokers-list').querySelectorAll('[data-testid^="broker-stop-"]').length === 3`, 15*time.Second)
	if got := p.text("broker-1"); !strings.Contains(got, "▲ up") {
		t.Errorf("broker 1 reads %q", got)
	}
	p.fill("lesson-select", "4")
	p.click("lesson-start")
	p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && byTestID('lesson-upnext')`, 10*time.Second)
	runID := p.attr("lesson-run", "data-run")
	var steps int
	p.eval(`document.querySelectorAll('[data-testid="lesson-steps"] li').length`, &steps)
	if steps != 9 {
		t.Fatalf("lesson 4 lists %d steps, want 9", steps)
	}
	want := map[int][]string{
		5: {"2/2", "1/1", "yes/yes"},
		6: {"0/0", "5/5", "yes/yes"},
		7: {"5/5"},
		8: {"1/1", "3/3", "yes/yes"},
	}
	isrOne := regexp.MustCompile(`Isr: \d$`)
	topic, partition := "", int32(0)
	for i := range steps {
		p.wait(fmt.Sprintf("Next to be enabled before step %d", i+1), `!byTestID('lesson-next').disabled`, 10*time.Second)
		p.click("lesson-next")
		p.wait(fmt.Sprintf("step %d to be done", i+1),
			fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-current')?.dataset.index === '%d'`, i+1, i), 90*time.Second)
		var shown []string
		for _, c := range p.currentChecks() {
			if c.OK != "true" || c.Mark != "✓" {
				t.Errorf("step %d shows %q (ok=%s, mark %q)", i+1, c.Text, c.OK, c.Mark)
			}
			shown = append(shown, c.Expected+"/"+c.Observed)
		}
		if w, ok := want[i]; ok {
			equal(t, fmt.Sprintf("step %d checks on the page", i+1), shown, w)
		}
		// As every other lesson's steps (TestBrowserStageEveryStep), at
		// 1280×720: the step's words beside the log it concerns.
		var st walkRun
		a.do("GET", "/api/lessons/runs/"+runID, nil, http.StatusOK, &st)
		if s := st.Steps[i]; s.Topic != "" {
			topic, partition = s.Topic, s.Partition
		}
		if p.assertStepOnStage(fmt.Sprintf("lesson 4 step %d", i+1), "en", st.Steps[i], topic, partition) {
			t.Errorf("lesson 4 step %d: too long for the stage at 1280×720", i+1)
		}
		switch i {
		case 1:
			p.wait("the log view on the lesson's topic", `location.pathname.startsWith('/topics/reliable-orders-')`, 15*time.Second)
		case 5:
			p.wait("the Brokers panel to show two brokers stopped",
				`byTestID('brokers-list').querySelectorAll('[data-testid^="broker-start-"]').length === 2`, 15*time.Second)
			p.wait("the placement to show the leader alone in the ISR", `/Isr: \d$/.test(byTestID('placement').textContent)`, 10*time.Second)
			if got := p.text("placement"); !isrOne.MatchString(got) {
				t.Errorf("placement after the stop reads %q", got)
			}
			if cmd := p.text("lesson-command"); !strings.Contains(cmd, "docker compose -f compose.triple.yaml stop kafka-") {
				t.Errorf("stop step command %q", cmd)
			}
		case 6:
			out := p.text("lesson-output")
			if n := strings.Count(out, "NOT_ENOUGH_REPLICAS"); n != 5 {
				t.Errorf("acks=all output shows NOT_ENOUGH_REPLICAS %d times, want 5:\n%s", n, out)
			}
			p.screenshot("lessons-lesson4-not-enough-replicas", 1280, 720, false)
		}
	}
	p.wait("the lesson to finish", `byTestID('lesson-run').dataset.status === 'finished'`, 10*time.Second)
	p.wait("the ISR back to 1,2,3", `/Isr: 1,2,3$/.test(byTestID('placement').textContent)`, 15*time.Second)
	p.wait("the Brokers panel to show three brokers up",
		`byTestID('brokers-list').querySelectorAll('[data-testid^="broker-stop-"]').length === 3`, 15*time.Second)
}
