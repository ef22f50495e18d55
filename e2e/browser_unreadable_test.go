package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBrowserDeletedTopicShowsProblem: a topic deleted by another client
// while the page watches its partition. The stream stays open and sends a
// problem message; the page must say what and why (in English, then in
// Korean after the switch) and mark the cells it still shows as stale
// rather than go on showing them as the live log.
func TestBrowserDeletedTopicShowsProblem(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	topic := a.name("deleted-elsewhere")
	a.createTopic(topic)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	other, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.ProduceSync(ctx, kgo.StringRecord("order 1"), kgo.StringRecord("order 2")).FirstErr(); err != nil {
		t.Fatal(err)
	}

	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the two records live", `cell(1)?.dataset.kind === 'data' && byTestID('stream-status')?.dataset.state === 'open' && byTestID('problem').hidden`, 15*time.Second)

	resp, err := kadm.NewClient(other).DeleteTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Error(); err != nil {
		t.Fatal(err)
	}
	p.wait("the problem said, the cells stale",
		`(() => { const b = byTestID('problem'); return !b.hidden && b.dataset.unreadable === 'problem' && b.textContent.includes(`+strconv.Quote(topic)+`)
			&& b.textContent.includes('as it was when it could last be read')
			&& document.getElementById('log-frame').dataset.stale === 'true'
			&& byTestID('stream-status').dataset.state === 'stale' })()`, 20*time.Second)

	p.eval(`document.querySelector('.lang-switch button[data-lang="ko"]').click()`, nil)
	p.wait("the problem said in Korean", `byTestID('problem').textContent.includes('마지막으로 읽을 수 있었을 때')`, 5*time.Second)
	p.checkConsole()
}
