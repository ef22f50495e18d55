package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// koreanText is where the lessons' Korean is read: the Lesson tab and the
// story, without what stays in English on purpose (commands, tool output,
// the run's names).
const koreanText = `[data-testid="lessons-panel"], [data-testid="timeline"]`

// brokenWords lists the Korean words (eojeol) under sel that the page
// breaks across two lines between two letters ("프로/그램", "EndTxn/이"),
// each with a slash where it breaks.
func (p *page) brokenWords(sel string) []string {
	p.t.Helper()
	var out []string
	p.eval(fmt.Sprintf(`(() => {
		const out = [];
		for (const root of document.querySelectorAll(%q)) {
			if (root.offsetParent === null) continue;
			const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
			for (let n = walker.nextNode(); n; n = walker.nextNode()) {
				if (n.parentElement.closest('[hidden], [lang="en"]') || n.parentElement.offsetParent === null) continue;
				const re = /\S+/g;
				for (let m = re.exec(n.textContent); m; m = re.exec(n.textContent)) {
					if (!/[\uac00-\ud7a3]/.test(m[0])) continue;
					// Where the line breaks inside the word: next to a Hangul
					// syllable, between two letters or digits, is a broken word;
					// after a hyphen, a bracket or a colon a line may end, and an
					// identifier longer than the line may break inside itself.
					const chars = [...m[0]];
					let at = m.index, lastTop = null;
					for (let i = 0; i < chars.length; i++) {
						const r = document.createRange();
						r.setStart(n, at);
						r.setEnd(n, at + chars[i].length);
						at += chars[i].length;
						const rect = [...r.getClientRects()].find((x) => x.width > 0);
						if (!rect) continue;
						const top = Math.round(rect.top);
						const letter = (c) => /[\p{L}\p{N}]/u.test(c);
						const hangul = (c) => /[\uac00-\ud7a3]/.test(c);
						if (lastTop !== null && top > lastTop + 2 && letter(chars[i - 1]) && letter(chars[i]) && (hangul(chars[i - 1]) || hangul(chars[i]))) {
							out.push(chars.slice(0, i).join('') + '/' + chars.slice(i).join(''));
						}
						lastTop = top;
					}
				}
			}
		}
		return out;
	})()`, sel), &out)
	return out
}

// koreanProse is the visible Korean text under sel, without what stays in
// English on purpose (commands, tool output, names, values in code).
func (p *page) koreanProse(sel string) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`[...document.querySelectorAll(%q)].map((root) => {
		const c = root.cloneNode(true);
		for (const e of c.querySelectorAll('[lang="en"], pre, code, [hidden], .sr-only')) e.remove();
		return c.textContent;
	}).join('\n')`, sel), &s)
	return s
}

// latinTerm is a Kafka term left in Latin letters inside Korean prose
// (glossary.json gives its Korean word), or a particle written both ways.
var latinTerm = regexp.MustCompile(`(^|[^\w.\-/=_])(offset|Offset|Producer|Broker|Partition|Leader|Follower|epoch|commit)($|[^\w.\-/=_(])|이\(가\)|을\(를\)|은\(는\)|레슨`)

// englishValue is a check's value word left in English.
var englishValue = regexp.MustCompile(`\b(yes|no|none|committed|aborted|compacted|beforeLogStart|unknown|assigned)\b`)

