package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/web"
)

// The story beside the log: it follows new entries, tells a lesson's check
// after the events it checks, sums up a partition written before the page
// opened, speaks to a student as a student, and names producers and
// epochs as the cells it points at do — before and after a reload.

// storyEvents lists the story's entries in order: kind, offset ("" when
// none), text.
func (p *page) storyEvents() []storyEvent {
	p.t.Helper()
	var out []storyEvent
	p.eval(`[...document.querySelectorAll('[data-testid="timeline"] [data-testid="event"]')]
		.map((e) => ({kind: e.dataset.kind, offset: e.dataset.offset ?? '', text: e.querySelector('p')?.textContent ?? ''}))`, &out)
	return out
}

type storyEvent struct {
	Kind   string `json:"kind"`
	Offset string `json:"offset"`
	Text   string `json:"text"`
}

// cellPid is a cell's producer line, "P1·e2" (alias and epoch), or "".
func (p *page) cellPid(offset int64) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`cell(%d)?.querySelector('.pid')?.textContent ?? ''`, offset), &s)
	if m := regexp.MustCompile(`^(\S+)\x{202f}·\x{202f}e(\d+)`).FindStringSubmatch(s); m != nil {
		return m[1] + "·e" + m[2]
	}
	return ""
}

// named is "P1·e2" from a sentence's "producer P1, epoch 2", or "".
func named(sentence string) string {
	if m := regexp.MustCompile(`producer (\S+), epoch (\d+)`).FindStringSubmatch(sentence); m != nil {
		return m[1] + "·e" + m[2]
	}
	return ""
}

// externalWrites has n records written by a fresh idempotent client, in
// one batch.
func externalWrites(t *testing.T, a *app, topic string, n int, value string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = kgo.StringRecord(fmt.Sprintf("%s %d", value, i))
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("external produce: %v", err)
	}
}

// TestBrowserStoryNames: the transaction panel, the cells, the story and
// the processor log name a producer and its epoch alike, and the same
// after a reload — on a partition whose first producers wrote more than
// the live tail holds, so that numbering what the page happens to load
// would name them otherwise. A sentence about a marker tells the marker
// cell's epoch (transaction version 2 raises it at the commit); the fence
// tells the epoch the new producer got, which the records after the ABORT
// carry.
func TestBrowserStoryNames(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			topic := a.name("names")
			a.createTopic(topic)
			externalWrites(t, a, topic, 250, "first")  // 0..249: P1
			externalWrites(t, a, topic, 250, "second") // 250..499: P2
			p := openPage(t, a, chromium, 1280, 720)
			path := "/topics/" + topic + "/partitions/0"
			p.open(path)
			p.wait("the stream", `byTestID('stream-status').dataset.state === 'open' && summary('hw')?.dataset.value === '500'`, 15*time.Second)

			txid := a.name("classroom-tx")
			p.fill("txn-id", txid)
			p.fill("txn-topic", topic)
			p.fill("txn-value", "payment P-1")
			step := func(name string) string {
				t.Helper()
				p.click("txn-" + name)
				p.wait("the "+name+" step", fmt.Sprintf(`byTestID('txn-status').dataset.step === %q`, name), 30*time.Second)
				return p.text("txn-status")
			}
			begun := step("begin")
			sent := step("send")
			p.wait("the record at 500", `cell(500)?.dataset.kind === 'data' && cell(500).querySelector('.pid').textContent !== ''`, 10*time.Second)
			committed := step("commit")
			p.wait("the COMMIT marker at 501", `cell(501)?.dataset.marker === 'COMMIT'`, 10*time.Second)
			p.wait("the story to tell the COMMIT", `document.querySelector('[data-testid="timeline"] [data-testid="event"][data-kind="commit"][data-offset="501"]')`, 10*time.Second)
			record, marker := p.cellPid(500), p.cellPid(501)
			if !strings.HasPrefix(record, "P3·") || !strings.HasPrefix(marker, "P3·") {
				t.Fatalf("cells 500 and 501 name %q and %q: want the third producer to write here, P3", record, marker)
			}
			if got := named(begun); got != record {
				t.Errorf("Begun says %q (%s), the record it wrote %q", got, begun, record)
			}
			if got := named(sent); got != record {
				t.Errorf("Sent says %q (%s), its record %q", got, sent, record)
			}
			if got := named(committed); got != marker {
				t.Errorf("Committed says %q (%s), its COMMIT cell %q", got, committed, marker)
			}
			// A second transaction, aborted: the ABORT's epoch is raised too.
			step("begin")
			step("send")
			aborted := step("abort")
			p.wait("the ABORT marker at 503", `cell(503)?.dataset.marker === 'ABORT' && cell(502)?.dataset.txn === 'aborted'`, 10*time.Second)
			p.wait("the story to tell the ABORT", `document.querySelector('[data-testid="timeline"] [data-testid="event"][data-kind="abort"][data-offset="503"]')`, 10*time.Second)
			if got, want := named(aborted), p.cellPid(503); got != want {
				t.Errorf("Aborted says %q (%s), its ABORT cell %q", got, aborted, want)
			}
			storyNames := func(when string) {
				t.Helper()
				p.wait("the story to name the producer "+when, `[...document.querySelectorAll('[data-testid="timeline"] [data-testid="event"][data-offset="503"] p')].some((e) => /producer P\d/.test(e.textContent))`, 10*time.Second)
				for _, e := range p.storyEvents() {
					var want string
					switch e.Offset {
					case "500", "501", "502", "503":
						var o int64
						fmt.Sscan(e.Offset, &o)
						want = p.cellPid(o)
					default:
						continue
					}
					if got := named(e.Text); got != want {
						t.Errorf("%s: the story at offset %s says %q (%s), its cell %q", when, e.Offset, got, e.Text, want)
					}
				}
			}
			storyNames("before the reload")
			p.screenshot("story-names-"+string(kind)+"-1280x720", 1280, 720, false)

			p.open(path)
			p.wait("the cells after the reload", `cell(503)?.dataset.marker === 'ABORT' && cell(501)?.querySelector('.pid')?.textContent`, 15*time.Second)
			if got := p.cellPid(501); got != marker {
				t.Errorf("after the reload the COMMIT cell names %q, before %q", got, marker)
			}
			if got := p.cellPid(500); got != record {
				t.Errorf("after the reload the record names %q, before %q", got, record)
			}
			storyNames("after the reload")
		})
	}
}

