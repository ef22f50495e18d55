package embedded

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// TestAnswersJavaClientsRead checks the rewrites the Java admin client
// needs: a created topic's configs and a partition's eligible-leader-replica
// lists come back as lists, never null (kafka-topics --create and
// --describe die on a null).
func TestAnswersJavaClientsRead(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	create := kmsg.NewPtrCreateTopicsRequest()
	create.SetVersion(7)
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = "java-admin", 2, 1
	create.Topics = append(create.Topics, rt)
	resp, err := c.Client().Request(ctx, create)
	if err != nil {
		t.Fatal(err)
	}
	created := resp.(*kmsg.CreateTopicsResponse)
	if len(created.Topics) != 1 || created.Topics[0].ErrorCode != 0 || created.Topics[0].Configs == nil {
		t.Fatalf("CreateTopics v7: %+v; want the topic created with a configs list (empty, not null)", created.Topics)
	}

	describe := kmsg.NewPtrDescribeTopicPartitionsRequest()
	dt := kmsg.NewDescribeTopicPartitionsRequestTopic()
	dt.Topic = "java-admin"
	describe.Topics = append(describe.Topics, dt)
	resp, err = c.Client().Request(ctx, describe)
	if err != nil {
		t.Fatal(err)
	}
	described := resp.(*kmsg.DescribeTopicPartitionsResponse)
	if len(described.Topics) != 1 || len(described.Topics[0].Partitions) != 2 {
		t.Fatalf("DescribeTopicPartitions: %+v; want one topic of two partitions", described.Topics)
	}
	for _, p := range described.Topics[0].Partitions {
		if p.EligibleLeaderReplicas == nil || p.LastKnownELR == nil {
			t.Errorf("partition %d: EligibleLeaderReplicas %v, LastKnownELR %v; want empty lists, not null", p.Partition, p.EligibleLeaderReplicas, p.LastKnownELR)
		}
	}
}

