package e2e

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/offsetlab/offsetlab/internal/cluster"
	embeddedbroker "github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// The explorer's domain reads (internal/cluster and internal/inspect
// together, without HTTP), on the embedded broker and on real Kafka.

// explorer is one broker with the cluster's admin reads and an Inspector.
type explorer struct {
	t      *testing.T
	kind   brokerKind
	kafka  *cluster.Cluster
	ins    *inspect.Inspector
	suffix string
}

func newExplorer(t *testing.T, kind brokerKind) *explorer {
	t.Helper()
	var kafka *cluster.Cluster
	var err error
	switch kind {
	case embedded:
		kafka, err = embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: "127.0.0.1:0"})
	case realKafka:
		testenv.Needs(t, testenv.JVM)
		brokers := os.Getenv(brokersEnv)
		if brokers == "" {
			testenv.MissingSetup(t, "real Kafka tests skipped: set %s=host:port", brokersEnv)
		}
		kafka, err = cluster.ConnectExternal(cluster.ExternalConfig{Brokers: strings.Split(brokers, ",")})
	}
	if err != nil {
		t.Fatalf("connect to %s broker: %v", kind, err)
	}
	t.Cleanup(kafka.Close)
	return &explorer{t: t, kind: kind, kafka: kafka, ins: inspect.New(kafka.Client()), suffix: randomSuffix(t)}
}

func (x *explorer) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	x.t.Cleanup(cancel)
	return ctx
}

func (x *explorer) name(base string) string { return base + "-" + x.suffix }

func (x *explorer) topic(base string) string {
	x.t.Helper()
	name := x.name(base)
	if _, err := x.kafka.CreateTopic(x.ctx(), cluster.TopicSpec{Name: name, Partitions: 1}); err != nil {
		x.t.Fatalf("create topic %s: %v", name, err)
	}
	return name
}

func (x *explorer) client(opts ...kgo.Opt) *kgo.Client {
	x.t.Helper()
	cl, err := kgo.NewClient(append(x.kafka.ClientOpts(), opts...)...)
	if err != nil {
		x.t.Fatal(err)
	}
	x.t.Cleanup(cl.Close)
	return cl
}

func (x *explorer) produce(p *kgo.Client, topic string, values ...string) {
	x.t.Helper()
	for _, v := range values {
		if err := p.ProduceSync(x.ctx(), &kgo.Record{Topic: topic, Value: []byte(v)}).FirstErr(); err != nil {
			x.t.Fatalf("produce %q: %v", v, err)
		}
	}
}

func (x *explorer) endTxn(p *kgo.Client, commit bool) {
	x.t.Helper()
	if err := p.EndTransaction(x.ctx(), kgo.TransactionEndTry(commit)); err != nil {
		x.t.Fatalf("end transaction: %v", err)
	}
}