// TestBrowserStoryFence: the processor crashes before commit, then runs
// again: its restart fences the crashed producer. The fence's sentence
// tells the epoch the restarted producer got — that of the records after
// the ABORT — and names the producer as the cells and the processor log
// do, before and after a reload.
func TestBrowserStoryFence(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/")
			orders, totals, totalsTx := a.name("orders"), a.name("order-totals"), a.name("order-totals-tx")
			p.fill("seed-orders", orders)
			p.fill("seed-totals", totals)
			p.fill("seed-totals-tx", totalsTx)
			p.click("seed-setup")
			p.wait("the seed to be set up", `byTestID('seed-status').dataset.done === 'true'`, 30*time.Second)
			p.fill("processor-mode", "tx")
			p.fill("processor-input", orders)
			p.fill("processor-output", totalsTx)
			p.fill("processor-group", a.name("totals-tx"))
			p.fill("processor-txid", a.name("order-totals-app"))
			p.fill("processor-crash-at", "O-2")
			p.click("processor-crash")
			p.wait("the crashed run", `document.querySelector('[data-testid="processor-run-log"][data-crashed="true"]')`, 60*time.Second)
			p.click("processor-run")
			p.wait("the second run", `document.querySelectorAll('[data-testid="processor-run-log"]').length === 2`, 60*time.Second)
			// Lesson 2's log: 0 O-1, 1 COMMIT, 2 O-2 aborted, 3 ABORT, 4 O-2, 5 COMMIT, 6 O-3, 7 COMMIT.
			p.wait("the log after the restart", `cell(7)?.dataset.marker === 'COMMIT' && cell(3)?.dataset.marker === 'ABORT' && cell(4).querySelector('.pid').textContent !== ''`, 15*time.Second)
			p.wait("the fence in the story", `document.querySelector('[data-testid="timeline"] [data-testid="event"][data-kind="fence"]')`, 10*time.Second)
			after := p.cellPid(4) // the restarted producer's first record
			check := func(when string) {
				t.Helper()
				var fence string
				for _, e := range p.storyEvents() {
					if e.Kind == "fence" {
						fence = e.Text
					}
				}
				if got := named(fence); got != after {
					t.Errorf("%s: the fence says %q (%s); the first record after the ABORT carries %q", when, got, fence, after)
				}
				alias := strings.SplitN(after, "·", 2)[0]
				var runs string
				p.eval(`[...document.querySelectorAll('[data-testid="processor-run-log"]')].map((e) => e.textContent).join(' | ')`, &runs)
				if !strings.Contains(runs, "producer "+alias+",") {
					t.Errorf("%s: the processor log does not name the producer %s as the cells do: %s", when, alias, runs)
				}
			}
			check("before the reload")
			if got := p.cellPid(3); got == after {
				t.Errorf("the ABORT carries the epoch of the records after it (%s): want one below", got)
			}
			p.screenshot("story-fence-"+string(kind)+"-1280x720", 1280, 720, false)
			p.open("/topics/" + totalsTx + "/partitions/0")
			p.wait("the log after the reload", `cell(4)?.querySelector('.pid')?.textContent && document.querySelector('[data-testid="timeline"] [data-testid="event"][data-kind="fence"]')`, 15*time.Second)
			if got := p.cellPid(4); got != after {
				t.Errorf("after the reload offset 4 names %q, before %q", got, after)
			}
			var fence string
			for _, e := range p.storyEvents() {
				if e.Kind == "fence" {
					fence = e.Text
				}
			}
			if got := named(fence); got != after {
				t.Errorf("after the reload the fence says %q (%s); offset 4 carries %q", got, fence, after)
			}
		})
	}
}

