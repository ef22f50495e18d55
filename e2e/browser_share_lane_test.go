package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// shareLaneJS reads the share lane of a few offsets as a person sees it.
const shareLaneJS = `(() => {
	const sl = (o) => document.querySelector('[data-testid="share-lane"][data-offset="' + o + '"]');
	const lanes = [5, 6, 7, 8, 9].map(sl);
	const s8 = sl(8), r = s8.getBoundingClientRect(), u = lane('ru', 8).getBoundingClientRect();
	const vp = byTestID('log-viewport').getBoundingClientRect();
	return {
		states: lanes.map((l) => l.dataset.state),
		texts: lanes.map((l) => l.textContent),
		label: document.querySelector('.g-share span')?.textContent ?? '',
		below: r.top >= u.bottom - 0.5,
		title8: s8.title,
		inScreen: r.top >= vp.top && r.bottom <= vp.bottom && r.left >= vp.left && r.right <= vp.right && r.height > 8,
	};
})()`

// shareLaneView is what shareLaneJS reads.
type shareLaneView struct {
	States   []string `json:"states"`
	Texts    []string `json:"texts"`
	Label    string   `json:"label"`
	Below    bool     `json:"below"`
	Title8   string   `json:"title8"`
	InScreen bool     `json:"inScreen"`
}

// TestBrowserShareLane: under the log of a partition a share group reads,
// the partition page draws the group's share lane at 1280×720 — offset 5
// below the start offset (done), 6 likewise (rejected, then passed by the
// start offset), the released offset 7 available with the SPSO pointer,
// 8 and 9 held by worker W1 with their locks counting down, the SPEO
// pointer at 10 (on Kafka, until the locks expire: 5 acknowledged and 6
// archived above a start offset of 0, 7-9 in flight, the SPEO at 8) —
// under the RC and RU lanes without covering them, in English and in
// Korean.
func TestBrowserShareLane(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test")
	}
	chromium := chromiumPath(t)
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel() // the two brokers side by side; the test runs alone
			a := startApp(t, kind)
			topic, group := a.name("share-lane"), a.name("workers")
			a.createTopic(topic)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			worker := startShareWorker(t, ctx, a, topic, group)
			defer worker.Close()

			begin := time.Now()
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			// On Kafka the released 7 and the held 8 and 9 read alike, and
			// until the held records' locks expire (30 s) Kafka's state
			// topic has the start offset at 0 and 0-6 settled above it.
			// Below the start offset the lane still shows how 5 and 6 ended
			// (accepted, rejected): the broker's settled offsets.
			released, releasedText, held, heldText := "available", "○ #1", "acquired", "W1 #1 "
			below := [][]string{{"acknowledged"}, {"archived"}}
			if kind == realKafka {
				released, releasedText, held, heldText = "inFlight", "… #1", "inFlight", "… #"
				below = [][]string{{"done", "acknowledged"}, {"done", "archived"}}
			}
			sl := func(o int) string {
				return fmt.Sprintf(`document.querySelector('[data-testid="share-lane"][data-offset="%d"]')`, o)
			}
			// The SPSO (7, on Kafka 0 until the locks expire: above the
			// rows on screen) and the SPEO (10; on Kafka 8 until then).
			pointers := fmt.Sprintf(`%s?.dataset.spso === 'true' && %s?.dataset.speo === 'true'`, sl(7), sl(10))
			if kind == realKafka {
				pointers = `!!document.querySelector('[data-testid="share-lane"][data-speo="true"]')`
			}
			p.wait("the share lane", fmt.Sprintf(`%s?.dataset.state === '%s' && %s?.dataset.state === '%s' && %s`,
				sl(8), held, sl(7), released, pointers), 30*time.Second)
			t.Logf("%s: the lane drawn %v after the page was asked for", kind, time.Since(begin).Round(time.Millisecond))

			var v shareLaneView
			p.eval(shareLaneJS, &v)
			if !slices.Contains(below[0], v.States[0]) || !slices.Contains(below[1], v.States[1]) ||
				!slices.Equal(v.States[2:], []string{released, held, held}) {
				t.Errorf("states of 5-9: %v, want 5 %v, 6 %v, then %s, %s, %s", v.States, below[0], below[1], released, held, held)
			}
			if v.Texts[2] != releasedText || !strings.HasPrefix(v.Texts[3], heldText) || v.Label != "S1" {
				t.Errorf("labels: %q, gutter %q", v.Texts, v.Label)
			}
			if !v.Below || !v.InScreen {
				t.Errorf("offset 8's share lane: under the RU lane %v, on screen %v", v.Below, v.InScreen)
			}
			wantEN := "is acquired by W1"
			if kind == realKafka {
				wantEN = "is in flight"
			}
			if !strings.Contains(v.Title8, wantEN) {
				t.Errorf("offset 8 says %q, want %q", v.Title8, wantEN)
			}
			p.screenshot("share-lane-"+string(kind)+"-1280x720", 1280, 720, false)

			p.click("ui-lang-ko")
			p.wait("the page in Korean", `document.documentElement.lang === 'ko'`, 5*time.Second)
			wantKO := "W1이 가져갔어요"
			if kind == realKafka {
				wantKO = "처리 중이고"
			}
			p.wait("the lane in Korean", fmt.Sprintf(`%s?.title.includes(%q)`, sl(8), wantKO), 5*time.Second)
			p.eval(shareLaneJS, &v)
			if !v.Below || !v.InScreen || v.Label != "S1" {
				t.Errorf("in Korean, offset 8's share lane: under the RU lane %v, on screen %v, gutter %q", v.Below, v.InScreen, v.Label)
			}
			p.screenshot("share-lane-"+string(kind)+"-ko-1280x720", 1280, 720, false)
		})
	}
}
