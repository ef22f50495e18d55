package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The explorer's pages in a browser, on the embedded broker and
// on real Kafka: the topics page, a 3-partition topic side by side taking
// keyed records live, a group's two lags, a transaction left open by
// lesson 6c with its producers and the abort. Each page is photographed at
// 1280×720, 1920×1080, 150 % zoom and phone size.

// stripLive is how soon a keyed write must show in its strip: the page
// polls every 2 s, then maps the partition (on real Kafka under the whole
// suite's load, once over 5 s).
const stripLive = 8 * time.Second

// TestBrowserTopicsPages: the topics page lists a 3-partition topic with
// its partitions; its page draws them side by side and follows keyed
// writes live — one key's records land in one strip; a strip opens the
// partition's log; the masthead's navigation is reachable by Tab; a
// topic is deleted only once its name is typed.
func TestBrowserTopicsPages(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			topic := a.name("keys")
			a.do("POST", "/api/topics", map[string]any{"name": topic, "partitions": 3}, http.StatusCreated, nil)

			p := openPage(t, a, chromium, 1280, 720)
			// The test's own topics: a shared cluster may hold more than
			// one page of others' before them.
			p.open("/topics?q=" + a.suffix)
			card := fmt.Sprintf(`document.querySelector('[data-testid="topic-card"][data-topic=%q]')`, topic)
			p.wait("the topic with its three partitions", card+` && `+card+`.querySelectorAll('[data-testid="partition-row"]').length === 3`, 10*time.Second)
			var links []string
			p.eval(`Array.from(`+card+`.querySelectorAll('[data-testid="partition-link"]'), (l) => l.getAttribute('href'))`, &links)
			equal(t, "partition links", links, []string{"/topics/" + topic + "/partitions/0", "/topics/" + topic + "/partitions/1", "/topics/" + topic + "/partitions/2"})
			checkTableText(t, p)
			shootExplorer(t, p, "topics-"+string(kind))

			// The navigation by keyboard: Tab to Groups, Enter.
			p.tabTo("nav-groups")
			p.press(kb.Enter)
			p.waitNav("the groups page", `location.pathname === '/groups' && document.querySelector('#app')?.dataset.ready === 'true'`, 10*time.Second)

			p.open("/topics/" + topic)
			strip := func(n int32) string {
				return fmt.Sprintf(`document.querySelector('[data-testid="strip"][data-partition="%d"]')`, n)
			}
			p.wait("three mapped, empty strips", `[0, 1, 2].every(n => document.querySelector('[data-testid="strip"][data-partition="' + n + '"]')?.dataset.records === '0')`, 10*time.Second)
			p.eval(`window.__explorerLoaded = performance.timeOrigin`, nil)

			// One key's records land in one strip, live.
			user1 := a.produceKeyed(topic, "user-1", "user-1 login", "user-1 add-to-cart", "user-1 pay")
			written := time.Now()
			p.wait("user-1's records in its strip", fmt.Sprintf(`%s.dataset.records === '3' && %s.dataset.hw === '3' && byTestID('strips-live').dataset.state === 'open'`, strip(user1), strip(user1)), stripLive)
			t.Logf("user-1's three records showed in partition %d's strip %v after the write", user1, time.Since(written).Round(time.Millisecond))
			var total int
			p.eval(`[...document.querySelectorAll('[data-testid="strip"]')].reduce((n, s) => n + Number(s.dataset.records), 0)`, &total)
			if total != 3 {
				t.Fatalf("strips hold %d records, want 3, all in partition %d", total, user1)
			}
			// Another key, chosen to land elsewhere (Kafka's murmur2 of the
			// key, as the producer's partitioner computes it), and a third
			// one written in a committed transaction: each strip its own.
			others := keysElsewhere(topic, 3, user1)
			user2 := a.produceKeyed(topic, others[0], others[0]+" login", others[0]+" pay")
			p.wait("the second key's records in their strip", fmt.Sprintf(`%s.dataset.records === '2' && %s.dataset.records === '3'`, strip(user2), strip(user1)), stripLive)
			var tx struct {
				Results []struct {
					Partition int32 `json:"partition"`
				} `json:"results"`
				Committed bool `json:"committed"`
			}
			a.do("POST", "/api/produce", map[string]any{"topic": topic, "key": others[1], "values": []string{others[1] + " pay", others[1] + " ship"},
				"acks": "all", "transactionalId": a.name("keys-tx")}, http.StatusOK, &tx)
			if len(tx.Results) != 2 || !tx.Committed {
				t.Fatalf("transactional produce: %+v", tx)
			}
			user3 := tx.Results[0].Partition
			p.wait("the committed transaction and its COMMIT marker in their strip",
				fmt.Sprintf(`%s.dataset.committed === '2' && %s.dataset.commitMarkers === '1' && %s.dataset.hw === '3'`, strip(user3), strip(user3), strip(user3)), stripLive)
			if got := p.text("strip-counts"); got == "" {
				t.Error("the strips' counts are not written out")
			}
			var reloaded bool
			p.eval(`window.__explorerLoaded !== performance.timeOrigin`, &reloaded)
			if reloaded {
				t.Fatal("the topic page reloaded; the strips must follow live")
			}
			shootExplorer(t, p, "topic-"+string(kind))

			// A strip opens its partition's log.
			p.do("open a strip", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="strip"][data-partition="%d"] [data-testid="strip-link"]`, user1))))
			p.waitNav("the partition's log page", fmt.Sprintf(`location.pathname === '/topics/%s/partitions/%d'`, topic, user1), 10*time.Second)

			// Delete asks for the name; a wrong one keeps the topic.
			doomed := a.name("doomed")
			a.createTopic(doomed)
			p.open("/topics?q=" + a.suffix)
			p.do("open the delete dialog", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="delete-topic"][data-topic=%q]`, doomed))))
			p.wait("the delete dialog", `byTestID('delete-dialog').open && byTestID('delete-text').textContent.includes('`+doomed+`')`, 5*time.Second)
			p.fill("delete-confirm", "not-"+doomed)
			p.click("delete-submit")
			p.wait("the refusal", `!byTestID('delete-error').hidden && byTestID('delete-error').textContent.includes('`+doomed+`')`, 5*time.Second)
			a.do("GET", "/api/topics/"+doomed+"?brief=true", nil, http.StatusOK, nil)
			p.fill("delete-confirm", doomed)
			p.click("delete-submit")
			p.waitNav("the page to say the topic is gone", `document.querySelector('#app')?.dataset.ready === 'true' && byTestID('page-status').textContent.includes('`+doomed+`') &&
				!document.querySelector('[data-testid="topic-card"][data-topic="`+doomed+`"]')`, 15*time.Second)
			a.do("GET", "/api/topics/"+doomed+"?brief=true", nil, http.StatusNotFound, nil)
		})
	}
}