// TestBrowserStoryFollows: after a produce in the Act tab the story shows
// its new entry; scrolled up, the reader keeps their place and gets a
// "new entries ↓" button, which brings the newest back.
func TestBrowserStoryFollows(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	topic := a.name("follow")
	a.createTopic(topic)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the stream", `byTestID('stream-status').dataset.state === 'open' && summary('hw')?.dataset.value === '0'`, 15*time.Second)
	// Enough entries that the story scrolls: one write each.
	for i := range 12 {
		a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{fmt.Sprintf("event %d", i)}, "acks": "all"}, http.StatusOK, nil)
		p.wait(fmt.Sprintf("entry %d", i), fmt.Sprintf(`document.querySelector('[data-testid="timeline"] [data-testid="event"][data-offset="%d"]')`, i), 10*time.Second)
	}
	scrolls := `(() => { const l = byTestID('timeline'); return l.scrollHeight > l.clientHeight + 40; })()`
	var overflow bool
	p.eval(scrolls, &overflow)
	if !overflow {
		t.Fatal("the story does not scroll with 12 entries: the test shows nothing")
	}
	lastInView := func(offset int) string {
		return fmt.Sprintf(`(() => { const l = byTestID('timeline'); const e = l.querySelector('[data-testid="event"][data-offset="%d"]');
			if (!e) return false; const a = l.getBoundingClientRect(), b = e.getBoundingClientRect(); return b.top >= a.top - 1 && b.bottom <= a.bottom + 1; })()`, offset)
	}
	p.openTabOf("produce-submit")
	p.fill("produce-topic", topic)
	p.fill("produce-value", "from Act")
	p.click("produce-submit")
	p.wait("the produce's entry in view", `document.querySelector('[data-testid="timeline"] [data-testid="event"][data-offset="12"]') && `+lastInView(12), 10*time.Second)
	var shown bool
	p.eval(`!byTestID('story-more').hidden`, &shown)
	if shown {
		t.Error("the new-entries button shows while the story follows")
	}

	// The reader scrolls up: the next entry does not move the list.
	p.eval(`(() => { const l = byTestID('timeline'); l.scrollTop = 0; l.dispatchEvent(new Event('scroll')); return l.scrollTop; })()`, nil)
	p.wait("the scroll to register", `byTestID('timeline').scrollTop === 0`, 5*time.Second)
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"while scrolled up"}, "acks": "all"}, http.StatusOK, nil)
	p.wait("the new-entries button", `!byTestID('story-more').hidden && /1/.test(byTestID('story-more').textContent)`, 10*time.Second)
	var top float64
	p.eval(`byTestID('timeline').scrollTop`, &top)
	if top != 0 {
		t.Errorf("the story scrolled to %v while the reader read its top", top)
	}
	p.screenshot("story-more-1280x720", 1280, 720, false)
	p.click("story-more")
	p.wait("the newest entry in view again", lastInView(13)+` && byTestID('story-more').hidden`, 5*time.Second)
}

// TestBrowserStoryLessonOrder: in lesson 6g the broker aborts the timed-out
// transaction during step 6 (the ABORT at offset 3); step 7's check, told
// after it, comes after it in the story, whichever reached the page first
// (on both brokers).
func TestBrowserStoryLessonOrder(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			lessonOrder(t, kind)
		})
	}
}

func lessonOrder(t *testing.T, kind brokerKind) {
	chromium := chromiumPath(t)
	a := startApp(t, kind)
	p := openPage(t, a, chromium, 1280, 720)
	p.open("/")
	p.wait("the lessons panel", `byTestID('lessons-panel')?.dataset.ready === 'true'`, 10*time.Second)
	p.fill("lesson-select", "6g")
	p.click("lesson-start")
	p.wait("the run to start", `byTestID('lesson-run').dataset.status === 'ready' && !byTestID('lesson-next').disabled`, 10*time.Second)
	p.click("lesson-finish")
	p.wait("the lesson to finish", `byTestID('lesson-run').dataset.status === 'finished'`, 120*time.Second)
	p.wait("the ABORT at 3 in the story", `document.querySelector('[data-testid="timeline"] [data-testid="event"][data-kind="abort"][data-offset="3"]')`, 10*time.Second)
	events := p.storyEvents()
	abort, check := -1, -1
	for i, e := range events {
		switch {
		case e.Kind == "abort" && e.Offset == "3":
			abort = i
		case strings.Contains(e.Text, "step 7 checked"):
			check = i
		}
	}
	if abort < 0 || check < 0 {
		t.Fatalf("the story lacks the ABORT (%d) or step 7's check (%d): %+v", abort, check, events)
	}
	if check < abort {
		t.Errorf("step 7's check (entry %d) comes before the ABORT at offset 3 (entry %d) written during step 6", check, abort)
	}
}

