package inspect

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// These tests pin down how the embedded broker (our copy of kfake) behaves
// where it once differed from Apache Kafka, or still does, as far as this
// package is concerned; docs/divergences.md lists what still differs.

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

// Compaction that removes the first records of a partition leaves the log
// start offset alone on kfake as on Kafka (our copy of kfake moved it
// before it followed Kafka's cleaner).
func TestKfakeCompactionKeepsLogStart(t *testing.T) {
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
	if want := (Pointers{0, 3, 3}); ptrs != want {
		t.Errorf("pointers: got %+v, want Kafka's %+v", ptrs, want)
	}
}

// TestKfakeCleanerAsKafka runs the log cleaner of our kfake over lesson 7's
// log, pass by pass, and checks what Kafka's cleaner leaves: the first pass
// removes superseded records only, keeping the tombstone and the COMMIT
// marker (it sets the tombstone's delete horizon); no pass runs while
// nothing new is dirty; the next pass removes the tombstone and gives the
// marker its horizon; the one after removes the marker. The log start
// offset stays 0, and a batch thinned at its end keeps its last offset.
func TestKfakeCleanerAsKafka(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", map[string]string{"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"})
	plain := f.producer("")
	tx := f.producer("cleaner-tx")
	// Records an hour old: the delete horizon's timestamp deltas then
	// take more bytes than the records' own.
	old := time.Now().Add(-time.Hour)
	keyed := func(p *kgo.Client, kvs ...string) {
		t.Helper()
		var recs []*kgo.Record
		for i := 0; i < len(kvs); i += 2 {
			r := &kgo.Record{Key: []byte(kvs[i]), Timestamp: old}
			if kvs[i+1] != "" {
				r.Value = []byte(kvs[i+1])
			}
			recs = append(recs, r)
		}
		if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	keyed(plain, "pear", "pear 300")                         // 0
	keyed(plain, "apple", "apple 100", "apple", "apple 120") // 1-2
	f.begin(tx)
	keyed(tx, "kiwi", "kiwi 50") // 3, COMMIT at 4
	f.end(tx, true)
	keyed(plain, "apple", "apple 130")              // 5
	keyed(plain, "kiwi", "")                        // 6, a tombstone
	keyed(plain, "plum", "plum 80", "fig", "fig 1") // 7-8
	keyed(plain, "fig", "fig 2")                    // 9
	keyed(plain, "date", "date 1")                  // 10, the active batch

	shape := func() string {
		t.Helper()
		l, err := f.ins.ReadLog(testCtx(t), f.topic, 0, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, e := range l.Entries {
			s := fmt.Sprintf("%d:%s", e.Offset, e.Kind)
			switch {
			case e.Kind == KindGap:
				s += "(" + e.Reason + ")"
			case e.Marker != "":
				s += "(" + e.Marker + ")"
			case e.BatchLastOffset != e.Offset && e.Kind == KindData:
				s += fmt.Sprintf("(batch to %d)", e.BatchLastOffset)
			}
			parts = append(parts, s)
		}
		return fmt.Sprintf("start %d: %s", l.LogStartOffset, strings.Join(parts, " "))
	}
	passes := []struct {
		name, want string
	}{
		{"first pass", "start 0: 0:data 1:gap(compacted) 2:gap(compacted) 3:gap(compacted) 4:control(COMMIT) 5:data 6:data 7:data(batch to 8) 8:gap(compacted) 9:data 10:data"},
		{"nothing dirty", "start 0: 0:data 1:gap(compacted) 2:gap(compacted) 3:gap(compacted) 4:control(COMMIT) 5:data 6:data 7:data(batch to 8) 8:gap(compacted) 9:data 10:data"},
		{"second pass", "start 0: 0:data 1:gap(compacted) 2:gap(compacted) 3:gap(compacted) 4:control(COMMIT) 5:data 6:gap(compacted) 7:data(batch to 8) 8:gap(compacted) 9:data 10:data 11:data"},
		{"third pass", "start 0: 0:data 1:gap(compacted) 2:gap(compacted) 3:gap(compacted) 4:gap(compacted) 5:data 6:gap(compacted) 7:data(batch to 8) 8:gap(compacted) 9:data 10:data 11:data 12:data"},
	}
	for i, pass := range passes {
		if i >= 2 {
			keyed(plain, "grape", fmt.Sprintf("grape %d", i)) // makes the last batch dirty
		}
		f.fake.Compact()
		if got := shape(); got != pass.want {
			t.Errorf("%s:\n got %s\nwant %s", pass.name, got, pass.want)
		}
	}
}

// TestKfakeCleanerKeepsAProducersLastBatch: a batch the cleaner empties
// that holds its producer's last sequence is kept with no records, its
// offsets intact, as Kafka 4.3.1's cleaner keeps it (measured: batches
// 0-0 with one record, 1-2 with none, 3-3 with one, for the same writes).
func TestKfakeCleanerKeepsAProducersLastBatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", map[string]string{"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01"})
	for _, batch := range [][]string{{"pear", "1"}, {"apple", "1", "apple", "2"}, {"apple", "3"}, {"plum", "1"}} {
		var recs []*kgo.Record
		for i := 0; i < len(batch); i += 2 {
			recs = append(recs, &kgo.Record{Key: []byte(batch[i]), Value: []byte(batch[i+1])})
		}
		p := f.producer("") // a producer a batch
		if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	f.fake.Compact()
	ctx := testCtx(t)
	ref, err := f.ins.locate(ctx, f.topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	req := kmsg.NewPtrFetchRequest()
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = ref.topic, ref.topicID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.PartitionMaxBytes = 1 << 20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, f.client.Broker(int(ref.leader)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for raw := resp.Topics[0].Partitions[0].RecordBatches; len(raw) > 0; {
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d-%d:%d", b.FirstOffset, b.FirstOffset+int64(b.LastOffsetDelta), b.NumRecords))
		raw = raw[12+int(b.Length):]
	}
	if want := "0-0:1 1-2:0 3-3:1 4-4:1"; strings.Join(got, " ") != want {
		t.Errorf("batches after the pass: %s; want %s (apple's producer keeps its emptied batch)", strings.Join(got, " "), want)
	}
}
