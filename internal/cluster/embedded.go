package cluster

import (
	"context"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// EmbeddedBroker is what a Cluster reports of the in-process broker it
// runs on beyond what the Kafka protocol tells: its data budget, a share
// group's exact state, a classroom student's shares, its caps. The
// package internal/embedded starts the broker and implements it; this
// package never knows how (it never imports kfake).
type EmbeddedBroker interface {
	// Budget is the data budget and what the stored data costs now.
	Budget() BudgetStatus
	// SharePartition is the broker's exact state of group on
	// topic/partition for the offsets [from, from+limit); false when the
	// group has no state there.
	SharePartition(group, topic string, partition int32, from int64, limit int) (SharePartition, bool)
	// StudentShare is student's use of their shares; false when it
	// cannot be counted.
	StudentShare(ctx context.Context, student string) (StudentShare, bool)
	// TopicCaps are the topics and partitions the broker holds at most.
	TopicCaps() (maxTopics, maxPartitions int)
	// Close persists the broker's state and stops it.
	Close()
}

// EmbeddedConfig is an embedded broker already serving, as
// internal/embedded hands it to OnEmbedded.
type EmbeddedConfig struct {
	// Brokers are the addresses the broker bound.
	Brokers []string
	// Auth are the client options of the dashboard's clients (a
	// classroom's super user); Security describes them for the page.
	Auth     []kgo.Opt
	Security Security
	// Broker is the broker itself, which the Cluster closes last.
	Broker EmbeddedBroker
}

// OnEmbedded is a Cluster of the embedded broker cfg describes. The
// Cluster owns the broker from then on: its Close closes the broker after
// its own clients. On failure the broker is left to the caller.
func OnEmbedded(cfg EmbeddedConfig) (*Cluster, error) {
	return newCluster(&Cluster{mode: Embedded, brokers: cfg.Brokers, auth: cfg.Auth, security: cfg.Security, broker: cfg.Broker})
}

// StudentShare is what a classroom student holds of their shares on the
// embedded broker, as their page shows it.
type StudentShare struct {
	UsedBytes     int64 `json:"usedBytes"`
	MaxBytes      int64 `json:"maxBytes"`
	Topics        int   `json:"topics"`
	MaxTopics     int   `json:"maxTopics"`
	Partitions    int   `json:"partitions"`
	MaxPartitions int   `json:"maxPartitions"`
	// Full says that the student's next write or topic may be refused.
	Full bool `json:"full"`
	// ProducerIDs are the producer ids the student holds and
	// MaxProducerIDs their cap; ProducerIDsFull says a new producer of
	// theirs is throttled until one of them expires.
	ProducerIDs     int  `json:"producerIDs"`
	MaxProducerIDs  int  `json:"maxProducerIDs"`
	ProducerIDsFull bool `json:"producerIDsFull"`
}

// StudentShare is student's use of their shares; ok is false on a real
// cluster (its quotas are its owner's) or when the count fails. It costs
// one metadata request.
func (c *Cluster) StudentShare(ctx context.Context, student string) (StudentShare, bool) {
	if c.broker == nil {
		return StudentShare{}, false
	}
	return c.broker.StudentShare(ctx, student)
}

// EmbeddedSharePartition is the embedded broker's exact state of group on
// topic/partition for the offsets [from, from+limit); ok is false when
// the cluster is not embedded or the group has no state there. It copies
// at most limit offsets, however many are in flight.
func (c *Cluster) EmbeddedSharePartition(group, topic string, partition int32, from int64, limit int) (SharePartition, bool) {
	if c.broker == nil {
		return SharePartition{}, false
	}
	return c.broker.SharePartition(group, topic, partition, from, limit)
}

// Budget is the embedded broker's data budget and what its stored data
// costs now; false for a real cluster, which has none of ours.
func (c *Cluster) Budget() (BudgetStatus, bool) {
	if c.broker == nil {
		return BudgetStatus{}, false
	}
	return c.broker.Budget(), true
}

// BudgetStatus is the data budget as the page shows it.
type BudgetStatus struct {
	// UsedBytes is what the stored data costs; MaxBytes the budget;
	// ClientMaxBytes each other host's share.
	UsedBytes      int64 `json:"usedBytes"`
	MaxBytes       int64 `json:"maxBytes"`
	ClientMaxBytes int64 `json:"clientMaxBytes"`
	// StudentMaxBytes is each classroom student's share.
	StudentMaxBytes int64 `json:"studentMaxBytes"`
	// SegmentBytes and Batches are what the cost is made of.
	SegmentBytes int64 `json:"segmentBytes"`
	Batches      int64 `json:"batches"`
	// Full says that less than FullMarginBytes (or, for a budget under
	// 16 MiB, a sixteenth of it) remain: a producer's next batch may be
	// refused.
	Full bool `json:"full"`
}

// FullMarginBytes is how close to the budget it counts as full: one
// producer batch of Kafka's default max.message.bytes.
const FullMarginBytes = 1 << 20

// StudentOwner is the student whose namespace topic is in ("ann" of
// "student-ann-commit"), "" outside the namespace.
func StudentOwner(topic string) string {
	if !InStudentNamespace(topic) {
		return ""
	}
	name, _, ok := strings.Cut(topic[len(StudentNamespace):], "-")
	if !ok {
		return ""
	}
	return name
}
