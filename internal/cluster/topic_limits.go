package cluster

import "fmt"

// TopicLimits caps what the embedded broker holds in topics and
// partitions, however they are asked for: CreateTopics or
// CreatePartitions from any Kafka client (the dashboard's own included),
// or a Metadata request that auto-creates a topic (kcat and Java
// producers do). Past a cap the broker answers POLICY_VIOLATION for that
// topic, as Apache Kafka's CreateTopics policy refuses, with a message
// that names the cap: kgo reports it as "POLICY_VIOLATION: Request
// parameters do not satisfy the configured policy", Kafka's admin tools
// print the message too, and Cluster.CreateTopic returns the conflict
// error.topicLimit. Nothing already created is
// removed; a teacher frees room by deleting topics. Each empty partition
// costs the broker a few KiB and the topics page a row, so the caps bound
// that memory and every list of topics.
type TopicLimits struct {
	// MaxTopics is how many topics the broker holds (default 1,000).
	MaxTopics int
	// MaxPartitions is how many partitions, over all topics, the broker
	// holds (default 5,000).
	MaxPartitions int
}

// Defaults of TopicLimits.
const (
	DefaultMaxTopics     = 1000
	DefaultMaxPartitions = 5000
)

// withDefaults fills zero fields with the defaults and rejects negative ones.
func (l TopicLimits) withDefaults() (TopicLimits, error) {
	if l.MaxTopics < 0 || l.MaxPartitions < 0 {
		return l, fmt.Errorf("cluster: topic limits must not be negative: %+v", l)
	}
	if l.MaxTopics == 0 {
		l.MaxTopics = DefaultMaxTopics
	}
	if l.MaxPartitions == 0 {
		l.MaxPartitions = DefaultMaxPartitions
	}
	return l, nil
}
