package embedded

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// classroomWithStudents starts a classroom's embedded broker (super user
// admin/secret, over cfg.Students' other fields) and adds each student,
// password "pw", reading shared.
func classroomWithStudents(t *testing.T, cfg Config, shared []string, students ...string) (*cluster.Cluster, *broker) {
	t.Helper()
	cfg.KafkaAddr = "127.0.0.1:0"
	auth := StudentAuth{}
	if cfg.Students != nil {
		auth = *cfg.Students
	}
	auth.Admin, auth.AdminPassword = "admin", "secret"
	cfg.Students = &auth
	c, b, err := start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, s := range students {
		if err := c.AddStudent(ctx, cluster.Student{User: s, Password: "pw", Prefix: cluster.StudentPrefix(s), SharedTopics: shared}); err != nil {
			t.Fatal(err)
		}
	}
	return c, b
}

// kafkaUser is a franz-go client of c logged in as user with SCRAM.
func kafkaUser(t *testing.T, c *cluster.Cluster, user, pass string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	opts = append([]kgo.Opt{kgo.SeedBrokers(c.Brokers()...), kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism())}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func memberID(t *testing.T) string {
	t.Helper()
	b := make([]byte, 11)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// joinConsumerGroup sends a KIP-848 join (ConsumerGroupHeartbeat, epoch
// 0) as cl and returns the answer.
func joinConsumerGroup(ctx context.Context, t *testing.T, cl *kgo.Client, group string, names []string, regex string) *kmsg.ConsumerGroupHeartbeatResponse {
	t.Helper()
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch = group, memberID(t), 0
	req.RebalanceTimeoutMillis = 45000
	req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	req.SubscribedTopicNames = names
	if regex != "" {
		req.SubscribedTopicRegex = &regex
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// joinShareGroup sends a KIP-932 join (ShareGroupHeartbeat, epoch 0).
func joinShareGroup(ctx context.Context, t *testing.T, cl *kgo.Client, group string, names []string) *kmsg.ShareGroupHeartbeatResponse {
	t.Helper()
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID, req.MemberID, req.MemberEpoch = group, memberID(t), 0
	req.SubscribedTopicNames = names
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestStudentGroupsNameOnlyTheirTopics: a classroom student's KIP-848
// and share group requests name no topic (and no topic id) they may not
// DESCRIBE: a regex resolves to their own topics and the shared ones, a
// subscription naming another student's topic is refused
// TOPIC_AUTHORIZATION_FAILED, and a description of a group that holds
// another student's topic (the teacher's super user joined it) is
// refused the same way, without its members. Red without kfake's
// patch 23: ann's regex was assigned bob's topic id, her subscription to
// bob's topic was accepted with it, and ConsumerGroupDescribe named it.
func TestStudentGroupsNameOnlyTheirTopics(t *testing.T) {
	t.Parallel()
	const shared, private, own, theirs = "stage-orders", "teacher-notes", "student-ann-own", "student-bob-secret"
	c, _ := classroomWithStudents(t, Config{}, []string{shared}, "ann", "bob")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, topic := range []string{shared, private, own, theirs} {
		if _, err := c.Admin().CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	topics, err := c.Admin().ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[[16]byte]string{}
	for _, d := range topics {
		names[d.ID] = d.Topic
	}
	ann := kafkaUser(t, c, "ann", "pw")
	teacher := kafkaUser(t, c, "admin", "secret")

	t.Run("ConsumerGroupHeartbeat regex", func(t *testing.T) {
		resp := joinConsumerGroup(ctx, t, ann, "student-ann-all", nil, ".*")
		if resp.ErrorCode != 0 {
			t.Fatalf("join: %v", kerr.ErrorForCode(resp.ErrorCode))
		}
		var got []string
		if resp.Assignment != nil {
			for _, tp := range resp.Assignment.Topics {
				name, ok := names[tp.TopicID]
				if !ok {
					name = "id " + hex.EncodeToString(tp.TopicID[:])
				}
				got = append(got, name)
			}
		}
		slices.Sort(got)
		if want := []string{shared, own}; !slices.Equal(got, want) {
			t.Errorf("regex .* assigned %q; want %q (her own and the shared topic)", got, want)
		}
	})
	t.Run("ConsumerGroupHeartbeat names", func(t *testing.T) {
		resp := joinConsumerGroup(ctx, t, ann, "student-ann-named", []string{own, theirs}, "")
		if resp.ErrorCode != kerr.TopicAuthorizationFailed.Code || resp.Assignment != nil && len(resp.Assignment.Topics) > 0 {
			t.Errorf("subscribing to %s: %v, assignment %+v; want TOPIC_AUTHORIZATION_FAILED and none", theirs, kerr.ErrorForCode(resp.ErrorCode), resp.Assignment)
		}
	})
	t.Run("ConsumerGroupDescribe", func(t *testing.T) {
		const group = "student-ann-mixed"
		if resp := joinConsumerGroup(ctx, t, teacher, group, []string{theirs}, ""); resp.ErrorCode != 0 {
			t.Fatalf("the teacher's join: %v", kerr.ErrorForCode(resp.ErrorCode))
		}
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(ctx, ann)
		if err != nil {
			t.Fatal(err)
		}
		g := resp.Groups[0]
		if g.ErrorCode != kerr.TopicAuthorizationFailed.Code || len(g.Members) > 0 {
			t.Errorf("describe %s: %v with %d members (%+v); want TOPIC_AUTHORIZATION_FAILED and none", group, kerr.ErrorForCode(g.ErrorCode), len(g.Members), g.Members)
		}
	})
	t.Run("ShareGroupHeartbeat names", func(t *testing.T) {
		resp := joinShareGroup(ctx, t, ann, "student-ann-share", []string{theirs})
		if resp.ErrorCode != kerr.TopicAuthorizationFailed.Code || resp.Assignment != nil && len(resp.Assignment.TopicPartitions) > 0 {
			t.Errorf("share-subscribing to %s: %v, assignment %+v; want TOPIC_AUTHORIZATION_FAILED and none", theirs, kerr.ErrorForCode(resp.ErrorCode), resp.Assignment)
		}
	})
	t.Run("ShareGroupDescribe", func(t *testing.T) {
		const group = "student-ann-share-mixed"
		if resp := joinShareGroup(ctx, t, teacher, group, []string{theirs}); resp.ErrorCode != 0 {
			t.Fatalf("the teacher's share join: %v", kerr.ErrorForCode(resp.ErrorCode))
		}
		req := kmsg.NewPtrShareGroupDescribeRequest()
		req.GroupIDs = []string{group}
		resp, err := req.RequestWith(ctx, ann)
		if err != nil {
			t.Fatal(err)
		}
		g := resp.Groups[0]
		if g.ErrorCode != kerr.TopicAuthorizationFailed.Code || len(g.Members) > 0 {
			t.Errorf("describe %s: %v with %d members; want TOPIC_AUTHORIZATION_FAILED and none", group, kerr.ErrorForCode(g.ErrorCode), len(g.Members))
		}
	})
}
