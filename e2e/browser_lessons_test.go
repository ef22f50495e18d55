package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// pageCheck is one check as the lessons panel shows it.
type pageCheck struct {
	OK       string `json:"ok"`
	Text     string `json:"text"`
	Expected string `json:"expected"`
	Observed string `json:"observed"`
	Mark     string `json:"mark"`
}

// currentChecks reads the checks of the step the panel shows as done, in
// the step's order (some may stand under the log, before the card in the
// document). A check that holds as expected shows its value once: that
// value is both the expected and the observed one.
func (p *page) currentChecks() []pageCheck {
	p.t.Helper()
	var out []pageCheck
	p.eval(`[...document.querySelectorAll('[data-testid="lesson-current"] [data-testid="lesson-check"]')].sort((a, b) => a.dataset.n - b.dataset.n).map(li => ({
		ok: li.dataset.ok, text: li.textContent,
		expected: li.querySelector('[data-testid="check-expected"], [data-expected="same"]')?.textContent ?? '',
		observed: li.querySelector('[data-testid="check-observed"]')?.textContent ?? '',
		mark: li.querySelector('.mark')?.textContent ?? '',
	}))`, &out)
	return out
}

// TestBrowserGuidedLesson2 runs lesson 2 in headless Chromium with the
// lessons panel's "Next" button only, and reads each step's checks from the
// page: the ✓ mark, the expected and observed values, the seeds' numbers.
// The lesson ends on its output log. Then it switches the page to Korean,
// reloads, and finds the language and the run (kept by the server)
// remembered. Screenshots go to test-output/screenshots.
func TestBrowserGuidedLesson2(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			p := openPage(t, a, chromium, 1280, 900)
			p.open("/")
			p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
			if lang := p.attr("lessons-panel", "lang"); lang != "en" {
				t.Fatalf("lessons panel lang = %q, want en", lang)
			}
			p.fill("lesson-select", "2")
			p.click("lesson-start")
			p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && byTestID('lesson-upnext')`, 10*time.Second)
			var steps int
			p.eval(`document.querySelectorAll('[data-testid="lesson-steps"] li').length`, &steps)
			if steps != 9 {
				t.Fatalf("lesson 2 lists %d steps, want 9", steps)
			}

			want := map[int][]string{ // step index -> "expected/observed" the page must show
				3: {"Ongoing/Ongoing", "yes/yes", "yes/yes"},
				4: {"1/1", "3/3", "2/2"},
				5: {"O-2, O-3/O-2, O-3", "yes/yes"},
				6: {"CompleteCommit/CompleteCommit", "yes/yes"},
				7: {"0: O-1 total=30000 · 4: O-2 total=42000 · 6: O-3 total=27000/0: O-1 total=30000 · 4: O-2 total=42000 · 6: O-3 total=27000", "1/1"},
				8: {"3/3", "3/3", "0/0"},
			}
			for i := range steps {
				p.wait(fmt.Sprintf("Next to be enabled before step %d", i+1), `!byTestID('lesson-next').disabled`, 10*time.Second)
				p.click("lesson-next")
				p.wait(fmt.Sprintf("step %d to be done", i+1),
					fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-current')?.dataset.index === '%d'`, i+1, i), 90*time.Second)
				checks := p.currentChecks()
				var shown []string
				for _, c := range checks {
					if c.OK != "true" || c.Mark != "✓" {
						t.Errorf("%s: step %d shows %q (ok=%s, mark %q)", kind, i+1, c.Text, c.OK, c.Mark)
					}
					shown = append(shown, c.Expected+"/"+c.Observed)
				}
				if w, ok := want[i]; ok {
					equal(t, fmt.Sprintf("step %d checks on the page", i+1), shown, w)
				}
				if i == 7 {
					if text := checks[1].Text; !strings.Contains(text, "Copies of O-2 total=42000") || !strings.Contains(text, "Copies of O-2 total=42000: 1 as expected") {
						t.Errorf("step 8 check reads %q", text)
					}
					if cmd := p.text("lesson-command"); !strings.Contains(cmd, "--isolation-level read_committed") || !strings.Contains(cmd, "--topic order-totals-tx-") {
						t.Errorf("step 8 command %q", cmd)
					}
				}
			}
			p.wait("the lesson to finish", `byTestID('lesson-run').dataset.status === 'finished' && byTestID('lesson-end')`, 10*time.Second)
			if got := p.text("lesson-progress"); !strings.Contains(got, "19 of 19 checks hold") {
				t.Errorf("progress reads %q", got)
			}
			// The lesson ends on the log that carries its point: the output
			// with its markers (the last step read the orders' group).
			p.wait("the log to show the output order-totals-tx",
				`location.pathname.startsWith('/topics/order-totals-tx-') && byTestID('stream-status').dataset.state === 'open' && cell(7)?.dataset.marker === 'COMMIT'`, 15*time.Second)
			p.screenshot("lessons-lesson2-"+string(kind)+"-en", 1280, 900, false)

			// Korean, with the page's one language switch: every label and the
			// narration switch; the choice and the run survive a reload.
			p.click("ui-lang-ko")
			if lang := p.attr("lessons-panel", "lang"); lang != "ko" {
				t.Fatalf("after 한국어: panel lang = %q", lang)
			}
			if got := p.text("lesson-narration"); !hasHangul(got) {
				t.Errorf("Korean narration %q has no Hangul", got)
			}
			var visibleEnglish []string
			p.eval(`[...byTestID('lessons-panel').querySelectorAll('[data-l="en"]')].filter(e => e.offsetParent !== null).map(e => e.textContent)`, &visibleEnglish)
			if len(visibleEnglish) > 0 {
				t.Errorf("English labels still visible in Korean: %q", visibleEnglish)
			}
			var outputLines []string
			p.eval(`[...document.querySelectorAll('[data-testid=lesson-output-line]')].map(e => e.textContent)`, &outputLines)
			for _, line := range outputLines {
				if !hasHangul(line) {
					t.Errorf("a step's output line reads %q in Korean: want the catalogue's Korean", line)
				}
			}
			if got := p.text("lesson-progress"); !strings.Contains(got, "확인 19개 중 19개 통과") {
				t.Errorf("Korean progress reads %q", got)
			}
			p.open("/")
			p.wait("the lessons panel after a reload", `byTestID('lessons-panel')?.dataset.ready === 'true' && byTestID('lesson-run').dataset.status === 'finished'`, 10*time.Second)
			if lang := p.attr("lessons-panel", "lang"); lang != "ko" {
				t.Fatalf("after a reload: panel lang = %q, want ko (remembered)", lang)
			}
			if got := p.text("lesson-select"); !strings.Contains(got, "실습 2") {
				t.Errorf("picker after a reload reads %q", got)
			}
			p.eval(`byTestID('lessons-panel').scrollIntoView()`, nil)
			p.screenshot("lessons-lesson2-"+string(kind)+"-ko", 1280, 900, false)
		})
	}
}

