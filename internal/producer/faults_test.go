package producer_test

import (
	"context"
	"encoding/binary"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Kafka API keys the tests look for.
const (
	keyOffsetCommit = 8
	keyEndTxn       = 26
)

// requestLog records the API key of every request a client writes, by
// reading the frames off its connections: what the broker was sent.
type requestLog struct {
	mu   sync.Mutex
	keys []int16
}

func (l *requestLog) dial(ctx context.Context, network, host string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	return &loggedConn{Conn: conn, log: l}, nil
}

func (l *requestLog) count(key int16) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, k := range l.keys {
		if k == key {
			n++
		}
	}
	return n
}

type loggedConn struct {
	net.Conn
	log     *requestLog
	mu      sync.Mutex
	pending []byte // bytes of a frame whose header is not complete yet
	skip    int    // bytes of the current frame still to pass
}

func (c *loggedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	for rest := p; len(rest) > 0; {
		if c.skip > 0 {
			n := min(c.skip, len(rest))
			c.skip -= n
			rest = rest[n:]
			continue
		}
		need := 6 - len(c.pending)
		n := min(need, len(rest))
		c.pending = append(c.pending, rest[:n]...)
		rest = rest[n:]
		if len(c.pending) == 6 {
			size := int(binary.BigEndian.Uint32(c.pending))
			c.log.mu.Lock()
			c.log.keys = append(c.log.keys, int16(binary.BigEndian.Uint16(c.pending[4:])))
			c.log.mu.Unlock()
			c.skip, c.pending = size-2, c.pending[:0]
		}
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func startEmbedded(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// values reads every record of partition 0 of topic, read_uncommitted.
func values(t *testing.T, ctx context.Context, c *cluster.Cluster, topic string) []string {
	t.Helper()
	cl, err := kgo.NewClient(append(c.ClientOpts(), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	info, err := c.Topic(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	end := info.Partitions[0].HighWatermark
	var out []string
	for int64(len(out)) < end {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %s: %d of %d records: %v", topic, len(out), end, err)
		}
		fetches.EachRecord(func(r *kgo.Record) { out = append(out, string(r.Value)) })
	}
	return out
}

// TestLostAckRetry: the lost-ACK fault drops the broker's answer to a
// stored batch, so the producer sends it again. An idempotent producer's
// retry is recognised by its sequence number and stored once; a plain
// producer's retry is a second record.
func TestLostAckRetry(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tests := []struct {
		name       string
		idempotent bool
		log        []string
		offset     int64 // what the producer is told
		pid        bool
	}{
		{"idempotent: deduplicated", true, []string{"pay"}, 0, true},
		{"not idempotent: a duplicate", false, []string{"pay", "pay"}, 1, false},
	}
	for _, tt := range tests {
		topic := "lost-ack-" + strings.Fields(tt.name)[0]
		topic = strings.TrimSuffix(topic, ":")
		if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
		idempotent := tt.idempotent
		out, err := producer.New(producer.Connection{Opts: c.ClientOpts()}).Produce(ctx, producer.Request{
			Topic: topic, Values: producer.Values("pay"), Fault: producer.LoseAck,
			Profile: producer.Profile{Acks: producer.AcksAll, Idempotent: &idempotent},
		})
		if err != nil {
			t.Fatal(err)
		}
		if !out.AckLost || len(out.AckLostAt) != 1 || out.AckLostAt[0].BaseOffset != 0 {
			t.Errorf("%s: ackLost %v at %+v, want the first batch's ACK lost, stored at 0", tt.name, out.AckLost, out.AckLostAt)
		}
		if len(out.Results) != 1 || out.Results[0].Offset == nil || *out.Results[0].Offset != tt.offset {
			t.Errorf("%s: results %+v, want the send acknowledged at %d", tt.name, out.Results, tt.offset)
		}
		if (out.ProducerID >= 0) != tt.pid {
			t.Errorf("%s: producer id %d", tt.name, out.ProducerID)
		}
		if got := values(t, ctx, c, topic); !slices.Equal(got, tt.log) {
			t.Errorf("%s: the log holds %q, want %q", tt.name, got, tt.log)
		}
	}
}

// TestCrashSendsNothing: a crash is SIGKILL — after it the broker gets no
// EndTxn and no offset commit. A transaction session's crash leaves its
// transaction Ongoing (the LSO held at its first record); the exactly-once
// processor crashing at O-2 has committed O-1's transaction only, and the
// group stays at O-2's offset.
func TestCrashSendsNothing(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, name := range []string{"crash-out", "orders", "totals"} {
		if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: name, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
	}

	var sessionLog requestLog
	sessions := producer.NewSessions(producer.Connection{Opts: c.ClientOpts(), Dial: sessionLog.dial}, producer.SessionLimits{})
	t.Cleanup(sessions.Close)
	if _, err := sessions.Begin(ctx, "crash-app"); err != nil {
		t.Fatal(err)
	}
	if _, err := sessions.Send(ctx, "crash-app", producer.Request{Topic: "crash-out", Values: producer.Values("half done")}); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Crash(ctx, "crash-app")
	if err != nil || !st.Crashed {
		t.Fatalf("Crash = %+v, %v", st, err)
	}
	sessions.Close()
	if n := sessionLog.count(keyEndTxn); n != 0 {
		t.Errorf("the crashed session sent %d EndTxn", n)
	}
	txn, err := c.Transaction(ctx, "crash-app")
	if err != nil || txn.State != "Ongoing" {
		t.Errorf("the crashed session's transaction: %+v, %v; want Ongoing", txn, err)
	}
	if info, err := c.Topic(ctx, "crash-out"); err != nil || info.Partitions[0].LastStableOffset != 0 || info.Partitions[0].HighWatermark != 1 {
		t.Errorf("crash-out after the crash: %+v, %v; want LSO 0 held below HW 1", info.Partitions, err)
	}

	if _, err := producer.New(producer.Connection{Opts: c.ClientOpts()}).Produce(ctx, producer.Request{
		Topic: "orders", Values: producer.Values(producer.SeedOrders()...), Profile: producer.Profile{Acks: producer.AcksAll},
	}); err != nil {
		t.Fatal(err)
	}
	var processorLog requestLog
	res, err := producer.NewProcessor(producer.Connection{Opts: c.ClientOpts(), Dial: processorLog.dial}).Run(ctx, producer.RunConfig{
		Mode: producer.Transactional, Input: "orders", Output: "totals", Group: "totals-tx", TransactionalID: "totals-app", CrashAt: "O-2",
	})
	if err != nil || !res.Crashed {
		t.Fatalf("the processor run: %+v, %v; want a crash at O-2", res, err)
	}
	if n := processorLog.count(keyEndTxn); n != 1 {
		t.Errorf("the processor sent %d EndTxn, want 1 (O-1's commit; none at the crash)", n)
	}
	if n := processorLog.count(keyOffsetCommit); n != 0 {
		t.Errorf("the exactly-once processor sent %d OffsetCommit outside its transactions", n)
	}
	if txn, err := c.Transaction(ctx, "totals-app"); err != nil || txn.State != "Ongoing" {
		t.Errorf("the crashed processor's transaction: %+v, %v; want Ongoing", txn, err)
	}
	group, err := c.Group(ctx, "totals-tx")
	if err != nil {
		t.Fatal(err)
	}
	if len(group.Offsets) != 1 || group.Offsets[0].Committed != 1 {
		t.Errorf("group totals-tx after the crash: %+v; want committed 1 (O-1's transaction only)", group.Offsets)
	}
}