// TestBrowserGroupPage: after lesson 2 the group page shows both lags (0
// and 0), and a group committed at 7, before the trailing COMMIT marker
// of lesson 2's output, shows offset lag 1 and record lag 0 with the
// sentence saying why — in English and in Korean.
func TestBrowserGroupPage(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			l2 := a.runLesson("2", true)
			if l2.Status != "finished" {
				t.Fatalf("lesson 2: %s %s", l2.Status, l2.Error)
			}
			group, out := l2.Names["totals-tx"], l2.Names["order-totals-tx"]
			trailing := a.name("trailing")
			commitOffset(t, a, trailing, out, 7)

			p := openPage(t, a, chromium, 1280, 720)
			p.open("/groups")
			p.wait("the groups", fmt.Sprintf(`document.querySelector('[data-testid="group-row"][data-group=%q]') && document.querySelector('[data-testid="group-row"][data-group=%q]')`, group, trailing), 10*time.Second)
			shootExplorer(t, p, "groups-"+string(kind))
			p.do("open the group", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="group-row"][data-group=%q] [data-testid="group-link"]`, group))))
			p.waitNav("the group page", `location.pathname.startsWith('/groups/') && document.querySelector('#app')?.dataset.ready === 'true'`, 10*time.Second)
			lags := p.lags()
			if len(lags) != 1 || lags[0] != [2]string{"0", "0"} {
				t.Fatalf("group %s: lags %v, want offset lag 0 and record lag 0", group, lags)
			}

			p.open("/groups/" + trailing)
			lags = p.lags()
			if len(lags) != 1 || lags[0] != [2]string{"1", "0"} {
				t.Fatalf("group %s committed at 7: lags %v, want offset lag 1 and record lag 0", trailing, lags)
			}
			if why := p.text("lag-why"); !strings.Contains(why, "COMMIT marker") {
				t.Fatalf("why the lags differ: %q, want the trailing COMMIT marker named", why)
			}
			checkTableText(t, p)
			p.click("ui-lang-ko")
			p.wait("the Korean sentence", `byTestID('lag-why').textContent.includes('COMMIT 마커') && document.documentElement.lang === 'ko'`, 5*time.Second)
			shootExplorer(t, p, "group-ko-"+string(kind))
			p.click("ui-lang-en")
			shootExplorer(t, p, "group-"+string(kind))

			// A live member: its client id, host and assignment.
			live := a.name("live")
			consumer, err := kgo.NewClient(append(a.kafka.ClientOpts(), kgo.ConsumerGroup(live), kgo.ConsumeTopics(out),
				kgo.ClientID("explorer-browser"), kgo.FetchIsolationLevel(kgo.ReadCommitted()))...)
			if err != nil {
				t.Fatal(err)
			}
			defer consumer.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for got := 0; got < 3; {
				fs := consumer.PollFetches(ctx)
				if err := fs.Err0(); err != nil {
					t.Fatal(err)
				}
				got += fs.NumRecords()
			}
			if err := consumer.CommitUncommittedOffsets(ctx); err != nil {
				t.Fatal(err)
			}
			member := `document.querySelector('[data-testid="member-row"]')`
			for deadline := time.Now().Add(30 * time.Second); ; {
				p.open("/groups/" + live)
				if p.waitErr(member+`?.textContent.includes('explorer-browser') && byTestID('assignment').textContent.includes('`+out+`: 0')`, time.Second) == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("group %s never showed its member: %s", live, p.text("member-table"))
				}
			}
			shootExplorer(t, p, "group-live-"+string(kind))

			p.open("/groups/" + a.name("nobody"))
			if got := p.text("problem"); !strings.Contains(got, "is unknown") {
				t.Fatalf("an unknown group's page says %q", got)
			}
		})
	}
}

// TestBrowserTransactionsPage: lesson 6c's first three steps leave a
// transaction open; the transactions page lists it as Ongoing, shows its
// partition's producer with the transaction's start offset and the
// commands that abort it (through its coordinator, or at its start offset),
// and the teacher's Abort (after confirming) ends it through its
// coordinator: the partition's LSO moves to its high watermark and the
// page, refreshed in place, no longer lists it Ongoing.
func TestBrowserTransactionsPage(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			run := a.startLessonRun("6c")
			for range 3 { // create, begin, send
				a.do("POST", "/api/lessons/runs/"+run.ID+"/next", nil, http.StatusOK, &run)
			}
			payments, txnID := run.Names["payments"], run.Names["payments-app"]

			p := openPage(t, a, chromium, 1280, 720)
			p.open("/transactions?state=Ongoing")
			row := fmt.Sprintf(`document.querySelector('[data-testid="txn-row"][data-id=%q]')`, txnID)
			p.wait("the ongoing transaction", row+`?.dataset.state === 'Ongoing'`, 10*time.Second)
			producers := fmt.Sprintf(`document.querySelector('[data-testid="partition-producers"][data-topic=%q][data-partition="0"]')`, payments)
			p.wait("its partition's producer, open at 0", producers+`?.querySelector('[data-testid="producer-row"][data-start="0"]')`, 10*time.Second)
			var verdict, command string
			p.eval(producers+`.querySelector('[data-testid="producer-row"][data-start="0"] [data-testid="verdict"]').dataset.verdict`, &verdict)
			if verdict != "open" {
				t.Errorf("a transaction begun a moment ago: verdict %q, want open (not hanging)", verdict)
			}
			p.eval(producers+`.querySelector('[data-testid="abort-command"]').textContent`, &command)
			if want := "abort --topic " + payments + " --partition 0 --start-offset 0"; !strings.Contains(command, want) {
				t.Errorf("abort command %q lacks %q", command, want)
			}
			checkTableText(t, p)
			shootExplorer(t, p, "transactions-"+string(kind))

			p.do("ask to abort", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="abort-txn"][data-topic=%q][data-start="0"]`, payments))))
			p.wait("the confirmation, warning the producer may be alive", `byTestID('abort-dialog').open && !byTestID('abort-live').hidden && byTestID('abort-text').textContent.includes('`+payments+`')`, 5*time.Second)
			p.click("abort-submit")
			p.waitNav("the page to say it aborted", `document.querySelector('#app')?.dataset.ready === 'true' && byTestID('page-status').textContent.includes('ABORT marker')`, 20*time.Second)
			waitForLog(t, a, payments, func(l partitionLog) bool { return l.LastStableOffset == l.HighWatermark })
			// Aborted through its coordinator (the id is known), the
			// transaction is no longer Ongoing: the page, refreshed in
			// place, lists neither it nor an abort for its partition.
			p.wait("the transaction gone from the Ongoing list", `!`+row+` && !(`+producers+`?.querySelector('[data-testid="abort-item"]'))`, 10*time.Second)
			shootExplorer(t, p, "transactions-aborted-"+string(kind))
		})
	}
}

