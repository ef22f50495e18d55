package embedded

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/testenv"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// bothBrokers runs fn against the embedded broker and against the real
// Kafka named by OFFSETLAB_KAFKA_BROKERS, with the same expectations: the
// embedded broker must answer as Kafka 4.3.1 does.
func bothBrokers(t *testing.T, fn func(t *testing.T, c *cluster.Cluster, name string)) {
	t.Helper()
	for _, real := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "kafka"}[real], func(t *testing.T) {
			t.Parallel()
			var c *cluster.Cluster
			if real {
				testenv.Needs(t, testenv.JVM)
				brokers := os.Getenv("OFFSETLAB_KAFKA_BROKERS")
				if brokers == "" {
					testenv.MissingSetup(t, "real Kafka half skipped: set OFFSETLAB_KAFKA_BROKERS=host:port")
				}
				var err error
				if c, err = cluster.ConnectExternal(cluster.ExternalConfig{Brokers: strings.Split(brokers, ",")}); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.Close)
			} else {
				c = startEmbedded(t)
			}
			name := strings.ReplaceAll(t.Name(), "/", "-") + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			fn(t, c, name)
		})
	}
}

// javaOffsetsPartition is the __consumer_offsets partition of a group on a
// Kafka with 50 of them: the Java hash code of its id, made positive.
func javaOffsetsPartition(group string) int32 {
	var h int32
	for _, r := range utf16.Encode([]rune(group)) {
		h = 31*h + int32(r)
	}
	if h < 0 {
		h = -h
	}
	return h % 50
}

// settledTransaction describes id until the coordinator has left the
// Prepare states (Kafka answers EndTxn before it writes the markers).
func settledTransaction(ctx context.Context, t *testing.T, c *cluster.Cluster, id string) kadm.DescribedTransaction {
	t.Helper()
	var d kadm.DescribedTransaction
	err := wait.Until(ctx, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		all, err := c.Admin().DescribeTransactions(ctx, id)
		if err != nil {
			return false, err
		}
		d = all[id]
		return d.Err == nil && !strings.HasPrefix(d.State, "Prepare"), nil
	})
	if err != nil {
		t.Fatalf("describe %s: %v (last %+v)", id, err, d)
	}
	return d
}

// TestTransactionStatesAsKafka: the coordinator's states as
// kafka-transactions.sh describe and list show them — Ongoing with the
// __consumer_offsets partition its offsets were added to, CompleteCommit and
// CompleteAbort with the last transaction's start time, Empty after
// InitProducerID — and an InitProducerID that fences an open transaction
// answered CONCURRENT_TRANSACTIONS before it succeeds.
func TestTransactionStatesAsKafka(t *testing.T) {
	t.Parallel()
	bothBrokers(t, func(t *testing.T, c *cluster.Cluster, name string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: name, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
		id, group := name+"-app", name+"-group"
		cl, err := kgo.NewClient(append(c.ProducerOpts(), kgo.TransactionalID(id), kgo.DefaultProduceTopic(name))...)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()

		describe := func(want string) kadm.DescribedTransaction {
			t.Helper()
			d := settledTransaction(ctx, t, c, id)
			if d.State != want {
				t.Fatalf("state %q; want %q (%+v)", d.State, want, d)
			}
			listed, err := c.Admin().ListTransactions(ctx, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if l, ok := listed[id]; !ok || l.State != want {
				t.Fatalf("ListTransactions: %+v; want %s listed %q", listed[id], id, want)
			}
			return d
		}

		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, kgo.StringRecord("committed")).FirstErr(); err != nil {
			t.Fatal(err)
		}
		pid, epoch, err := cl.ProducerID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		add := kmsg.NewPtrAddOffsetsToTxnRequest()
		add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = id, pid, epoch, group
		resp, err := cl.Request(ctx, add)
		if err != nil {
			t.Fatal(err)
		}
		if err := kerr.ErrorForCode(resp.(*kmsg.AddOffsetsToTxnResponse).ErrorCode); err != nil {
			t.Fatalf("AddOffsetsToTxn: %v", err)
		}
		ongoing := describe("Ongoing")
		var parts []string
		ongoing.Topics.Each(func(t string, p int32) { parts = append(parts, t+"-"+strconv.Itoa(int(p))) })
		slices.Sort(parts)
		want := []string{"__consumer_offsets-" + strconv.Itoa(int(javaOffsetsPartition(group))), name + "-0"}
		slices.Sort(want)
		if !slices.Equal(parts, want) {
			t.Errorf("Ongoing partitions %v; want %v", parts, want)
		}
		if ongoing.StartTimestamp <= 0 {
			t.Errorf("Ongoing start %d; want a time", ongoing.StartTimestamp)
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		committed := describe("CompleteCommit")
		if committed.StartTimestamp != ongoing.StartTimestamp || len(committed.Topics) != 0 {
			t.Errorf("CompleteCommit start %d, partitions %v; want the transaction's start %d and none", committed.StartTimestamp, committed.Topics, ongoing.StartTimestamp)
		}

		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, kgo.StringRecord("aborted")).FirstErr(); err != nil {
			t.Fatal(err)
		}
		started := describe("Ongoing").StartTimestamp
		if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
			t.Fatal(err)
		}
		if aborted := describe("CompleteAbort"); aborted.StartTimestamp != started {
			t.Errorf("CompleteAbort start %d; want %d", aborted.StartTimestamp, started)
		}

		// A transaction left open, then a new producer with the same id.
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, kgo.StringRecord("fenced")).FirstErr(); err != nil {
			t.Fatal(err)
		}
		_, dataEpoch, err := cl.ProducerID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		init := kmsg.NewPtrInitProducerIDRequest()
		init.TransactionalID, init.TransactionTimeoutMillis = &id, 60000
		var codes []string
		var initResp *kmsg.InitProducerIDResponse
		for len(codes) < 50 {
			r, err := c.Client().Request(ctx, init)
			if err != nil {
				t.Fatal(err)
			}
			initResp = r.(*kmsg.InitProducerIDResponse)
			if initResp.ErrorCode == 0 {
				break
			}
			codes = append(codes, kerr.ErrorForCode(initResp.ErrorCode).Error())
			if err := wait.Sleep(ctx, 20*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		if len(codes) == 0 || !strings.HasPrefix(codes[0], "CONCURRENT_TRANSACTIONS") {
			t.Errorf("InitProducerID over an open transaction answered %v before success; want CONCURRENT_TRANSACTIONS first", codes)
		}
		if initResp.ErrorCode != 0 || initResp.ProducerEpoch != dataEpoch+2 {
			t.Errorf("InitProducerID at last: %+v; want epoch %d (data %d, ABORT +1, new producer +2)", initResp, dataEpoch+2, dataEpoch)
		}
		if empty := describe("Empty"); empty.StartTimestamp != -1 {
			t.Errorf("Empty after InitProducerID: start %d; want -1", empty.StartTimestamp)
		}
	})
}

