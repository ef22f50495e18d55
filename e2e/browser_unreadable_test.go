package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/offsetlab/offsetlab/internal/cluster"
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

// TestBrowserStudentMayNotReadTopic: the refusal on the embedded broker. A
// dashboard connected to a classroom's Kafka port as a student (SCRAM,
// ACLs on the student's own topics and the shared ones only) opens the
// teacher's private topic: the server refuses the websocket with 403,
// and the page must say which right the student lacks and stop
// reconnecting, not show a blank log and "reconnecting…" for ever.
func TestBrowserStudentMayNotReadTopic(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHandsOn(t, embedded)
	topic := "payments-" + h.suffix
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := h.kafka.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	if err := h.kafka.Client().ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("payment 1")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	ada := h.join("ada")
	student, err := cluster.ConnectExternal(cluster.ExternalConfig{
		Brokers:  strings.Split(ada.Kafka.Bootstrap, ","),
		Auth:     []kgo.Opt{kgo.SASL(scram.Auth{User: ada.Kafka.Username, Pass: ada.Kafka.Password}.AsSha256Mechanism())},
		Security: cluster.Security{Protocol: "SASL_PLAINTEXT", Mechanism: "SCRAM-SHA-256", User: ada.Kafka.Username},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(student.Close)
	a := startAppOn(t, embedded, student)

	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	want := "may not READ on topic " + topic
	p.wait("the page to say the student may not read "+topic,
		`(() => { const b = byTestID('problem'); return !b.hidden && b.dataset.unreadable === 'refused' && b.textContent.includes(`+strconv.Quote(want)+`)
			&& byTestID('stream-status').dataset.state === 'refused' })()`, 20*time.Second)
	var text string
	p.eval(`byTestID('problem').textContent`, &text)
	t.Logf("the page says: %s", text)
}
