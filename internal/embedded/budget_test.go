package embedded

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// startBudgeted starts an embedded broker with a data directory and budget.
func startBudgeted(t *testing.T, budget DataBudget) (*cluster.Cluster, *syncBuffer) {
	t.Helper()
	c, _, logs := startBudgetedBroker(t, budget)
	return c, logs
}

// startBudgetedBroker is startBudgeted, which also returns the broker.
func startBudgetedBroker(t *testing.T, budget DataBudget) (*cluster.Cluster, *broker, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	c, b, err := start(Config{
		KafkaAddr: "127.0.0.1:0",
		DataDir:   t.TempDir(),
		Budget:    budget,
		Logger:    slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, b, logs
}

// clientFrom is a producer whose connections come from ip (another
// loopback address is another host to the guard); nil ip is this host.
func clientFrom(t *testing.T, c *cluster.Cluster, ip net.IP, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	d := &net.Dialer{Timeout: 3 * time.Second}
	if ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
		probe, err := d.Dial("tcp", c.Brokers()[0])
		if err != nil {
			t.Skipf("cannot dial from %s: %v", ip, err)
		}
		probe.Close()
	}
	opts = append([]kgo.Opt{kgo.SeedBrokers(c.Brokers()...), kgo.Dialer(d.DialContext),
		kgo.ProducerLinger(0), kgo.RecordRetries(3), kgo.RetryTimeout(5 * time.Second)}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// fill produces value-sized records one batch at a time until the broker
// refuses one, and returns how many were acknowledged and the refusal.
func fill(t *testing.T, cl *kgo.Client, topic string, value []byte, limit int) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range limit {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: value}).FirstErr(); err != nil {
			return i, err
		}
	}
	return limit, nil
}

func createTopicOn(t *testing.T, c *cluster.Cluster, topics ...string) {
	t.Helper()
	for _, topic := range topics {
		if _, err := c.Admin().CreateTopic(context.Background(), 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
}

// countRecords reads topic from the start and counts its records.
func countRecords(t *testing.T, c *cluster.Cluster, topic string, want int) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := 0
	for n < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		n += fs.NumRecords()
	}
	return n
}

// TestDataBudgetRefusesPastShares: a client on another host that floods
// the Kafka port is refused with POLICY_VIOLATION at its share, and keeps
// every record it was acknowledged; a second client still writes within
// its own share; this host's clients write past a share until the whole
// budget is full; deleting the flooder's topic gives its share and the
// budget back.
func TestDataBudgetRefusesPastShares(t *testing.T) {
	t.Parallel()
	const share = 256 << 10
	c, b, logs := startBudgetedBroker(t, DataBudget{MaxBytes: 2 << 20, ClientMaxBytes: share})
	createTopicOn(t, c, "flood", "other", "teacher")
	value := incompressible(4 << 10)
	cost := int64(len(value)) + 70 + BatchOverheadBytes // record and batch headers, roughly

	student := clientFrom(t, c, net.IPv4(127, 0, 0, 2))
	acked, err := fill(t, student, "flood", value, 1000)
	if !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("after %d records the flood ended with %v, want POLICY_VIOLATION", acked, err)
	}
	if max := int(share / cost); acked < max-2 || acked > max+1 {
		t.Errorf("the flood stored %d records of %d bytes, want about %d (a %d-byte share)", acked, len(value), max, share)
	}
	if got := countRecords(t, c, "flood", acked); got != acked {
		t.Errorf("%d records readable, %d were acknowledged", got, acked)
	}
	if !strings.Contains(logs.String(), "used its share of the data budget") {
		t.Errorf("the refusal is not logged:\n%s", logs.String())
	}

	other := clientFrom(t, c, net.IPv4(127, 0, 0, 3))
	if n, err := fill(t, other, "other", value, 10); err != nil {
		t.Fatalf("a second client was refused after %d records: %v", n, err)
	}

	// This host (the dashboard, the teacher) is not held to a share.
	teacher := clientFrom(t, c, nil)
	n, err := fill(t, teacher, "teacher", value, 1000)
	if !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("after %d records the teacher's writes ended with %v, want POLICY_VIOLATION", n, err)
	}
	if n*int(cost) < 2*share {
		t.Errorf("this host stored %d records, fewer than two shares", n)
	}
	status, ok := c.Budget()
	if !ok || !status.Full || status.UsedBytes > status.MaxBytes {
		t.Errorf("budget after the teacher filled it: %+v, want full and within the max", status)
	}

	// Deleting gives the budget back, and the student's share.
	before := status.UsedBytes
	if _, err := c.Admin().DeleteTopics(context.Background(), "flood"); err != nil {
		t.Fatal(err)
	}
	status, _ = c.Budget()
	if before-status.UsedBytes < int64(acked)*int64(len(value)) {
		t.Errorf("deleting the flood freed %d bytes of the budget, want at least %d", before-status.UsedBytes, acked*len(value))
	}
	if got := b.budget.clientShare("127.0.0.2"); got != 0 {
		t.Errorf("the student's share after deleting its topic: %d bytes, want 0", got)
	}
	createTopicOn(t, c, "flood-again")
	if n, err := fill(t, student, "flood-again", value, 5); err != nil {
		t.Errorf("the student was refused after %d records once its topic was deleted: %v", n, err)
	}
}