// TestDescribeProducersAsKafka: DescribeProducers lists an idempotent
// producer with the max timestamp of its last batch and coordinator epoch
// -1, and an administrator's abort (WriteTxnMarkers) ends a producer's
// open transaction on the partition.
func TestDescribeProducersAsKafka(t *testing.T) {
	t.Parallel()
	bothBrokers(t, func(t *testing.T, c *cluster.Cluster, name string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: name, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
		producers := func() map[int64]kadm.DescribedProducer {
			t.Helper()
			got, err := c.Admin().DescribeProducers(ctx, kadm.TopicsSet{name: {0: {}}})
			if err != nil {
				t.Fatal(err)
			}
			byID := map[int64]kadm.DescribedProducer{}
			got.EachProducer(func(p kadm.DescribedProducer) { byID[p.ProducerID] = p })
			return byID
		}

		idem, err := kgo.NewClient(append(c.ProducerOpts(), kgo.DefaultProduceTopic(name))...)
		if err != nil {
			t.Fatal(err)
		}
		defer idem.Close()
		stamp := time.UnixMilli(1_700_000_000_000)
		if err := idem.ProduceSync(ctx, &kgo.Record{Value: []byte("a"), Timestamp: stamp}, &kgo.Record{Value: []byte("b"), Timestamp: stamp.Add(time.Second)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		idemID, _, err := idem.ProducerID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := producers()[idemID]
		if !ok {
			t.Fatalf("idempotent producer %d not listed: %+v", idemID, producers())
		}
		if p.LastTimestamp != stamp.Add(time.Second).UnixMilli() || p.CoordinatorEpoch != -1 || p.CurrentTxnStartOffset != -1 || p.LastSequence != 1 {
			t.Errorf("idempotent producer %+v; want last timestamp %d (the batch's max), coordinator epoch -1, no transaction, last sequence 1", p, stamp.Add(time.Second).UnixMilli())
		}

		tx, err := kgo.NewClient(append(c.ProducerOpts(), kgo.TransactionalID(name+"-app"), kgo.DefaultProduceTopic(name))...)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Close()
		if err := tx.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := tx.ProduceSync(ctx, kgo.StringRecord("open")).FirstErr(); err != nil {
			t.Fatal(err)
		}
		txID, txEpoch, err := tx.ProducerID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		open := producers()[txID]
		if open.CurrentTxnStartOffset != 2 || open.CoordinatorEpoch != -1 {
			t.Fatalf("open transaction %+v; want its start offset 2 and coordinator epoch -1", open)
		}
		resp, err := c.Admin().WriteTxnMarkers(ctx, kadm.TxnMarkers{ProducerID: txID, ProducerEpoch: txEpoch, CoordinatorEpoch: 0, Topics: kadm.TopicsSet{name: {0: {}}}})
		if err == nil {
			resp.EachPartition(func(r kadm.TxnMarkersPartitionResponse) {
				if err == nil {
					err = r.Err
				}
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		if after := producers()[txID]; after.CurrentTxnStartOffset != -1 || after.CoordinatorEpoch != 0 {
			t.Errorf("after the administrator's abort %+v; want no open transaction and the marker's coordinator epoch 0", after)
		}
	})
}

// TestConsumerGroupEpochsAsKafka: a new KIP-848 group's first member, as
// Kafka 4.3.1 numbers it: group, target assignment and member epoch 2 at
// its first heartbeat; group epoch 3 once it has left.
func TestConsumerGroupEpochsAsKafka(t *testing.T) {
	t.Parallel()
	bothBrokers(t, func(t *testing.T, c *cluster.Cluster, name string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: name, Partitions: 2}); err != nil {
			t.Fatal(err)
		}
		group, member := name+"-group", name+"-member"
		describe := func() (groupEpoch, assignmentEpoch int32) {
			t.Helper()
			req := kmsg.NewPtrConsumerGroupDescribeRequest()
			req.Groups = []string{group}
			resp, err := c.Client().Request(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			g := resp.(*kmsg.ConsumerGroupDescribeResponse).Groups[0]
			return g.Epoch, g.AssignmentEpoch
		}
		join := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		join.Group, join.MemberID, join.MemberEpoch, join.RebalanceTimeoutMillis = group, member, 0, 30000
		join.SubscribedTopicNames, join.Topics = []string{name}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		// A fresh Kafka answers COORDINATOR_NOT_AVAILABLE until its
		// __consumer_offsets exists: ask again while the answer is retriable.
		var joined *kmsg.ConsumerGroupHeartbeatResponse
		err := wait.Until(ctx, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
			resp, err := c.Client().Request(ctx, join)
			if err == nil {
				joined = resp.(*kmsg.ConsumerGroupHeartbeatResponse)
				err = kerr.ErrorForCode(joined.ErrorCode)
			}
			if err != nil && kerr.IsRetriable(err) {
				return false, nil
			}
			return true, err
		})
		if err != nil {
			t.Fatal(err)
		}
		groupEpoch, assignmentEpoch := describe()
		if got := [3]int32{joined.MemberEpoch, groupEpoch, assignmentEpoch}; joined.ErrorCode != 0 || got != [3]int32{2, 2, 2} {
			t.Errorf("first member: member, group and assignment epochs %v (error %d); want [2 2 2]", got, joined.ErrorCode)
		}
		leave := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		leave.Group, leave.MemberID, leave.MemberEpoch = group, member, -1
		if _, err := c.Client().Request(ctx, leave); err != nil {
			t.Fatal(err)
		}
		if groupEpoch, _ := describe(); groupEpoch != 3 {
			t.Errorf("group epoch once its member left: %d; want 3", groupEpoch)
		}
	})
}

// TestCleanRestartKeepsTheCleanersCheckpoint: after a clean restart the
// log cleaner resumes from where its last pass stopped, as Kafka's
// cleaner-offset-checkpoint makes it: with nothing new to clean, no pass
// runs, and the tombstone the first pass kept stays.
func TestCleanRestartKeepsTheCleanersCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, firstBroker, err := start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	configs := map[string]string{"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "0"}
	if _, err := first.CreateTopic(ctx, cluster.TopicSpec{Name: "prices", Partitions: 1, Configs: configs}); err != nil {
		first.Close()
		t.Fatal(err)
	}
	p, err := kgo.NewClient(append(first.ClientOpts(), kgo.DefaultProduceTopic("prices"))...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*kgo.Record{{Key: []byte("a"), Value: []byte("a1")}, {Key: []byte("a")}, {Key: []byte("b"), Value: []byte("b1")}} {
		if err := p.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	firstBroker.fake.Compact() // a1 goes; the tombstone stays, its delete horizon set
	first.Close()

	second, secondBroker, err := start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.Close)
	secondBroker.fake.Compact()
	if cells, _ := partitionShape(t, second, "prices"); fmt.Sprint(cells) != "[1: 2:b1]" {
		t.Errorf("after a clean restart and the cleaner's next tick the log is %v; want [1: 2:b1] (the tombstone kept: nothing was dirty)", cells)
	}
}
