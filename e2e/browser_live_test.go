package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// liveDeadline is how long the test waits for a write by another client
// to show on the page. The product shows it within a second (the test
// logs each measured latency); the wait is longer so that a loaded
// machine running the whole suite against one real broker does not fail
// a test that is not a benchmark.
const liveDeadline = 5 * time.Second

// TestBrowserLiveExternalClient keeps the page open while an ordinary Kafka
// client (kgo, straight to the broker, not through Offset Lab) writes: the
// new cells must appear without a reload within a second, and an open
// transaction's cells must turn aborted when the client aborts it.
func TestBrowserLiveExternalClient(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			chromium := chromiumPath(t)
			a := startApp(t, kind)
			topic := a.name("live")
			a.createTopic(topic)
			p := openPage(t, a, chromium, 1280, 720)
			p.open("/topics/" + topic + "/partitions/0")
			p.wait("the stream to connect", `byTestID('stream-status').dataset.state === 'open' && summary('hw')?.dataset.value === '0'`, 15*time.Second)
			p.eval(`window.__offsetlabLoaded = performance.timeOrigin`, nil)

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			plain, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic))
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			for i := range 3 {
				if err := plain.ProduceSync(ctx, kgo.StringRecord(fmt.Sprintf("external %d", i))).FirstErr(); err != nil {
					t.Fatalf("external produce: %v", err)
				}
				written := time.Now()
				p.wait(fmt.Sprintf("offset %d to appear", i), fmt.Sprintf(`cell(%d)?.dataset.kind === 'data' && cell(%d).dataset.txn === 'none' && lane('rc', %d)?.dataset.received === 'true'`, i, i, i), liveDeadline)
				t.Logf("offset %d appeared %v after the external write was acknowledged", i, time.Since(written).Round(time.Millisecond))
			}

			// An open transaction from another client: its cells are open,
			// the LSO waits at its first offset; then the client aborts.
			txc, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic),
				kgo.TransactionalID(a.name("external-tx")))
			if err != nil {
				t.Fatal(err)
			}
			defer txc.Close()
			if err := txc.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			if err := txc.ProduceSync(ctx, kgo.StringRecord("payment P-1"), kgo.StringRecord("payment P-2")).FirstErr(); err != nil {
				t.Fatalf("transactional produce: %v", err)
			}
			written := time.Now()
			p.wait("the open transaction's cells", `cell(3)?.dataset.txn === 'open' && cell(4)?.dataset.txn === 'open' && summary('lso')?.dataset.value === '3'`, liveDeadline)
			t.Logf("open cells appeared %v after the write", time.Since(written).Round(time.Millisecond))
			if got := p.laneReasons("rc"); got[3] != "beyond LSO" || got[4] != "beyond LSO" {
				t.Fatalf("read_committed lane over the open transaction = %v, want beyond LSO at 3 and 4", got)
			}
			equalOffsets(t, "read_uncommitted lane with the transaction open", p.received("ru"), []int64{0, 1, 2, 3, 4})
			p.wait("the page to say why LSO < HW", `byTestID('lso-why').dataset.state === 'held' && byTestID('lso-why').textContent.includes('holds the LSO at 3')`, liveDeadline)

			if err := txc.EndTransaction(ctx, kgo.TryAbort); err != nil {
				t.Fatalf("abort: %v", err)
			}
			aborted := time.Now()
			p.wait("the cells to turn aborted and the ABORT marker to land",
				`cell(3)?.dataset.txn === 'aborted' && cell(4)?.dataset.txn === 'aborted' && cell(5)?.dataset.marker === 'ABORT' && summary('lso')?.dataset.value === '6' && summary('hw')?.dataset.value === '6'`, liveDeadline)
			t.Logf("cells turned aborted %v after the abort", time.Since(aborted).Round(time.Millisecond))
			equal(t, "log after the external abort", shape(p.cells()), []string{"0:none", "1:none", "2:none", "3:aborted", "4:aborted", "5:ABORT"})
			if got := p.laneReasons("rc"); got[3] != "aborted" || got[4] != "aborted" || got[5] != "marker" {
				t.Fatalf("read_committed lane after the abort = %v", got)
			}
			var reloaded bool
			p.eval(`window.__offsetlabLoaded !== performance.timeOrigin`, &reloaded)
			if reloaded {
				t.Fatal("the page reloaded; updates must arrive live")
			}
		})
	}
}
