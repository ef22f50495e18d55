package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
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
