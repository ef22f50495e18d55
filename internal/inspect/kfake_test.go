package inspect

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// These tests pin down where the embedded broker (kfake) behaves unlike
// Apache Kafka, as far as this package is concerned. When one fails after a
// kfake upgrade, the divergence is gone: update docs/divergences.md.

// kfake drops a partition's AbortedTransactions from a read_committed fetch
// response when the request-level MaxBytes (rather than the partition's)
// cuts the response. Kafka always returns the aborted transactions that
// overlap the data it returns. Inspector.fetch therefore leaves MaxBytes at
// its maximum and limits the partition only; a franz-go consumer reading
// several partitions on kfake can deliver aborted records when this hits.
func TestKfakeDropsAbortedTransactionsAtRequestMaxBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.run(begin("tx1", "a"), produce("plain", "b"), abort("tx1"))
	ctx := testCtx(t)
	ref, err := e.ins.locate(ctx, testTopic, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		maxBytes    int32
		wantAborted int
	}{
		{"request limit as small as the partition's", 1, 0},
		{"partition limit only", 1 << 30, 1},
	}
	for _, tt := range tests {
		req := kmsg.NewPtrFetchRequest()
		req.IsolationLevel = 1
		req.MaxBytes = tt.maxBytes
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = ref.topic, ref.topicID
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.PartitionMaxBytes = 1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, e.client.Broker(int(ref.leader)))
		if err != nil {
			t.Fatal(err)
		}
		sp, err := findPartition(resp, &ref)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(sp.AbortedTransactions); got != tt.wantAborted {
			t.Errorf("%s: got %d aborted transactions, want %d (kfake divergence changed?)", tt.name, got, tt.wantAborted)
		}
	}
}

// kfake advances the log start offset when compaction removes the first
// records of a partition; Kafka's cleaner keeps segment base offsets and
// leaves the log start offset alone.
func TestKfakeCompactionMovesLogStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const topic = "compacted"
	if err := e.cluster.CreateTopic(topic, 1, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	p, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, k := range []string{"a", "a", "b"} {
		if err := p.ProduceSync(testCtx(t), &kgo.Record{Key: []byte(k), Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	e.cluster.Compact()
	ptrs, err := e.ins.Pointers(testCtx(t), topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Pointers{1, 3, 3}); ptrs != want {
		t.Errorf("pointers: got %+v, want kfake's %+v (Kafka would keep log start 0)", ptrs, want)
	}
}