// waitNav is wait across a navigation the page itself starts (a link, a
// reload): a poll cut short by the old document going away is retried in
// the new one until timeout.
func (p *page) waitNav(what, cond string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := p.waitErr(cond, time.Until(deadline))
		if err == nil {
			return
		}
		if time.Now().After(deadline) || !(strings.Contains(err.Error(), "context") || strings.Contains(err.Error(), "navigated")) {
			p.t.Fatalf("waiting %v for %s: %v\npage state: %s", timeout, what, err, p.state())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// keysElsewhere returns two keys whose records the default partitioner
// (murmur2 of the key, as Kafka's Java client) puts on two partitions of
// topic other than not, and other than each other when partitions allow.
func keysElsewhere(topic string, partitions int, not int32) []string {
	p := kgo.StickyKeyPartitioner(nil).ForTopic(topic)
	var out []string
	used := map[int]bool{int(not): true}
	for i := 2; len(out) < 2 && i < 1000; i++ {
		k := fmt.Sprintf("user-%d", i)
		n := p.Partition(&kgo.Record{Key: []byte(k)}, partitions)
		if !used[n] {
			used[n] = true
			out = append(out, k)
		}
	}
	return out
}

// produceKeyed writes values with key, letting the producer's partitioner
// choose, and returns the partition they all went to.
func (a *app) produceKeyed(topic, key string, values ...string) int32 {
	a.t.Helper()
	var out struct {
		Results []struct {
			Partition int32   `json:"partition"`
			Offset    *int64  `json:"offset"`
			Error     *string `json:"error"`
		} `json:"results"`
	}
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "key": key, "values": values, "acks": "all"}, http.StatusOK, &out)
	if len(out.Results) != len(values) {
		a.t.Fatalf("produce %s: %+v", key, out)
	}
	for _, r := range out.Results {
		if r.Error != nil || r.Partition != out.Results[0].Partition {
			a.t.Fatalf("produce %s: %+v; want every record in one partition", key, out)
		}
	}
	return out.Results[0].Partition
}

