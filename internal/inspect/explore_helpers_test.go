package inspect

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// brokersEnv names a running Apache Kafka cluster for the real-broker
// cases of the explorer tests (scripts/test.sh sets it).
const brokersEnv = "OFFSETLAB_KAFKA_BROKERS"

// brokerKinds are the brokers the explorer tests run on, as subtests.
var brokerKinds = []string{"kfake", "kafka"}

// fixture is one topic of one partition on a fresh kfake cluster or on the
// real cluster named by OFFSETLAB_KAFKA_BROKERS, with a client and an
// Inspector on it.
type fixture struct {
	t      testing.TB
	kind   string
	seeds  []string
	topic  string
	client *kgo.Client
	ins    *Inspector
	fake   *kfake.Cluster // nil on real Kafka
}

// newFixture starts the broker of kind ("kfake" or "kafka", skipping when
// OFFSETLAB_KAFKA_BROKERS is unset) and creates a one-partition topic.
func newFixture(t testing.TB, kind string, configs map[string]string) *fixture {
	t.Helper()
	f := &fixture{t: t, kind: kind}
	switch kind {
	case "kfake":
		c, err := kfake.NewCluster(kfake.NumBrokers(1))
		if err != nil {
			t.Fatalf("start kfake: %v", err)
		}
		t.Cleanup(c.Close)
		f.fake, f.seeds = c, c.ListenAddrs()
	case "kafka":
		testenv.Needs(t, testenv.JVM)
		brokers := os.Getenv(brokersEnv)
		if brokers == "" {
			testenv.MissingSetup(t, "real Kafka cases skipped: set %s=host:port", brokersEnv)
		}
		f.seeds = strings.Split(brokers, ",")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.seeds...))
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(cl.Close)
	f.client, f.ins = cl, New(cl)
	name := strings.NewReplacer("/", "-", " ", "-", "#", "-").Replace(t.Name())
	f.topic = fmt.Sprintf("x-%s-%d", name, time.Now().UnixNano())
	if len(f.topic) > 200 {
		f.topic = f.topic[len(f.topic)-200:]
	}
	f.createTopic(f.topic, configs)
	return f
}

func (f *fixture) createTopic(topic string, configs map[string]string) {
	f.t.Helper()
	ctx := testCtx(f.t)
	cfg := map[string]*string{}
	for k, v := range configs {
		cfg[k] = &v
	}
	resp, err := kadm.NewClient(f.client).CreateTopic(ctx, 1, -1, cfg, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		f.t.Fatalf("create topic %s: %v", topic, err)
	}
	for {
		if _, err := f.ins.Pointers(ctx, topic, 0); err == nil {
			return
		}
		if ctx.Err() != nil {
			f.t.Fatalf("topic %s has no leader", topic)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// producer is a producing client on the fixture's topic; a non-empty
// txnID makes it transactional (unique per fixture).
func (f *fixture) producer(txnID string, opts ...kgo.Opt) *kgo.Client {
	f.t.Helper()
	all := []kgo.Opt{kgo.SeedBrokers(f.seeds...), kgo.DefaultProduceTopic(f.topic)}
	if txnID != "" {
		all = append(all, kgo.TransactionalID(f.topic+"-"+txnID))
	}
	p, err := kgo.NewClient(append(all, opts...)...)
	if err != nil {
		f.t.Fatalf("producer %s: %v", txnID, err)
	}
	f.t.Cleanup(p.Close)
	return p
}

// send produces values with p in one call (one batch when p lingers).
func (f *fixture) send(p *kgo.Client, values ...string) {
	f.t.Helper()
	recs := make([]*kgo.Record, len(values))
	for i, v := range values {
		recs[i] = &kgo.Record{Key: []byte("k-" + v), Value: []byte(v)}
	}
	if err := p.ProduceSync(testCtx(f.t), recs...).FirstErr(); err != nil {
		f.t.Fatalf("produce %v: %v", values, err)
	}
}

func (f *fixture) begin(p *kgo.Client) {
	f.t.Helper()
	if err := p.BeginTransaction(); err != nil {
		f.t.Fatalf("begin: %v", err)
	}
}

func (f *fixture) end(p *kgo.Client, commit bool) {
	f.t.Helper()
	if err := p.EndTransaction(testCtx(f.t), kgo.TransactionEndTry(commit)); err != nil {
		f.t.Fatalf("end transaction: %v", err)
	}
}

// settle waits until the last stable offset is where the test expects it,
// lso, or at the high watermark when lso is negative: on real Kafka the
// markers are written just after EndTxn answers.
func (f *fixture) settle(lso int64) Pointers {
	f.t.Helper()
	ctx := testCtx(f.t)
	for {
		p, err := f.ins.Pointers(ctx, f.topic, 0)
		if err == nil && (lso < 0 && p.LastStableOffset == p.HighWatermark || p.LastStableOffset == lso) {
			return p
		}
		if ctx.Err() != nil {
			f.t.Fatalf("pointers did not settle (want LSO %d): %+v %v", lso, p, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// walk reads [from, to) with ReadLog in windows of chunk offsets.
func (f *fixture) walk(from, to int64, chunk int) []Entry {
	f.t.Helper()
	var all []Entry
	for from < to {
		log, err := f.ins.ReadLog(testCtx(f.t), f.topic, 0, from, int(min(int64(chunk), to-from)))
		if err != nil {
			f.t.Fatalf("ReadLog %d: %v", from, err)
		}
		if len(log.Entries) == 0 {
			break
		}
		all = append(all, log.Entries...)
		from = log.Entries[len(log.Entries)-1].Offset + 1
	}
	return all
}

// classOfEntry is the map class of a ReadLog entry.
func classOfEntry(e *Entry) class {
	switch e.Kind {
	case KindGap:
		return gapClass(e.Reason)
	case KindControl:
		return markerClass(e.Marker)
	}
	return dataClass(e.Txn)
}

// bucketsOf counts entries into the buckets of m (same bounds): the
// oracle for MapPartition.
func bucketsOf(m *PartitionMap, entries []Entry) []MapBucket {
	want := make([]MapBucket, len(m.Buckets))
	k := 0
	for i := range entries {
		e := &entries[i]
		for k < len(want) && e.Offset >= m.Buckets[k].To {
			k++
		}
		if k == len(want) {
			break
		}
		want[k].add(classOfEntry(e), 1)
	}
	for k := range want {
		want[k].From, want[k].To = m.Buckets[k].From, m.Buckets[k].To
	}
	return want
}

func ctxWithCancel(t testing.TB) (context.Context, context.CancelFunc) {
	t.Helper()
	return context.WithCancel(testCtx(t))
}