// attr reads an attribute of the element with data-testid.
func (p *page) attr(testID, name string) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`byTestID(%q)?.getAttribute(%q) ?? ''`, testID, name), &s)
	return s
}

func hasHangul(s string) bool {
	for _, r := range s {
		if r >= 0xAC00 && r <= 0xD7A3 {
			return true
		}
	}
	return false
}

// TestBrowserLessonTamperedAndCleanup: the panel shows what the runner
// decided. A lesson 3 run with an extra record written before its offsets
// step shows that check with ✗, the observed offsets beside the expected
// ones, the step marked ✗ in the step bar and fewer checks passed than
// checked. Then "Clean up lab topics" lists the topics of the earlier run
// — not a team's look-alike orders-202612 — and deletes them only once
// the teacher confirms that list.
func TestBrowserLessonTamperedAndCleanup(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	const lookalike = "orders-202612"
	a.createTopic(lookalike)
	earlier := a.runLesson("6d", true)
	st := a.tamperedLesson3()

	p := openPage(t, a, chromium, 1280, 900)
	p.open("/")
	p.wait("the tampered run on the panel", fmt.Sprintf(`byTestID('lessons-panel')?.dataset.ready === 'true' && byTestID('lesson-run').dataset.run === %q && byTestID('lesson-current')?.dataset.index === '4'`, st.ID), 15*time.Second)
	checks := p.currentChecks()
	if len(checks) != 2 || checks[0].OK != "false" || checks[0].Mark != "✗" || checks[0].Expected != "0, 2, 4, 6" || checks[0].Observed != "0, 2, 4, 6, 8" ||
		checks[1].OK != "true" || checks[1].Mark != "✓" {
		t.Fatalf("the tampered step's checks on the page: %+v; want ✗ expected 0, 2, 4, 6 — observed 0, 2, 4, 6, 8, then ✓", checks)
	}
	var bar struct{ Mark, Passed, Checked string }
	p.eval(`({Mark: document.querySelectorAll('[data-testid="lesson-steps"] li')[4].querySelector('.mark').textContent,
		Passed: byTestID('lesson-run').dataset.passed, Checked: byTestID('lesson-run').dataset.checked})`, &bar)
	if bar.Mark != "✗" || bar.Passed == bar.Checked {
		t.Fatalf("step bar and progress: %+v; want ✗ on step 5 and passed < checked", bar)
	}
	if got, want := p.text("lesson-progress"), fmt.Sprintf("%d of %d checks hold", st.Passed, st.Check); !strings.Contains(got, want) {
		t.Errorf("progress reads %q, want %q", got, want)
	}
	p.eval(`byTestID('lesson-current').scrollIntoView()`, nil)
	p.screenshot("lessons-tampered-lesson3", 1280, 900, false)

	p.click("lesson-cleanup")
	p.wait("the list of topics to clean up", `!byTestID('lesson-cleanup-confirm').hidden`, 10*time.Second)
	var listed []string
	p.eval(`[...byTestID('lesson-cleanup-list').querySelectorAll('li')].map(li => li.textContent)`, &listed)
	equal(t, "topics listed for cleanup", listed, earlier.Topics)
	for _, topic := range earlier.Topics {
		a.do("GET", "/api/topics/"+topic, nil, http.StatusOK, nil) // listing deletes nothing
	}
	p.eval(`byTestID('lesson-cleanup-confirm').scrollIntoView()`, nil)
	p.screenshot("lessons-cleanup-confirm", 1280, 900, false)
	p.click("lesson-cleanup-go")
	p.wait("the cleanup to be done", `byTestID('lesson-status').textContent.startsWith('Deleted ')`, 30*time.Second)
	for _, topic := range earlier.Topics {
		if !a.topicGone(topic) {
			t.Errorf("%s is still there after the confirmed cleanup", topic)
		}
	}
	for _, topic := range append([]string{lookalike}, st.Topics...) {
		a.do("GET", "/api/topics/"+topic, nil, http.StatusOK, nil)
	}
}
