package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserStuckConsumer: on both brokers, with refund-worker-7's
// transaction open at 300 and 50 records behind it, the group page says
// "record lag 0 now, 50 waiting behind the open transaction at 300
// (refund-worker-7)" with a link to the transaction; the partition page's
// banner names refund-worker-7, its age and 60 s timeout and the 50
// records, and its Abort ends the transaction: the banner turns to
// LSO = HW, the transactions page, open all along and never reloaded,
// stops saying Ongoing, and the group's page, opened just before the
// abort and never reloaded, counts the 50 records as record lag.
func TestBrowserStuckConsumer(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			s := setUpStuckConsumer(t, a)
			row := fmt.Sprintf(`document.querySelector('[data-testid="txn-row"][data-id="%s"]')`, s.txid)

			// The transactions page stays open through the abort.
			txns := openPage(t, a, chromium, 1280, 720)
			// The topic chosen: on a broker shared with other tests more than
			// 16 transactions may be ongoing, past what the page describes
			// without one.
			txns.open("/transactions?topic=" + s.topic)
			txns.wait("refund-worker-7 listed Ongoing", row+`?.dataset.state === 'Ongoing'`, 10*time.Second)
			txns.eval(`window.__notReloaded = true`, nil)
			txns.wait("its abort offered through the coordinator", fmt.Sprintf(`document.querySelector('[data-testid="abort-txn"][data-txid="%s"]') !== null && byTestID('terminate-command')?.textContent.includes('forceTerminateTransaction --transactionalId %s')`, s.txid, s.txid), 10*time.Second)

			p := openPage(t, a, chromium, 1280, 720)
			p.open("/groups/" + s.group)
			var why string
			p.eval(`byTestID('lag-why-text')?.textContent ?? ''`, &why)
			want := fmt.Sprintf("record lag 0 now, 50 waiting behind the open transaction at 300 (%s)", s.txid)
			if !strings.Contains(strings.ToLower(why), want) || !strings.Contains(why, "of its 60 s timeout") {
				t.Errorf("the group page says %q, want it to contain %q and the 60 s timeout", why, want)
			}
			var link string
			p.eval(`byTestID('held-transaction')?.getAttribute('href') ?? ''`, &link)
			if link != "/transactions?topic="+s.topic {
				t.Errorf("the group page links the transaction to %q, want /transactions?topic=%s", link, s.topic)
			}
			stuckShot(p, "stuck-group-"+string(kind))
			p.click("ui-lang-ko")
			p.eval(`byTestID('lag-why-text')?.textContent ?? ''`, &why)
			if !strings.Contains(why, "지금 레코드 랙 0, 오프셋 300의 열린 트랜잭션인 "+s.txid+" 뒤에서 50개가 기다려요") {
				t.Errorf("the Korean group page says %q", why)
			}
			stuckShot(p, "stuck-group-ko-"+string(kind))
			p.click("ui-lang-en")

			p.open("/topics/" + s.topic + "/partitions/0")
			p.wait("the banner to name the transaction", fmt.Sprintf(`byTestID('lso-why').dataset.state === 'held' && byTestID('lso-why').dataset.holder === '%s'`, s.txid), 15*time.Second)
			banner := p.text("lso-why-text")
			for _, part := range []string{"An open transaction " + s.txid + " (producer ", ", open since ", " of its 60 s timeout), holds the LSO at 300: read_committed consumers wait; 50 records wait behind it."} {
				if !strings.Contains(banner, part) {
					t.Errorf("the banner says %q, want %q in it", banner, part)
				}
			}
			// The start time beside the age is the transaction's, in local time.
			if m := regexp.MustCompile(`open since (\d\d:\d\d:\d\d) \(`).FindStringSubmatch(banner); m == nil {
				t.Errorf("the banner says %q, want the time the transaction opened", banner)
			} else if at, err := time.ParseInLocation("15:04:05", m[1], time.Local); err != nil {
				t.Error(err)
			} else {
				y, mo, d := s.began.Date()
				at = time.Date(y, mo, d, at.Hour(), at.Minute(), at.Second(), 0, time.Local)
				if at.Before(s.began.Add(-2*time.Second)) || at.After(s.began.Add(15*time.Second)) {
					t.Errorf("the banner says the transaction opened at %s; it began at %s", m[1], s.began.Format("15:04:05.000"))
				}
			}
			p.wait("the abort button", `byTestID('lso-abort') !== null`, 5*time.Second)
			if got := p.text("lso-abort"); got != "Abort "+s.txid+"…" {
				t.Errorf("the banner's button says %q", got)
			}
			p.screenshot("stuck-banner-"+string(kind), 1280, 720, false)
			p.click("ui-lang-ko")
			p.wait("the Korean banner", fmt.Sprintf(`byTestID('lso-why-text').textContent.startsWith('열린 트랜잭션 %s(프로듀서 ') && byTestID('lso-why-text').textContent.includes('그 뒤에서 레코드 50개가 기다려요') && /\(\d\d:\d\d:\d\d부터, 열린 지 /.test(byTestID('lso-why-text').textContent)`, s.txid), 5*time.Second)
			p.screenshot("stuck-banner-ko-"+string(kind), 1280, 720, false)
			p.click("ui-lang-en")
			p.screenshot("stuck-banner-phone-"+string(kind), 390, 844, true)
			p.screenshot("stuck-banner-"+string(kind), 1280, 720, false)

			// The group's page opens in a second tab of the transactions
			// page's browser just before the abort, so that its first look
			// at the API most likely already sees the transaction ended: it
			// must compare the answer with what it shows, not with its
			// previous answer.
			group := txns.newTab(1280, 720)
			group.open("/groups/" + s.group)
			group.wait("the group page to show the held LSO", `byTestID('held-links')?.dataset.txid === '`+s.txid+`' && byTestID('record-lag')?.textContent === '0'`, 10*time.Second)
			group.eval(`window.__notReloaded = true`, nil)

			p.click("lso-abort")
			p.wait("the confirmation", `byTestID('lso-confirm') !== null && document.activeElement === byTestID('lso-abort-confirm')`, 5*time.Second)
			p.click("lso-abort-confirm")
			p.wait("the banner to go away", `byTestID('lso-why').dataset.state === 'stable' && summary('lso')?.dataset.value === summary('hw')?.dataset.value && byTestID('lso-abort') === null`, 30*time.Second)
			p.wait("the banner to say the abort", fmt.Sprintf(`byTestID('lso-abort-done')?.textContent.startsWith('Aborted %s')`, s.txid), 10*time.Second)
			txns.wait("the transactions page to stop saying Ongoing (no reload)", row+` !== null && `+row+`.dataset.state !== 'Ongoing' && !`+row+`.textContent.includes('Ongoing') && window.__notReloaded === true`, 45*time.Second)
			group.wait("the group page counts the 50 records as record lag after the abort without reload", `window.__notReloaded === true && byTestID('offset-row') && !byTestID('held-links') && byTestID('record-lag').textContent === '50' && byTestID('offset-lag').textContent === '52'`, 30*time.Second)
			var state string
			txns.eval(row+`.dataset.state`, &state)
			t.Logf("%s: after the abort the transactions page lists %s as %s", kind, s.txid, state)
		})
	}
}

// newTab opens another tab of p's browser, sized width x height.
func (p *page) newTab(width, height int64) *page {
	p.t.Helper()
	ctx, cancel := chromedp.NewContext(p.ctx)
	p.t.Cleanup(cancel)
	q := &page{t: p.t, a: p.a, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		p.t.Fatalf("open a tab: %v", err)
	}
	return q
}

// stuckShot saves the viewport of a page without a log (the group page) as
// test-output/screenshots/name.png.
func stuckShot(p *page, name string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join(repoRoot(p.t), "test-output", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
}