// lags reads the group page's offset table: [offset lag, record lag] per row.
func (p *page) lags() [][2]string {
	p.t.Helper()
	p.wait("the offsets table", `document.querySelectorAll('[data-testid="offset-row"]').length > 0`, 10*time.Second)
	var out [][2]string
	p.eval(`[...document.querySelectorAll('[data-testid="offset-row"]')].map(r => [r.querySelector('[data-testid="offset-lag"]').textContent.trim(), r.querySelector('[data-testid="record-lag"]').textContent.trim()])`, &out)
	return out
}

// checkTableText fails when a table cell's text is under 16 px: the class
// reads them on a projector.
func checkTableText(t *testing.T, p *page) {
	t.Helper()
	var small []string
	p.eval(`[...document.querySelectorAll('.grid td, .grid th, .strip-counts, .strip-facts')]
		.filter(c => c.offsetParent && parseFloat(getComputedStyle(c).fontSize) < 16)
		.map(c => c.textContent.trim().slice(0, 30) + ' ' + getComputedStyle(c).fontSize)`, &small)
	if len(small) > 0 {
		t.Errorf("table text under 16 px: %q", small)
	}
}

// explorerSizes are the viewports every explorer page is photographed at:
// a projector, a large screen, 150 % zoom of the projector, a phone.
var explorerSizes = []struct {
	name          string
	width, height int64
	mobile        bool
}{
	{"1280x720", 1280, 720, false},
	{"1920x1080", 1920, 1080, false},
	{"zoom150", 853, 480, false},
	{"phone", 390, 844, true},
}