// TestGroupDescriptionsAsKafka checks that a member's host reads as Kafka
// prints it and that a KIP-848 group names its assignor and its assigned
// topics, in DescribeGroups (classic) and ConsumerGroupDescribe.
func TestGroupDescriptionsAsKafka(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: "members", Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Group, hb.MemberID, hb.MemberEpoch, hb.RebalanceTimeoutMillis = "kip848", "m1", 0, 30000
	hb.SubscribedTopicNames = []string{"members"}
	hb.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	if resp, err := hb.RequestWith(ctx, c.Client()); err != nil || resp.ErrorCode != 0 {
		t.Fatalf("ConsumerGroupHeartbeat: %v %+v", err, resp)
	}
	describe := kmsg.NewPtrConsumerGroupDescribeRequest()
	describe.Groups = []string{"kip848"}
	var got *kmsg.ConsumerGroupDescribeResponse
	err := wait.Until(ctx, 10*time.Millisecond, func(ctx context.Context) (bool, error) {
		var err error
		got, err = describe.RequestWith(ctx, c.Client())
		return err == nil && len(got.Groups) == 1 && len(got.Groups[0].Members) == 1 && len(got.Groups[0].Members[0].TargetAssignment.TopicPartitions) == 1, nil
	})
	if err != nil {
		t.Fatalf("ConsumerGroupDescribe never showed the member's assignment: %v %+v", err, got)
	}
	g := got.Groups[0]
	m := g.Members[0]
	if g.AssignorName != "uniform" || m.ClientHost != "/127.0.0.1" || m.TargetAssignment.TopicPartitions[0].Topic != "members" {
		t.Errorf("ConsumerGroupDescribe: assignor %q, host %q, assigned topic %q; want uniform, /127.0.0.1, members",
			g.AssignorName, m.ClientHost, m.TargetAssignment.TopicPartitions[0].Topic)
	}

	classic, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumerGroup("classic"), kgo.ConsumeTopics("members"))
	if err != nil {
		t.Fatal(err)
	}
	defer classic.Close()
	if err := classic.ProduceSync(ctx, &kgo.Record{Topic: "members", Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	classic.PollFetches(ctx) // joins the group and returns with the record
	var groups kadm.DescribedGroups
	err = wait.Until(ctx, 10*time.Millisecond, func(ctx context.Context) (bool, error) {
		groups, err = kadm.NewClient(c.Client()).DescribeGroups(ctx, "classic")
		return err == nil && len(groups["classic"].Members) == 1, nil
	})
	if err != nil {
		t.Fatalf("DescribeGroups never listed the classic member: %v %+v", err, groups)
	}
	if host := groups["classic"].Members[0].ClientHost; host != "/127.0.0.1" {
		t.Errorf("DescribeGroups: member host %q, want /127.0.0.1", host)
	}

	// kafka-consumer-groups.sh --list: the Java admin client filters by
	// type as it spells the types.
	list := kmsg.NewPtrListGroupsRequest()
	list.TypesFilter = []string{"Classic", "Consumer"}
	listed, err := list.RequestWith(ctx, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range listed.Groups {
		names = append(names, g.Group)
		if g.ProtocolType != "consumer" {
			t.Errorf("ListGroups: %s's protocol type %q, want consumer", g.Group, g.ProtocolType)
		}
	}
	if slices.Sort(names); !slices.Equal(names, []string{"classic", "kip848"}) {
		t.Errorf("ListGroups with types Classic, Consumer: %v, want classic and kip848", names)
	}
}

// TestApiVersionsListsSaslHandshakeFromZero: ApiVersions lists
// SaslHandshake 0–1 as Kafka 4.3.1 does, at a flexible version and at
// version 0, so that librdkafka before 2.10 (kcat 1.7.1) does SASL at all
// (e2e TestHandsOnKcatStarters authenticates with it).
func TestApiVersionsListsSaslHandshakeFromZero(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	for _, version := range []int16{0, 3} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req := kmsg.NewPtrApiVersionsRequest()
		req.SetVersion(version)
		req.ClientSoftwareName, req.ClientSoftwareVersion = "offsetlab-test", "1"
		resp, err := c.Client().Request(ctx, req)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		versions := resp.(*kmsg.ApiVersionsResponse)
		i := slices.IndexFunc(versions.ApiKeys, func(k kmsg.ApiVersionsResponseApiKey) bool { return k.ApiKey == int16(kmsg.SASLHandshake) })
		if versions.ErrorCode != 0 || i < 0 || versions.ApiKeys[i].MinVersion != 0 || versions.ApiKeys[i].MaxVersion != 1 {
			t.Fatalf("ApiVersions v%d: error %d, SaslHandshake %+v; want versions 0–1", version, versions.ErrorCode, versions.ApiKeys[max(i, 0)])
		}
		if len(versions.ApiKeys) < 40 {
			t.Errorf("ApiVersions v%d lists %d keys: the rewrite lost some", version, len(versions.ApiKeys))
		}
	}
}

// TestShareFetchRecordsNeverNull: a ShareFetch v1+ answer for a partition
// with nothing to deliver carries empty records, as Kafka's does (the Java
// share consumer dies on null); v0, where Kafka allows null, is left alone.
func TestShareFetchRecordsNeverNull(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version int16
		want    bool // records made empty
	}{
		{0, false},
		{1, true},
		{2, true},
	}
	for _, tt := range tests {
		req := kmsg.NewPtrShareFetchRequest()
		req.SetVersion(tt.version)
		resp := kmsg.NewPtrShareFetchResponse()
		rt := kmsg.NewShareFetchResponseTopic()
		rt.Partitions = append(rt.Partitions, kmsg.NewShareFetchResponseTopicPartition(), kmsg.ShareFetchResponseTopicPartition{Records: []byte{1}})
		resp.Topics = append(resp.Topics, rt)
		changed := fixShareFetch(req, resp)
		p := resp.Topics[0].Partitions
		if changed != tt.want || (p[0].Records != nil) != tt.want || len(p[1].Records) != 1 {
			t.Errorf("v%d: changed %v, records %v and %v", tt.version, changed, p[0].Records, p[1].Records)
		}
	}
}