// stable waits until topic's last stable offset reaches its high watermark.
func (x *explorer) stable(topic string) inspect.Pointers {
	x.t.Helper()
	ctx := x.ctx()
	for {
		p, err := x.ins.Pointers(ctx, topic, 0)
		if err == nil && p.LastStableOffset == p.HighWatermark {
			return p
		}
		if ctx.Err() != nil {
			x.t.Fatalf("%s: LSO never reached the HW: %+v %v", topic, p, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lessonTwoOutput writes lesson 2's output topic: 0 O-1, 1 COMMIT,
// 2 O-2 (aborted by the restart's fencing), 3 ABORT, 4 O-2, 5 COMMIT,
// 6 O-3, 7 COMMIT.
func (x *explorer) lessonTwoOutput(topic string) {
	x.t.Helper()
	id := x.name("order-totals-app")
	crashed := x.client(kgo.TransactionalID(id))
	must := func(err error) {
		x.t.Helper()
		if err != nil {
			x.t.Fatal(err)
		}
	}
	must(crashed.BeginTransaction())
	x.produce(crashed, topic, "O-1 total=30000")
	x.endTxn(crashed, true)
	must(crashed.BeginTransaction())
	x.produce(crashed, topic, "O-2 total=42000")
	restarted := x.client(kgo.TransactionalID(id))
	must(restarted.BeginTransaction())
	x.produce(restarted, topic, "O-2 total=42000")
	x.endTxn(restarted, true)
	must(restarted.BeginTransaction())
	x.produce(restarted, topic, "O-3 total=27000")
	x.endTxn(restarted, true)
	if p := x.stable(topic); p.HighWatermark != 8 {
		x.t.Fatalf("lesson 2 output: %+v, want a high watermark of 8", p)
	}
}

// TestExplorerGroupLags: the offset lag counts markers, the record lag
// does not. Groups committed at 8 (the end), 7 (before the trailing COMMIT
// marker) and 0 on lesson 2's output, plus a live member.
func TestExplorerGroupLags(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			x := newExplorer(t, kind)
			topic := x.topic("order-totals-tx")
			x.lessonTwoOutput(topic)
			adm := x.kafka.Admin()
			tests := []struct {
				group                string
				committed            int64
				wantLag, wantRecords int64
			}{
				{x.name("at-the-end"), 8, 0, 0},
				{x.name("before-the-marker"), 7, 1, 0},
				{x.name("before-O-3"), 5, 3, 1},
				{x.name("from-the-start"), 0, 8, 3},
			}
			for _, tt := range tests {
				var offsets kadm.Offsets
				offsets.Add(kadm.Offset{Topic: topic, Partition: 0, At: tt.committed, LeaderEpoch: -1})
				if err := adm.CommitAllOffsets(x.ctx(), tt.group, offsets); err != nil {
					t.Fatal(err)
				}
				d, err := x.kafka.DescribeGroup(x.ctx(), tt.group, x.ins)
				if err != nil {
					t.Fatal(err)
				}
				if len(d.Offsets) != 1 {
					t.Fatalf("%s: offsets %+v", tt.group, d.Offsets)
				}
				o := d.Offsets[0]
				if o.Committed != tt.committed || o.LogEnd != 8 || o.Lag != tt.wantLag || o.RecordLag != tt.wantRecords {
					t.Errorf("%s: got committed %d logEnd %d lag %d recordLag %d (%s), want %d 8 %d %d",
						tt.group, o.Committed, o.LogEnd, o.Lag, o.RecordLag, o.RecordLagNote, tt.committed, tt.wantLag, tt.wantRecords)
				}
				if d.State != "Empty" || d.MemberCount != 0 || d.Members == nil {
					t.Errorf("%s: state %q with %d members %v, want Empty and none", tt.group, d.State, d.MemberCount, d.Members)
				}
				uncounted := int64(-1) // without a counter, only a zero lag is known
				if tt.wantLag == 0 {
					uncounted = 0
				}
				without, err := x.kafka.DescribeGroup(x.ctx(), tt.group, nil)
				if err != nil || without.Offsets[0].RecordLag != uncounted {
					t.Errorf("%s without a counter: %+v %v", tt.group, without.Offsets, err)
				} else if why := without.Offsets[0].RecordLagWhy; (uncounted < 0) != (why != nil) || why != nil && (why.Key != "groupLag.notCounted" || without.Offsets[0].RecordLagNote != why.String()) {
					// the missing lag said in the catalogue's words, its English the note
					t.Errorf("%s without a counter: why %+v, note %q", tt.group, why, without.Offsets[0].RecordLagNote)
				}
			}

			x.liveGroup(topic, x.name("live"), "classic")
			x.liveGroup(topic, x.name("live-848"), "consumer", kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
			if _, err := x.kafka.DescribeGroup(x.ctx(), x.name("never-seen"), x.ins); !problem.Is(err, "error.unknownGroup") {
				t.Errorf("unknown group: got %v", err)
			}
			groups, err := x.kafka.ListGroups(x.ctx())
			if err != nil {
				t.Fatal(err)
			}
			if j := slices.IndexFunc(groups, func(g cluster.GroupSummary) bool { return g.Group == tests[0].group }); j < 0 || groups[j].Members != 0 || groups[j].State != "Empty" {
				t.Errorf("ListGroups has no empty group %s: %+v", tests[0].group, groups)
			}
		})
	}
}

// liveGroup runs a read_committed consumer of protocol groupType
// ("classic" or KIP-848's "consumer") in group over topic (lesson 2's
// output), commits what it read, and checks DescribeGroup and ListGroups
// show the member, its assignment and a record lag of 0.
func (x *explorer) liveGroup(topic, live, groupType string, opts ...kgo.Opt) {
	t := x.t
	t.Helper()
	consumer := x.client(append([]kgo.Opt{kgo.ConsumerGroup(live), kgo.ConsumeTopics(topic), kgo.ClientID("explorer-test"),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.DisableAutoCommit()}, opts...)...)
	got := 0
	for got < 3 {
		fs := consumer.PollFetches(x.ctx())
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		got += fs.NumRecords()
	}
	if err := consumer.CommitUncommittedOffsets(x.ctx()); err != nil {
		t.Fatal(err)
	}
	var d cluster.GroupDetail
	ctx := x.ctx()
	for {
		var err error
		d, err = x.kafka.DescribeGroup(ctx, live, x.ins)
		if err == nil && d.State == "Stable" && len(d.Offsets) == 1 && d.MemberCount == 1 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%s group %s never stable with a member and an offset: %+v %v", groupType, live, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d.MemberCount != 1 || d.Members[0].ClientID != "explorer-test" || d.Members[0].Host == "" || d.Type != groupType ||
		len(d.Members[0].Assignment) != 1 || d.Members[0].Assignment[0].Topic != topic || !slices.Equal(d.Members[0].Assignment[0].Partitions, []int32{0}) {
		t.Errorf("%s group %s: type %q, members %+v", groupType, live, d.Type, d.Members)
	}
	// A read_committed consumer commits the offset after the last record
	// it received (7, before the trailing COMMIT) or after the marker (8),
	// depending on the client.
	if o := d.Offsets[0]; o.RecordLag != 0 || o.Lag > 1 {
		t.Errorf("%s group offsets: %+v", groupType, o)
	}
	t.Logf("%s: %s group committed %d (lag %d, record lag %d), state %s, protocol %q", x.kind, groupType, d.Offsets[0].Committed, d.Offsets[0].Lag, d.Offsets[0].RecordLag, d.State, d.Protocol)
	groups, err := x.kafka.ListGroups(x.ctx())
	if err != nil {
		t.Fatal(err)
	}
	// ListGroups names the protocol type of a KIP-848 group "consumer" on
	// both brokers (a patch of the embedded broker's kfake, PATCHES.md 6).
	i := slices.IndexFunc(groups, func(g cluster.GroupSummary) bool { return g.Group == live })
	if i < 0 || groups[i].Members != 1 || groups[i].State != "Stable" || groups[i].ProtocolType != "consumer" || groups[i].Type != groupType {
		t.Errorf("ListGroups, %s: %+v", live, groups)
	}
}

// TestExplorerOpenTransactionIsNotHanging is lesson 6c: an open
// transaction pins the LSO; its producer is listed with the transaction's
// start offset and transactional id, and it is not hanging — its
// coordinator still expects to end it — even when its records are older
// than the maximum transaction timeout.
func TestExplorerOpenTransactionIsNotHanging(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			x := newExplorer(t, kind)
			topic := x.topic("payments")
			id := x.name("payments-app")
			p := x.client(kgo.TransactionalID(id))
			if err := p.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			if err := p.ProduceSync(x.ctx(), &kgo.Record{Topic: topic, Value: []byte("P-1 pending"), Timestamp: old}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			x.produce(x.client(), topic, "P-2 paid", "P-3 paid")
			pp, err := x.kafka.DescribeProducers(x.ctx(), topic, 0)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(pp.Producers, func(s cluster.ProducerState) bool { return s.CurrentTransactionStartOffset == 0 })
			if i < 0 {
				t.Fatalf("no producer with a transaction open at 0: %+v", pp)
			}
			if s := pp.Producers[i]; s.Hanging || s.TransactionalID != id {
				t.Errorf("open transaction: %+v, want transactional id %s, not hanging", s, id)
			}
			// Both brokers report the last batch's max timestamp (an
			// hour ago here).
			if got := pp.Producers[i].LastTimestamp; got != old.UnixMilli() {
				t.Errorf("%s: last timestamp %d, record written at %d", kind, got, old.UnixMilli())
			}
			if pp.MaxTransactionTimeoutMs != 900_000 {
				t.Errorf("max transaction timeout %d ms, want Kafka's default 900000", pp.MaxTransactionTimeoutMs)
			}
			idempotent := 0
			for _, s := range pp.Producers {
				if s.CurrentTransactionStartOffset < 0 {
					idempotent++
				}
			}
			// The idempotent producer of P-2 and P-3 is listed too.
			if idempotent != 1 {
				t.Errorf("%d producers without a transaction, want 1 on %s: %+v", idempotent, kind, pp.Producers)
			}
			hanging, err := x.kafka.HangingTransactions(x.ctx(), topic)
			if err != nil || len(hanging) != 0 {
				t.Errorf("hanging transactions: %+v %v, want none", hanging, err)
			}
			txns, err := x.kafka.ListTransactions(x.ctx(), "Ongoing")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(txns, func(s cluster.TransactionSummary) bool { return s.TransactionalID == id && s.State == "Ongoing" }) {
				t.Errorf("ListTransactions(Ongoing) lacks %s: %+v", id, txns)
			}
			x.endTxn(p, false)
			x.stable(topic)
			done, err := x.kafka.ListTransactions(x.ctx(), "Ongoing")
			if err != nil || slices.ContainsFunc(done, func(s cluster.TransactionSummary) bool { return s.TransactionalID == id }) {
				t.Errorf("after the abort, ListTransactions(Ongoing): %+v %v", done, err)
			}
			if _, err := x.kafka.ListTransactions(x.ctx(), "Finished"); problem.KindOf(err) != problem.Invalid {
				t.Errorf("unknown state: got %v, want ErrInvalid", err)
			}
		})
	}
}

// TestExplorerHangingTransaction makes a real hanging transaction on Apache
// Kafka — transactional records on a partition the transaction coordinator
// never heard of, written with partition verification (KIP-890) switched
// off, as clients with the old AddPartitionsToTxn race left them — finds it
// as find-hanging does, aborts it as kafka-transactions.sh abort does, and
// sees it gone. The embedded broker cannot hold one: it refuses such a
// write (the test pins that).
func TestExplorerHangingTransaction(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			x := newExplorer(t, kind)
			topic := x.topic("hanging")
			if kind == realKafka {
				x.setVerification(false)
			}
			pid, err := x.writeUnregisteredTransaction(topic, x.name("forgotten-app"))
			if kind == embedded {
				if !errors.Is(err, kerr.InvalidTxnState) {
					t.Fatalf("embedded broker: unregistered transactional write got %v, want INVALID_TXN_STATE (divergence changed?)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			x.produce(x.client(), topic, "after")
			ptrs, err := x.ins.Pointers(x.ctx(), topic, 0)
			if err != nil || ptrs.LastStableOffset != 0 || ptrs.HighWatermark != 2 {
				t.Fatalf("pointers %+v %v, want the LSO pinned at 0 under a HW of 2", ptrs, err)
			}
			pp, err := x.kafka.DescribeProducers(x.ctx(), topic, 0)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(pp.Producers, func(s cluster.ProducerState) bool { return s.ProducerID == pid })
			if i < 0 || !pp.Producers[i].Hanging || pp.Producers[i].CurrentTransactionStartOffset != 0 {
				t.Fatalf("producer %d: %+v, want hanging from offset 0", pid, pp.Producers)
			}
			hanging, err := x.kafka.HangingTransactions(x.ctx(), topic)
			if err != nil || len(hanging) != 1 || hanging[0].ProducerID != pid || hanging[0].Topic != topic {
				t.Fatalf("hanging transactions: %+v %v", hanging, err)
			}
			if _, err := x.kafka.AbortTransaction(x.ctx(), topic, 0, 1); !problem.Is(err, "error.noOpenTransactionAt") {
				t.Errorf("abort at an offset no transaction starts at: got %v, want ErrInvalid", err)
			}
			aborted, err := x.kafka.AbortTransaction(x.ctx(), topic, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if aborted.ProducerID != pid || aborted.CoordinatorEpoch != 0 {
				t.Errorf("aborted %+v", aborted)
			}
			x.stable(topic)
			pp, err = x.kafka.DescribeProducers(x.ctx(), topic, 0)
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.IndexFunc(pp.Producers, func(s cluster.ProducerState) bool { return s.ProducerID == pid }); i >= 0 && pp.Producers[i].CurrentTransactionStartOffset != -1 {
				t.Errorf("after the abort, producer %d still has a transaction open: %+v", pid, pp.Producers[i])
			}
			hanging, err = x.kafka.HangingTransactions(x.ctx(), topic)
			if err != nil || len(hanging) != 0 {
				t.Errorf("after the abort, hanging transactions: %+v %v", hanging, err)
			}
			m, err := x.ins.MapPartition(x.ctx(), topic, 0, inspect.MapRequest{From: -1, To: -1, Buckets: 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := (inspect.MapBucket{From: 0, To: 3, Aborted: 1, Plain: 1, AbortMarkers: 1}); m.Buckets[0] != want {
				t.Errorf("map after the abort: %+v, want %+v", m.Buckets[0], want)
			}
		})
	}
}

// setVerification sets transaction.partition.verification.enable for the
// whole cluster (a dynamic default) and restores Kafka's default when the
// test ends.
func (x *explorer) setVerification(on bool) {
	x.t.Helper()
	v := "false"
	if on {
		v = "true"
	}
	adm := x.kafka.Admin()
	const key = "transaction.partition.verification.enable"
	if _, err := adm.AlterBrokerConfigs(x.ctx(), []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: &v}}); err != nil {
		x.t.Fatal(err)
	}
	x.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: key}}); err != nil {
			x.t.Errorf("restore %s: %v", key, err)
		}
	})
	// Brokers apply a dynamic default asynchronously.
	ctx := x.ctx()
	for {
		rc, err := adm.DescribeBrokerConfigs(ctx, 1)
		if err == nil && len(rc) == 1 {
			if i := slices.IndexFunc(rc[0].Configs, func(c kadm.Config) bool { return c.Key == key }); i >= 0 && rc[0].Configs[i].MaybeValue() == v {
				return
			}
		}
		if ctx.Err() != nil {
			x.t.Fatalf("%s never became %s", key, v)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeUnregisteredTransaction gets a producer id for transactionalID and
// writes one transactional record (timestamped an hour ago) to topic
// without adding the partition to the transaction, over Produce v9 (before
// KIP-890 let the broker add it). It returns the producer id.
func (x *explorer) writeUnregisteredTransaction(topic, transactionalID string) (int64, error) {
	x.t.Helper()
	cl := x.client(kgo.MaxVersions(kversion.V3_6_0()))
	ctx := x.ctx()
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKey, fc.CoordinatorType = transactionalID, 1
	fr, err := fc.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	node := fr.NodeID
	if len(fr.Coordinators) > 0 {
		node = fr.Coordinators[0].NodeID
	}
	init := kmsg.NewPtrInitProducerIDRequest()
	init.TransactionalID = &transactionalID
	init.TransactionTimeoutMillis = 60_000
	ir, err := init.RequestWith(ctx, cl.Broker(int(node)))
	if err == nil {
		err = kerr.ErrorForCode(ir.ErrorCode)
	}
	if err != nil {
		return 0, err
	}
	rec := kmsg.Record{Value: []byte("forgotten")}
	body := rec.AppendTo(nil)
	records := append(binary.AppendVarint(nil, int64(len(body)-1)), body[1:]...)
	ts := time.Now().Add(-time.Hour).UnixMilli()
	batch := kmsg.RecordBatch{
		Length: int32(49 + len(records)), Magic: 2, Attributes: 0x10, // transactional
		FirstTimestamp: ts, MaxTimestamp: ts, ProducerID: ir.ProducerID, ProducerEpoch: ir.ProducerEpoch,
		FirstSequence: 0, NumRecords: 1, Records: records,
	}
	raw := batch.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis, req.TransactionID = -1, 5000, &transactionalID
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = raw
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	return ir.ProducerID, kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
}

// TestExplorerTopicConfigsAndDelete reads a topic's configs with their
// sources and deletes it.
func TestExplorerTopicConfigsAndDelete(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			x := newExplorer(t, kind)
			name := x.name("configured")
			if _, err := x.kafka.CreateTopic(x.ctx(), cluster.TopicSpec{Name: name, Partitions: 1, Configs: map[string]string{"cleanup.policy": "compact"}}); err != nil {
				t.Fatal(err)
			}
			configs, err := x.kafka.TopicConfigs(x.ctx(), name)
			if err != nil {
				t.Fatal(err)
			}
			find := func(key string) *cluster.TopicConfig {
				i := slices.IndexFunc(configs, func(c cluster.TopicConfig) bool { return c.Name == key })
				if i < 0 {
					return nil
				}
				return &configs[i]
			}
			if c := find("cleanup.policy"); c == nil || c.Value == nil || *c.Value != "compact" || c.Source != "DYNAMIC_TOPIC_CONFIG" {
				t.Errorf("cleanup.policy: %+v", c)
			}
			if c := find("min.insync.replicas"); c == nil || c.Source == "DYNAMIC_TOPIC_CONFIG" || c.Source == "" {
				t.Errorf("min.insync.replicas: %+v", c)
			} else {
				var names []string
				for _, c := range configs {
					names = append(names, c.Name+"="+c.Source)
				}
				t.Logf("%s: %d configs: %s", kind, len(configs), strings.Join(names, " "))
			}
			if !slices.IsSortedFunc(configs, func(a, b cluster.TopicConfig) int { return strings.Compare(a.Name, b.Name) }) {
				t.Error("configs not sorted by name")
			}
			if err := x.kafka.DeleteTopic(x.ctx(), name); err != nil {
				t.Fatal(err)
			}
			if _, err := x.kafka.Topic(x.ctx(), name); !problem.Is(err, "error.unknownTopic") {
				t.Errorf("deleted topic: got %v, want ErrUnknownTopic", err)
			}
			if err := x.kafka.DeleteTopic(x.ctx(), name); !problem.Is(err, "error.unknownTopic") {
				t.Errorf("deleting it again: got %v, want ErrUnknownTopic", err)
			}
			if _, err := x.kafka.TopicConfigs(x.ctx(), name); !problem.Is(err, "error.unknownTopic") {
				t.Errorf("configs of a deleted topic: got %v, want ErrUnknownTopic", err)
			}
			if err := x.kafka.DeleteTopic(x.ctx(), "__consumer_offsets"); problem.KindOf(err) != problem.Invalid {
				t.Errorf("deleting __consumer_offsets: got %v, want ErrInvalid", err)
			}
		})
	}
}