// shootExplorer photographs the page at every explorerSizes viewport into
// test-output/screenshots (the viewport and the whole page), failing when
// the page is wider than the viewport, and returns to 1280×720.
func shootExplorer(t *testing.T, p *page, name string) {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "test-output", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range explorerSizes {
		var emulate []chromedp.EmulateViewportOption
		if size.mobile {
			emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
		}
		p.do("resize to "+size.name, chromedp.EmulateViewport(size.width, size.height, emulate...))
		p.wait("the page at "+size.name, `document.querySelector('#app')?.dataset.ready === 'true' &&
			[...document.querySelectorAll('[data-testid="strip"]')].every(s => s.dataset.mapped === 'true')`, 10*time.Second)
		// A page wider than a phone makes the phone zoom out (innerWidth
		// grows); on a desktop it scrolls sideways (scrollWidth grows).
		fits := p.waitErr(fmt.Sprintf(`innerWidth === %d && document.documentElement.scrollWidth <= innerWidth`, size.width), 3*time.Second)
		p.do("settle", chromedp.Sleep(300*time.Millisecond)) // a frame after the resize and the strips' redraw; only for pixels
		if fits != nil {
			var overflow []string
			p.eval(fmt.Sprintf(`[...document.querySelectorAll('#app *')]
				.filter(e => e.getBoundingClientRect().right > %d + 1 && !e.closest('.sr-only, thead'))
				.slice(-5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`, size.width), &overflow)
			t.Errorf("%s at %s: the page is wider than the %d px viewport; the widest: %v", name, size.name, size.width, overflow)
		}
		ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
		for _, shot := range []struct {
			suffix string
			action chromedp.Action[[]byte]
		}{
			{"", chromedp.CaptureScreenshot()},
			{"-full", chromedp.FullScreenshot(100)},
		} {
			png, err := chromedp.Run(ctx, shot.action)
			if err != nil {
				cancel()
				t.Fatalf("screenshot %s at %s: %v", name, size.name, err)
			}
			path := filepath.Join(dir, "explorer-"+name+"-"+size.name+shot.suffix+".png")
			if err := os.WriteFile(path, png, 0o644); err != nil {
				cancel()
				t.Fatal(err)
			}
		}
		cancel()
	}
	p.do("back to 1280x720", chromedp.EmulateViewport(1280, 720))
}
