package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestBrowserShareAct: from the Act tab at 1280×720 a person starts a share
// consumer on the partition's topic, polls (it holds offsets 0-2), accepts
// 0, rejects 1, crashes it and stops it; the share lane follows each step
// and names the consumer holding offset 2, on both brokers.
func TestBrowserShareAct(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test")
	}
	chromium := chromiumPath(t)
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel() // the two brokers side by side; the test runs alone
			a := startApp(t, kind)
			topic, group := a.name("share-act-ui"), a.name("ui")
			a.createTopic(topic)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			produceShareJobs(t, ctx, a.bootstrap(), topic, 3)

			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the log", `cell(2)?.dataset.kind === 'data'`, 15*time.Second)
			p.fill("share-group", group)
			p.click("share-start")
			p.wait("the consumer listed", `!!document.querySelector('[data-testid="share-worker"][data-worker="w1"]')`, 10*time.Second)
			// Poll until it holds the three records (the first poll may
			// come before the group gave it the partition).
			p.wait("its records", `(() => {
				if (byTestID('share-accept-2')) return true;
				if (byTestID('share-workers').dataset.busy !== 'true') byTestID('share-poll')?.click();
				return false;
			})()`, 45*time.Second)
			p.click("share-accept-0")
			p.wait("offset 0 accepted", `!byTestID('share-accept-0') && byTestID('share-workers').dataset.busy === 'false'`, 10*time.Second)
			p.click("share-reject-1")
			sl := func(o int) string {
				return fmt.Sprintf(`document.querySelector('[data-testid="share-lane"][data-offset="%d"]')`, o)
			}
			// The reject answered (the consumer's list drawn again), and the lane shows it.
			p.wait("the lane: 0 done, 1 archived or done, 2 held by w1", fmt.Sprintf(
				`byTestID('share-workers').dataset.busy === 'false' && !byTestID('share-reject-1') &&
				['done', 'acknowledged'].includes(%s?.dataset.state) && ['done', 'archived'].includes(%s?.dataset.state) && %s?.dataset.state === 'acquired' && %s.textContent.startsWith('w1 #1')`,
				sl(0), sl(1), sl(2), sl(2)), 20*time.Second)
			p.click("share-crash")
			p.wait("the consumer hangs", `document.querySelector('[data-worker="w1"]')?.textContent.includes('hangs') && !byTestID('share-poll')`, 10*time.Second)
			p.click("share-stop")
			p.wait("no consumer left", `byTestID('share-workers').children.length === 0`, 10*time.Second)
			p.wait("offset 2 no longer held", fmt.Sprintf(`%s?.dataset.state !== 'acquired'`, sl(2)), 20*time.Second)
		})
	}
}
