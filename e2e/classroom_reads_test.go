package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClassroomStudentReadsFollowKafkaRights: over HTTP a student reads
// what their Kafka user may read — their own topics, groups and
// transactions, the shared orders — plus the partition the teacher put
// on the stage, and nothing else: another student's log, records,
// topic, group and transaction answer 403 error.readNotYours, and the
// lists leave them out. Once the teacher stages the other student's
// partition, that partition (only) reads. The teacher reads everything.
func TestClassroomStudentReadsFollowKafkaRights(t *testing.T) {
	h := startHandsOn(t, embedded)
	h.writeOrders("O-1")
	ann, bob := h.join("ann"), h.join("bob")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	own := func(j *joined) (topic, group, txn string) {
		p := j.Kafka.Topic
		topic, group, txn = p+"commit", p+"g", p+"commit"
		cl := j.franz(t, kgo.TransactionalID(txn))
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		produceAll(t, cl, topic, "a")
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		offsets := kadm.Offsets{}
		offsets.Add(kadm.Offset{Topic: topic, Partition: 0, At: 1, LeaderEpoch: -1})
		if _, err := kadm.NewClient(j.franz(t)).CommitOffsets(ctx, group, offsets); err != nil {
			t.Fatal(err)
		}
		return topic, group, txn
	}
	annTopic, annGroup, annTxn := own(ann)
	bobTopic, bobGroup, bobTxn := own(bob)
	reads := func(topic, group, txn string) []string {
		return []string{
			"/api/topics/" + topic, "/api/topics/" + topic + "/partitions/0/log?from=0&limit=10",
			"/api/topics/" + topic + "/partitions/0/records", "/api/topics/" + topic + "/partitions/0/producers",
			"/topics/" + topic, "/topics/" + topic + "/partitions/0",
			"/api/groups/" + group, "/groups/" + group, "/api/transactions/" + txn,
		}
	}
	expect := func(who *client, path string, want int) {
		t.Helper()
		status, body, _ := who.get(path)
		if status != want || want == http.StatusForbidden && !strings.Contains(body, "readNotYours") {
			t.Errorf("GET %s: %d %.200s, want %d", path, status, body, want)
		}
	}
	for _, p := range reads(annTopic, annGroup, annTxn) {
		expect(ann.browser, p, http.StatusOK)
	}
	expect(ann.browser, "/api/topics/orders/partitions/0/log", http.StatusOK)
	for _, p := range reads(bobTopic, bobGroup, bobTxn) {
		expect(ann.browser, p, http.StatusForbidden)
	}
	for path, hidden := range map[string]string{"/api/topics": bobTopic, "/api/groups": bobGroup, "/api/transactions": bobTxn, "/topics": bobTopic, "/groups": bobGroup, "/transactions": bobTxn, "/transactions?topic=" + bobTopic: bobTxn} {
		status, body, _ := ann.browser.get(path)
		if status != http.StatusOK || strings.Contains(body, hidden) {
			t.Errorf("GET %s as ann: %d, lists %s: %.300s", path, status, hidden, body)
		}
	}

	teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
	for _, p := range reads(bobTopic, bobGroup, bobTxn) {
		expect(teacher, p, http.StatusOK)
	}
	if status, body := teacher.post("/api/classroom/stage", fmt.Sprintf(`{"topic":%q,"partition":0}`, bobTopic)); status != http.StatusOK {
		t.Fatalf("stage: %d %s", status, body)
	}
	expect(ann.browser, "/api/topics/"+bobTopic+"/partitions/0/log?from=0&limit=10", http.StatusOK)
	expect(ann.browser, "/topics/"+bobTopic+"/partitions/0", http.StatusOK)
	expect(ann.browser, "/api/topics/"+bobTopic+"/partitions/1/log", http.StatusForbidden)
	expect(ann.browser, "/api/groups/"+bobGroup, http.StatusForbidden)
}

// TestClassroomStudentShare: a student who creates, with their own
// client, the partitions of their share is refused the next topic with
// POLICY_VIOLATION and a message naming them, and their page's results
// say their share is used up; another student still creates. Red
// without the shares: the second topic was made.
func TestClassroomStudentShare(t *testing.T) {
	h := startHandsOn(t, embedded)
	ann, bob := h.join("ann"), h.join("bob")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adm := kadm.NewClient(ann.franz(t))
	if resp, err := adm.CreateTopic(ctx, 50, 1, nil, ann.Kafka.Topic+"big"); err != nil || resp.Err != nil {
		t.Fatalf("ann's 50 partitions: %v %v", err, resp.Err)
	}
	resp, err := adm.CreateTopic(ctx, 1, 1, nil, ann.Kafka.Topic+"more")
	if err == nil {
		err = resp.Err
	}
	if !errors.Is(err, kerr.PolicyViolation) || resp.ErrMessage == "" || !strings.Contains(resp.ErrMessage, "ann") {
		t.Errorf("ann's 51st partition: %v %q, want POLICY_VIOLATION naming her", err, resp.ErrMessage)
	}
	status, body, _ := ann.browser.get("/api/exercises/commit/results")
	if status != http.StatusOK || !strings.Contains(body, `"full":true`) {
		t.Errorf("ann's results: %d %s, want her share full", status, body)
	}
	if resp, err := kadm.NewClient(bob.franz(t)).CreateTopic(ctx, 3, 1, nil, bob.Kafka.Topic+"x"); err != nil || resp.Err != nil {
		t.Errorf("bob's topic: %v %v", err, resp.Err)
	}
}
