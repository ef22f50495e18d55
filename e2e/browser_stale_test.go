package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBrowserResolvesCellsBehindTheTail: the stream carries only the log's
// tail, so a cell far behind it — an open transactional record followed by
// 300 other records — must still turn committed on the page when its
// COMMIT marker lands (the page refetches what the moved LSO made stale).
func TestBrowserResolvesCellsBehindTheTail(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	a := startApp(t, embedded)
	topic := a.name("behind-tail")
	a.createTopic(topic)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	txc, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic), kgo.TransactionalID(a.name("slow-tx")))
	if err != nil {
		t.Fatal(err)
	}
	defer txc.Close()
	if err := txc.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txc.ProduceSync(ctx, kgo.StringRecord("payment P-1")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	plain, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	batch := make([]*kgo.Record, 300)
	for i := range batch {
		batch[i] = kgo.StringRecord(fmt.Sprintf("event %d", i))
	}
	if err := plain.ProduceSync(ctx, batch...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0?at=0")
	p.wait("offset 0 shown open", `cell(0)?.dataset.txn === 'open' && summary('hw')?.dataset.value === '301' && summary('lso')?.dataset.value === '0'`, 15*time.Second)
	p.eval(`(() => { const f = byTestID('follow-toggle'); if (f && f.getAttribute('aria-pressed') === 'true') f.click(); return true })()`, nil)

	if err := txc.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	p.wait("offset 0 to turn committed behind the tail", `cell(0)?.dataset.txn === 'committed' && lane('rc', 0)?.dataset.received === 'true' && summary('lso')?.dataset.value === '302'`, 5*time.Second)
}