// TestDataBudgetStudentShareByIdentity: a classroom student's share is
// counted by their Kafka identity (their namespace), not by address:
// writing from two addresses (and from this host) does not double it. At
// the share the student is refused POLICY_VIOLATION with a message
// naming them; another student and the teacher still write; deleting the
// student's topic gives the share back. Red with shares by address: the
// second address wrote a second share.
func TestDataBudgetStudentShareByIdentity(t *testing.T) {
	t.Parallel()
	const share = 256 << 10
	c, logs := startBudgeted(t, DataBudget{MaxBytes: 4 << 20, StudentMaxBytes: share})
	createTopicOn(t, c, "student-ann-a", "student-ann-b", "student-bob-a", "lesson-orders-1a2b3c")
	value := incompressible(4 << 10)
	cost := int64(len(value)) + 70 + BatchOverheadBytes

	first, err := fill(t, clientFrom(t, c, net.IPv4(127, 0, 0, 2)), "student-ann-a", value, 1000)
	if !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("ann from 127.0.0.2: %d records then %v, want POLICY_VIOLATION", first, err)
	}
	second, err := fill(t, clientFrom(t, c, net.IPv4(127, 0, 0, 3)), "student-ann-b", value, 1000)
	if !errors.Is(err, kerr.PolicyViolation) || second > 1 {
		t.Errorf("ann from 127.0.0.3 after her share: %d records then %v, want POLICY_VIOLATION at once", second, err)
	}
	if n, err := fill(t, clientFrom(t, c, nil), "student-ann-b", value, 3); !errors.Is(err, kerr.PolicyViolation) {
		t.Errorf("ann from this host after her share: %d records then %v, want POLICY_VIOLATION", n, err)
	}
	if max := int(share / cost); first < max-2 || first > max+1 {
		t.Errorf("ann stored %d records, want about %d (a %d-byte share)", first, max, share)
	}
	if !strings.Contains(logs.String(), "student=ann") {
		t.Errorf("the refusal does not name the student:\n%s", logs.String())
	}
	if n, err := fill(t, clientFrom(t, c, net.IPv4(127, 0, 0, 2)), "student-bob-a", value, 10); err != nil {
		t.Errorf("bob, from ann's address, refused after %d records: %v", n, err)
	}
	if n, err := fill(t, clientFrom(t, c, nil), "lesson-orders-1a2b3c", value, 10*int(share/cost)); err != nil {
		t.Errorf("the teacher refused after %d records: %v", n, err)
	}
	if _, err := c.Admin().DeleteTopics(context.Background(), "student-ann-a"); err != nil {
		t.Fatal(err)
	}
	if n, err := fill(t, clientFrom(t, c, net.IPv4(127, 0, 0, 3)), "student-ann-b", value, 5); err != nil {
		t.Errorf("ann refused after %d records once her topic was deleted: %v", n, err)
	}
}