// TestExplorerAbortOnEmbeddedBroker: an administrator's abort
// (WriteTxnMarkers) of an ongoing transaction on the embedded broker writes
// the ABORT marker, moves the LSO and ends the producer's transaction on the
// partition, as on Kafka (TestExplorerHangingTransaction covers Kafka).
func TestExplorerAbortOnEmbeddedBroker(t *testing.T) {
	t.Parallel()
	x := newExplorer(t, embedded)
	topic := x.topic("aborted-by-admin")
	p := x.client(kgo.TransactionalID(x.name("app")))
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	x.produce(p, topic, "pending")
	if _, err := x.kafka.AbortTransaction(x.ctx(), topic, 0, 0); err != nil {
		t.Fatal(err)
	}
	ptrs := x.stable(topic)
	if ptrs.HighWatermark != 2 {
		t.Errorf("pointers %+v, want the record and an ABORT marker", ptrs)
	}
	log, err := x.ins.ReadLog(x.ctx(), topic, 0, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Entries) != 2 || log.Entries[0].Txn != inspect.TxnAborted || log.Entries[1].Marker != inspect.MarkerAbort {
		t.Errorf("log after the abort: %+v", log.Entries)
	}
	pp, err := x.kafka.DescribeProducers(x.ctx(), topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.Producers) != 1 || pp.Producers[0].CurrentTransactionStartOffset != -1 {
		t.Errorf("embedded broker after the abort: %+v, want its producer listed with no transaction open", pp)
	}
}
