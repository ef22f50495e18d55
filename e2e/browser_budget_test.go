package e2e

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	embeddedbroker "github.com/offsetlab/offsetlab/internal/embedded"
)

// TestBrowserBudgetLine: the masthead shows the embedded broker's data
// budget, used of max, and says so once it is full — on the partition page
// and on the Topics page, where the teacher deletes topics to free it.
func TestBrowserBudgetLine(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	kafka, err := embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: "127.0.0.1:0", Budget: embeddedbroker.DataBudget{MaxBytes: 2 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	a := startAppOn(t, embedded, kafka)
	topic := a.name("budget-line")
	a.createTopic(topic)

	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the budget line", `byTestID('cluster-budget') && !byTestID('cluster-budget').hidden && byTestID('cluster-budget').dataset.full === 'false'`, 15*time.Second)
	if got := p.text("cluster-budget"); !strings.Contains(got, "of 2.0 MiB") {
		t.Errorf("the budget line says %q, want … of 2.0 MiB", got)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka.Brokers()...), kgo.DefaultProduceTopic(topic), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		v := make([]byte, 64<<10)
		_, _ = rand.Read(v)
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
			if !errors.Is(err, kerr.PolicyViolation) {
				t.Fatalf("filling the budget: %v", err)
			}
			break
		}
	}
	p.wait("the budget line says full", `byTestID('cluster-budget').dataset.full === 'true'`, 15*time.Second)
	if got := p.text("cluster-budget"); !strings.Contains(got, "Data budget full") {
		t.Errorf("the full budget line says %q", got)
	}
	p.open("/topics")
	p.wait("the Topics page's budget line says full", `byTestID('cluster-budget') && byTestID('cluster-budget').dataset.full === 'true'`, 15*time.Second)
}