// TestBrowserKoreanLessons runs lessons 2, 6b and 6g in Korean at
// 1280×720 with the Next button and reads them as a Korean class does:
// after every step no Korean word is broken across two lines (keep-all),
// no Kafka term is left in Latin letters, no check value in English
// ("0:중단됨 1:ABORT 2:커밋됨 3:COMMIT", 예), and the particle after a
// name is the one its Korean reading takes ("'P-1 pending'이",
// "{order-totals-app}을"). Screenshots in Korean at 1280×720 and on a phone.
func TestBrowserKoreanLessons(t *testing.T) {
	t.Parallel()
	for _, lesson := range []string{"2", "6b", "6g"} {
		t.Run(lesson, func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, embedded)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/")
			p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
			p.click("ui-lang-ko")
			p.wait("the page in Korean", `document.documentElement.lang === 'ko' && byTestID('lessons-panel').lang === 'ko'`, 5*time.Second)
			var wordBreak string
			p.eval(`getComputedStyle(byTestID('lessons-panel')).wordBreak`, &wordBreak)
			if wordBreak != "keep-all" {
				t.Errorf("the Korean lessons panel has word-break %q, want keep-all", wordBreak)
			}
			p.fill("lesson-select", lesson)
			p.click("lesson-start")
			p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
			runID := p.attr("lesson-run", "data-run")
			var values []string
			narrations := ""
			for i := 0; ; i++ {
				p.click("lesson-next")
				p.wait(fmt.Sprintf("step %d", i+1), fmt.Sprintf(`byTestID('lesson-run').dataset.cursor === '%d' && byTestID('lesson-run').dataset.busy === undefined && byTestID('lesson-current')?.dataset.index === '%d'`, i+1, i), 90*time.Second)
				if broken := p.brokenWords(koreanText); len(broken) > 0 {
					t.Errorf("step %d: Korean words broken across lines: %q", i+1, broken)
				}
				prose := p.koreanProse(`[data-testid="lesson-current"], [data-testid="timeline"]`)
				for _, m := range latinTerm.FindAllStringIndex(prose, -1) {
					t.Errorf("step %d: a Latin term or both particles in Korean prose: %q", i+1, prose[max(0, m[0]-60):min(len(prose), m[1]+60)])
				}
				narrations += p.text("lesson-narration") + "\n"
				for _, c := range p.currentChecks() {
					values = append(values, c.Expected, c.Observed)
					if m := englishValue.FindString(c.Expected + " " + c.Observed); m != "" {
						t.Errorf("step %d: check %q shows %q in English", i+1, c.Text, m)
					}
				}
				var status string
				p.eval(`byTestID('lesson-run').dataset.status`, &status)
				if status == "failed" {
					t.Fatalf("lesson %s failed at step %d", lesson, i+1)
				}
				if status == "finished" {
					break
				}
			}
			var st struct {
				Names map[string]string `json:"names"`
			}
			a.do("GET", "/api/lessons/runs/"+runID, nil, http.StatusOK, &st)
			story := p.koreanProse(`[data-testid="timeline"]`)
			switch lesson {
			case "2":
				app := st.Names["order-totals-app"]
				want := app + catalog.Particle(app, "을", "를") + " 다시 등록하면"
				if !strings.Contains(narrations, want) {
					t.Errorf("lesson 2's narrations lack %q (the restart, with the particle for %s)", want, app)
				}
			case "6b":
				if want := "0:중단됨 1:ABORT 2:커밋됨 3:COMMIT"; !containsString(values, want) {
					t.Errorf("lesson 6b's log check reads %q, want %q among them", values, want)
				}
			case "6g":
				if !strings.Contains(story, "'P-1 pending'이 열린 트랜잭션") {
					t.Errorf("the story does not say 'P-1 pending'이 열린 트랜잭션: %s", story)
				}
				if strings.Contains(story, "'P-1 pending'가") {
					t.Errorf("the story says 'P-1 pending'가")
				}
			}
			p.screenshot("korean-lesson"+lesson+"-1280x720", 1280, 720, false)
			if broken := p.brokenWords(koreanText); len(broken) > 0 {
				t.Errorf("at 1280×720 after the lesson: Korean words broken across lines: %q", broken)
			}
			p.screenshot("korean-lesson"+lesson+"-phone", 390, 844, true)
			if broken := p.brokenWords(koreanText); len(broken) > 0 {
				t.Errorf("on a phone after the lesson: Korean words broken across lines: %q", broken)
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestBrowserStaleLessonMessages: what the panels said about an earlier
// action goes when the next one starts. Lesson 3's finished run is not
// shown under lesson 4, whose reason (on the embedded broker) says what
// --local-kafka triple needs, as docs/real-kafka.md does; "Started over: …" goes
// on the next Start; a refused download takes the last "Saved … lines"
// away before it shows its error.
func TestBrowserStaleLessonMessages(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	done := a.runLesson("3", true)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/")
	p.wait("lesson 3's finished run", fmt.Sprintf(`byTestID('lessons-panel')?.dataset.ready === 'true' && byTestID('lesson-run').dataset.run === %q && byTestID('lesson-run').dataset.status === 'finished'`, done.ID), 15*time.Second)

	p.fill("lesson-select", "4")
	p.wait("lesson 4 without lesson 3's run", `byTestID('lesson-run').dataset.run === undefined && !byTestID('lesson-current') && !byTestID('lesson-end') && !byTestID('lesson-unavailable').hidden`, 5*time.Second)
	why := p.text("lesson-unavailable")
	for _, want := range []string{"--local-kafka triple", "Java 17 or later", "Maven Central"} {
		if !strings.Contains(why, want) {
			t.Errorf("lesson 4's reason lacks %q: %s", want, why)
		}
	}
	if strings.Contains(why, "needs Maven") {
		t.Errorf("lesson 4's reason says Maven is needed: %s", why)
	}
	var startDisabled, nextDisabled bool
	p.eval(`byTestID('lesson-start').disabled`, &startDisabled)
	p.eval(`byTestID('lesson-next').disabled && byTestID('lesson-finish').disabled && byTestID('lesson-reset').disabled`, &nextDisabled)
	if !startDisabled || !nextDisabled {
		t.Errorf("under lesson 4 on the embedded broker: Start disabled %v, the run's buttons disabled %v; want both", startDisabled, nextDisabled)
	}
	p.screenshot("stale-lesson4-1280x720", 1280, 720, false)

	p.fill("lesson-select", "3")
	p.wait("lesson 3's run shown again", fmt.Sprintf(`byTestID('lesson-run').dataset.run === %q && byTestID('lesson-end')`, done.ID), 5*time.Second)
	p.click("lesson-reset")
	p.wait("Started over", `byTestID('lesson-status').textContent.startsWith('Started over')`, 30*time.Second)
	p.click("lesson-title") // the run folds the list into its title: open it, as the teacher does
	p.click("lesson-start")
	p.wait("a new run of lesson 3", fmt.Sprintf(`byTestID('lesson-run').dataset.status === 'ready' && byTestID('lesson-run').dataset.run !== %q && byTestID('lesson-run').dataset.busy === undefined`, done.ID), 15*time.Second)
	if got := p.text("lesson-status"); got != "" {
		t.Errorf("after the next Start the status still reads %q", got)
	}

	// A partition longer than one download file holds (20,000 offsets).
	topic := a.name("long")
	a.createTopic(topic)
	values := make([]string, 1000)
	for i := range values {
		values[i] = fmt.Sprintf("v-%d", i)
	}
	for range 21 {
		a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": values}, http.StatusOK, nil)
	}
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the stream", `byTestID('stream-status').dataset.state === 'open' && summary('hw')?.dataset.value === '21000'`, 15*time.Second)
	p.allowDownloads(t.TempDir())
	p.openExplore()
	p.fill("download-from", "0")
	p.fill("download-to", "9")
	p.click("download-range")
	p.wait("Saved 10 lines", `byTestID('download-status').textContent.startsWith('Saved 10 lines')`, 20*time.Second)
	p.fill("download-to", "20999")
	p.click("download-range")
	p.wait("the refusal", `!byTestID('download-error').hidden && byTestID('download-error').textContent.includes('at most')`, 10*time.Second)
	if got := p.text("download-status"); got != "" {
		t.Errorf("above the refused download's error the status still reads %q", got)
	}
}
