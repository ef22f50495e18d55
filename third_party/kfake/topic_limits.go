package kfake

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Offset Lab patch (see PATCHES.md): caps on the topics and partitions
// the cluster holds, refused as Apache Kafka's CreateTopics policy
// (create.topic.policy.class.name) refuses, with POLICY_VIOLATION and a
// message. Upstream kfake creates whatever it is asked for.

// TopicLimits caps the topics and the partitions, over all topics, that
// the cluster holds. A CreateTopics or CreatePartitions that would pass a
// cap is answered POLICY_VIOLATION for that topic, with a message saying
// which cap; a Metadata request that would auto-create a topic past a cap
// is answered POLICY_VIOLATION for that topic and creates nothing. Topics
// loaded from a data directory are kept even if they pass a cap. Zero or
// negative leaves that count unlimited.
func TopicLimits(maxTopics, maxPartitions int) Opt {
	return opt{func(cfg *cfg) { cfg.maxTopics, cfg.maxPartitions = maxTopics, maxPartitions }}
}

// topicLimitRefusal says why adding newTopics topics and newPartitions
// partitions would pass a TopicLimits cap, or "".
func (c *Cluster) topicLimitRefusal(newTopics, newPartitions int) string {
	if c.cfg.maxTopics <= 0 && c.cfg.maxPartitions <= 0 {
		return ""
	}
	topics, partitions := len(c.data.tps), 0
	for _, ps := range c.data.tps {
		partitions += len(ps)
	}
	switch {
	case c.cfg.maxTopics > 0 && newTopics > 0 && topics+newTopics > c.cfg.maxTopics:
		return fmt.Sprintf("the broker holds at most %d topics and has %d; delete topics to make room", c.cfg.maxTopics, topics)
	case c.cfg.maxPartitions > 0 && newPartitions > 0 && partitions+newPartitions > c.cfg.maxPartitions:
		return fmt.Sprintf("the broker holds at most %d partitions over all topics and has %d, so %d more do not fit; delete topics to make room", c.cfg.maxPartitions, partitions, newPartitions)
	}
	return ""
}

// topicLimitMessage is refusal as a response's ErrorMessage.
func topicLimitMessage(refusal string) *string {
	return kmsg.StringPtr("Topic limit: " + refusal)
}
