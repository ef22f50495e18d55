package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// initProducerID sends one InitProducerId as cl (transactional when txid
// is set) and returns the answer.
func initProducerID(ctx context.Context, t *testing.T, cl *kgo.Client, txid string) *kmsg.InitProducerIDResponse {
	t.Helper()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.ProducerID, req.ProducerEpoch = -1, -1
	if txid != "" {
		req.TransactionalID, req.TransactionTimeoutMillis = &txid, 60000
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestStudentProducerIDsCappedAndExpired: a classroom student's loop of
// InitProducerId holds at most their cap of producer ids: past it the
// broker answers THROTTLING_QUOTA_EXCEEDED with a throttle time, though
// re-initialising a transactional id they hold still works; their ids
// expire once unused for the classroom's expiration, which frees the
// cap (a franz-go idempotent producer of theirs then writes) and
// shrinks pids.log. The dashboard's super user has no cap. Red without
// kfake's patch 24: the loop got a producer id every time, and nothing
// ever expired.
func TestStudentProducerIDsCappedAndExpired(t *testing.T) {
	t.Parallel()
	const capIDs, expiration = 5, 4 * time.Second
	dir := t.TempDir()
	c, b := classroomWithStudents(t, Config{DataDir: dir, Students: &StudentAuth{MaxProducerIDs: capIDs, ProducerIDExpiration: expiration}}, nil, "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, "student-ann-own"); err != nil {
		t.Fatal(err)
	}
	pidsLog := func() int64 {
		info, err := os.Stat(filepath.Join(dir, "pids.log"))
		if err != nil {
			return 0
		}
		return info.Size()
	}

	// The loop stops at the first refusal: kgo then waits out the
	// throttle time before its next request on the connection.
	ann := kafkaUser(t, c, "ann", "pw")
	if resp := initProducerID(ctx, t, ann, "student-ann-tx"); resp.ErrorCode != 0 {
		t.Fatalf("ann's transactional id: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	granted := 1
	var refused *kmsg.InitProducerIDResponse
	for refused == nil && granted <= 10*capIDs {
		resp := initProducerID(ctx, t, ann, "")
		switch resp.ErrorCode {
		case 0:
			granted++
		case kerr.ThrottlingQuotaExceeded.Code:
			refused = resp
		default:
			t.Fatalf("InitProducerId: %v", kerr.ErrorForCode(resp.ErrorCode))
		}
	}
	held := b.fake.ProducerIDs()["ann"]
	if refused == nil {
		t.Fatalf("a loop of InitProducerId got %d producer ids, never refused; ann holds %d (cap %d)", granted, held, capIDs)
	}
	t.Logf("InitProducerId loop: %d granted, then THROTTLING_QUOTA_EXCEEDED (throttle %d ms); ann holds %d; pids.log %d bytes", granted, refused.ThrottleMillis, held, pidsLog())
	if granted != capIDs || held != capIDs || refused.ThrottleMillis <= 0 || refused.ProducerID != -1 {
		t.Errorf("granted %d, held %d, refusal %+v; want %d, %d and a throttle time without an id", granted, held, refused, capIDs, capIDs)
	}
	again := kafkaUser(t, c, "ann", "pw") // a new connection, not throttled by kgo
	if resp := initProducerID(ctx, t, again, "student-ann-tx"); resp.ErrorCode != 0 {
		t.Errorf("re-initialising ann's own transactional id at her cap: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	teacher := kafkaUser(t, c, "admin", "secret")
	for range capIDs + 1 {
		if resp := initProducerID(ctx, t, teacher, ""); resp.ErrorCode != 0 {
			t.Fatalf("the super user's InitProducerId: %v", kerr.ErrorForCode(resp.ErrorCode))
		}
	}

	// Unused for the expiration, ann's ids are gone, and a producer of
	// hers gets one again.
	before := pidsLog()
	deadline := time.Now().Add(expiration + 10*time.Second)
	for b.fake.ProducerIDs()["ann"] > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // the broker's own clock: nothing to wait on
	}
	if n := b.fake.ProducerIDs()["ann"]; n != 0 {
		t.Fatalf("ann holds %d producer ids %v after they were last used; want 0", n, expiration)
	}
	after := pidsLog()
	t.Logf("after %v unused: ann holds 0; pids.log %d bytes (was %d)", expiration, after, before)
	if after >= before {
		t.Errorf("pids.log %d bytes after expiry; want less than %d", after, before)
	}
	producer := kafkaUser(t, c, "ann", "pw", kgo.DefaultProduceTopic("student-ann-own"))
	if err := producer.ProduceSync(ctx, kgo.StringRecord("after expiry")).FirstErr(); err != nil {
		t.Errorf("ann's idempotent producer after her ids expired: %v", err)
	}
}

// TestRefusedBatchesMakeNoProducerIDs: a classroom student whose data
// share is used up cannot make producer state by producing batches of
// ever new producer ids, which the broker refuses: each id made for a
// refused batch is forgotten again. Red without it (kfake patch 24,
// 00_produce.go): every refused batch left a producer id behind,
// outside the cap on InitProducerId.
func TestRefusedBatchesMakeNoProducerIDs(t *testing.T) {
	t.Parallel()
	const batches = 20
	c, b := classroomWithStudents(t, Config{Budget: DataBudget{MaxBytes: 8 << 20, StudentMaxBytes: 64}}, nil, "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const topic = "student-ann-own"
	created, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic)
	if err != nil {
		t.Fatal(err)
	}
	ann := kafkaUser(t, c, "ann", "pw")
	for i := range int64(batches) {
		req := kmsg.NewPtrProduceRequest()
		req.Acks, req.TimeoutMillis = -1, 5000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic, rt.TopicID = topic, created.ID
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Records = recordBatch(1000+i, 0, false, []byte("k"), []byte("v"))
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, ann)
		if err != nil {
			t.Fatal(err)
		}
		if code := resp.Topics[0].Partitions[0].ErrorCode; code != kerr.PolicyViolation.Code {
			t.Fatalf("batch %d: %v; want POLICY_VIOLATION (the share is used)", i, kerr.ErrorForCode(code))
		}
	}
	if n := b.fake.ProducerIDs()["ann"]; n != 0 {
		t.Errorf("ann holds %d producer ids after %d refused batches of new ids; want 0", n, batches)
	}
}