// TestBrowserStorySummary: a partition written by another client before
// anyone opened it — 50,250 offsets: 50,000 records in 250 transactions,
// 125 committed and 125 aborted — is summed up from its map, with its
// first and last write, to the teacher and to a student alike, and stays
// summed up above the entries of what is written next; a student
// on an empty partition is told the story waits for the teacher, never to
// write.
func TestBrowserStorySummary(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	c := startClassroom(t, web.Access{Classroom: true})
	busy, empty := c.name("outside"), c.name("quiet")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tx, err := kgo.NewClient(kgo.SeedBrokers(c.app.kafka.Brokers()...), kgo.DefaultProduceTopic(busy),
		kgo.TransactionalID(c.name("outside-tx")), kgo.AllowAutoTopicCreation(), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for i := range 250 {
		if err := tx.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		recs := make([]*kgo.Record, 200)
		for j := range recs {
			recs[j] = kgo.StringRecord(fmt.Sprintf("order %d-%d", i, j))
		}
		if err := tx.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := tx.EndTransaction(ctx, kgo.TransactionEndTry(i%2 == 0)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.app.kafka.CreateTopic(ctx, cluster.TopicSpec{Name: empty, Partitions: 1}); err != nil {
		t.Fatal(err)
	}

	teacher := openPage(t, c.app, chromium, 1280, 720)
	teacher.open(strings.TrimPrefix(c.srv.TeacherLoginURL(), "http://"+c.host))
	teacher.wait("the teacher's page", `document.getElementById('app').dataset.role === 'teacher'`, 10*time.Second)
	student := openPage(t, c.app, chromium, 1280, 720)
	want := regexp.MustCompile(`^50,250 offsets written before you opened this page: 50,000 records, 125 COMMIT markers, 125 ABORT markers\. First write \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, last \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.$`)
	for _, who := range []*page{teacher, student} {
		who.open("/topics/" + busy + "/partitions/0")
		who.wait("the summary", `byTestID('story-empty')?.dataset.key === 'timeline.beforeSummary'`, 60*time.Second)
		if got := who.text("story-empty"); !want.MatchString(got) {
			t.Errorf("the story of a partition written before says %q", got)
		}
	}
	// A write after the page opened: the story tells it, and what the log
	// held before stays told above it.
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, kgo.StringRecord("order late")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := tx.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	for _, who := range []*page{teacher, student} {
		who.wait("the late write in the story", `document.querySelector('[data-testid="timeline"] [data-testid="event"][data-offset="50251"]') && byTestID('timeline').firstElementChild === byTestID('story-before')`, 15*time.Second)
		if got := who.text("story-before"); !want.MatchString(got) {
			t.Errorf("above the story of what came after, the partition written before is summed up as %q", got)
		}
	}
	student.screenshot("story-summary-student-1280x720", 1280, 720, false)
	student.click("ui-lang-ko")
	student.wait("the summary in Korean", `/^이 페이지를 열기 전에 오프셋 50,250개가 쓰였어요: 레코드 50,000개, COMMIT 마커 125개, ABORT 마커 125개\./.test(byTestID('story-before').textContent)`, 5*time.Second)
	student.screenshot("story-summary-student-ko-1280x720", 1280, 720, false)
	student.click("ui-lang-en")

	// An empty partition: the teacher is invited to write, a student waits.
	for _, who := range []*page{teacher, student} {
		who.open("/topics/" + empty + "/partitions/0")
		who.wait("the empty story", `summary('hw')?.dataset.value === '0' && byTestID('story-empty')`, 30*time.Second)
	}
	if got := teacher.text("story-empty"); !strings.Contains(got, "Write something") {
		t.Errorf("the teacher's empty story says %q", got)
	}
	student.wait("the student's empty story", `byTestID('story-empty').dataset.key === 'timeline.emptyStudent'`, 5*time.Second)
	if got := student.text("story-empty"); strings.Contains(got, "Write") || !strings.Contains(got, "Waiting for the teacher") {
		t.Errorf("a student, who cannot write, reads %q", got)
	}
	student.screenshot("story-empty-student-1280x720", 1280, 720, false)
}