// TestDataBudgetIdempotentRetryAfterRefusal: a refused batch leaves the
// idempotent producer's sequence as it was, so once space is freed the
// same producer's next batch is stored and read back — not answered as a
// duplicate of a batch that was never stored.
func TestDataBudgetIdempotentRetryAfterRefusal(t *testing.T) {
	t.Parallel()
	c, _ := startBudgeted(t, DataBudget{MaxBytes: 1 << 20, ClientMaxBytes: 1 << 20})
	createTopicOn(t, c, "filler", "kept")
	teacher := clientFrom(t, c, nil)
	big := incompressible(64 << 10)
	if _, err := fill(t, teacher, "filler", big, 100); !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("filling the budget ended with %v, want POLICY_VIOLATION", err)
	}

	// A raw idempotent produce, so the sequence is ours to repeat.
	topics, err := c.Admin().ListTopics(context.Background(), "kept")
	if err != nil {
		t.Fatal(err)
	}
	keptID := topics["kept"].ID
	req := func(seq int32) *kmsg.ProduceRequest {
		rec := kmsg.Record{Value: incompressible(128 << 10)}
		rec.Length = int32(len(rec.AppendTo(nil)) - 1)
		b := kmsg.RecordBatch{Magic: 2, ProducerID: 77, ProducerEpoch: 0, FirstSequence: seq, NumRecords: 1, FirstTimestamp: time.Now().UnixMilli(), MaxTimestamp: time.Now().UnixMilli()}
		b.Records = rec.AppendTo(nil)
		p := kmsg.NewProduceRequestTopicPartition()
		p.Records = fixBatch(b.AppendTo(nil))
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic, rt.TopicID = "kept", keptID
		rt.Partitions = []kmsg.ProduceRequestTopicPartition{p}
		r := kmsg.NewPtrProduceRequest()
		r.Acks, r.TimeoutMillis, r.Topics = -1, 5000, []kmsg.ProduceRequestTopic{rt}
		return r
	}
	ask := func(seq int32) (int16, int64) {
		t.Helper()
		resp, err := req(seq).RequestWith(context.Background(), c.Client())
		if err != nil {
			t.Fatal(err)
		}
		p := resp.Topics[0].Partitions[0]
		return p.ErrorCode, p.BaseOffset
	}
	if code, _ := ask(0); code != kerr.PolicyViolation.Code {
		t.Fatalf("an idempotent batch past the budget: code %d, want POLICY_VIOLATION", code)
	}
	if _, err := c.Admin().DeleteTopics(context.Background(), "filler"); err != nil {
		t.Fatal(err)
	}
	code, offset := ask(0)
	if code != 0 || offset != 0 {
		t.Fatalf("the same batch once space was freed: code %d offset %d, want stored at 0", code, offset)
	}
	if got := countRecords(t, c, "kept", 1); got != 1 {
		t.Errorf("%d records readable in kept, want 1", got)
	}
}

// incompressible is n random bytes: what the broker stores of them is
// their size, whatever the client's compression.
func incompressible(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// fixBatch sets a v2 batch's length and CRC, which AppendTo writes as given.
func fixBatch(raw []byte) []byte {
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32c))
	return raw
}

// TestDataBudgetWriteFailed: a segment write that fails for want of space
// is refused as the budget refuses, not UNKNOWN_SERVER_ERROR, and gives
// the client's share back; another failure is KAFKA_STORAGE_ERROR.
func TestDataBudgetWriteFailed(t *testing.T) {
	t.Parallel()
	d := newDataBudget(DataBudget{MaxBytes: 1 << 20}.withDefaults(), newThrottledLog(nil, time.Second))
	remote := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 5000}
	local := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 9092}
	b := kfake.ProducedBatch{Remote: remote, Local: local, Topic: "t", Bytes: 1000, Records: 1}
	tests := []struct {
		name string
		err  error
		want int16
	}{
		{"no space left", &os.PathError{Op: "write", Path: "0.dat", Err: syscall.ENOSPC}, kerr.PolicyViolation.Code},
		{"another failure", &os.PathError{Op: "write", Path: "0.dat", Err: syscall.EIO}, kerr.KafkaStorageError.Code},
	}
	for _, tt := range tests {
		if code, _ := d.admit(b); code != 0 {
			t.Fatalf("%s: admit refused with %d", tt.name, code)
		}
		if got, _ := d.writeFailed(b, tt.err); got != tt.want {
			t.Errorf("%s: code %d, want %d", tt.name, got, tt.want)
		}
		if got := d.clientShare("10.0.0.5"); got != 0 {
			t.Errorf("%s: the client's share after the failed write: %d, want 0", tt.name, got)
		}
	}
}

// TestDataBudgetFullDisk: a produce whose segment write fails with ENOSPC
// (the segment file is /dev/full) is answered POLICY_VIOLATION, not
// UNKNOWN_SERVER_ERROR, and the broker keeps serving.
func TestDataBudgetFullDisk(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	dir := t.TempDir()
	logs := &syncBuffer{}
	c, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	createTopicOn(t, c, "full-disk", "fine")
	pdir := filepath.Join(dir, "partitions", "full-disk-0")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", filepath.Join(pdir, "0.dat")); err != nil {
		t.Fatal(err)
	}
	cl := clientFrom(t, c, nil, kgo.RecordRetries(0))
	_, err = fill(t, cl, "full-disk", []byte("no room"), 1)
	if !errors.Is(err, kerr.PolicyViolation) {
		t.Fatalf("a produce onto a full disk ended with %v, want POLICY_VIOLATION", err)
	}
	if !strings.Contains(logs.String(), "no space left") {
		t.Errorf("the full disk is not logged:\n%s", logs.String())
	}
	if n, err := fill(t, cl, "fine", []byte("room"), 3); err != nil {
		t.Errorf("another partition after the full disk: %d stored, %v", n, err)
	}
}
