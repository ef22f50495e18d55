package lab

import (
	"context"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// The explorer's use cases: what a Kafka engineer looks for first — every
// topic with its partitions and configurations, a partition at a glance
// (the map), search and seek, the consumer groups with both lags, the
// transactions and producers a partition holds, the hanging ones.

// AllTopics lists every topic, Kafka's internal ones too.
func (l *Lab) AllTopics(ctx context.Context) ([]cluster.TopicInfo, error) {
	topics, err := l.cluster.AllTopics(ctx)
	if topics == nil && err == nil {
		topics = []cluster.TopicInfo{}
	}
	return topics, l.notAllowed(err, "DESCRIBE", "topics", "*")
}

// TopicDetail is a topic with its configurations and, per partition, the
// transactions open on it.
type TopicDetail struct {
	cluster.TopicInfo
	Partitions []PartitionDetail     `json:"partitions"`
	Configs    []cluster.TopicConfig `json:"configs"`
	// ConfigsUnread says why the configurations could not be read
	// (DESCRIBE_CONFIGS refused, say); OpenUnread why the open
	// transactions could not be counted (DescribeProducers needs READ).
	// Each is nil when its part was read: one missing right leaves the
	// rest of the answer standing.
	ConfigsUnread *Unread `json:"configsUnread,omitempty"`
	OpenUnread    *Unread `json:"openTransactionsUnread,omitempty"`
}

// Unread says why one part of an answer could not be read while the rest
// was: the English sentence, its catalogue key and arguments (as an error
// answer carries them).
type Unread struct {
	Error string       `json:"error"`
	Code  string       `json:"code"`
	Args  catalog.Args `json:"args,omitempty"`
}

// unread is err as an Unread.
func unread(err error) *Unread {
	p := problem.As(err)
	return &Unread{Error: p.Error(), Code: p.Message.Key, Args: p.Message.Args}
}

// Message is the sentence as a catalogue message.
func (u *Unread) Message() catalog.Message { return catalog.Message{Key: u.Code, Args: u.Args} }

// PartitionDetail is a partition's placement and pointers and how many
// transactions are open on it (-1: the broker did not say).
type PartitionDetail struct {
	cluster.PartitionInfo
	OpenTransactions int `json:"openTransactions"`
}

// maxDescribedPartitions bounds the DescribeProducers requests of one
// TopicDetail; partitions beyond it report OpenTransactions -1.
const maxDescribedPartitions = 64

// TopicDetail describes a topic: every partition's leader, replicas, ISR,
// log start, LSO, high watermark and open transactions, and the topic's
// configurations with their source. Cost: one metadata, three ListOffsets,
// one DescribeConfigs and one DescribeProducers per partition (at most 64).
// Only the topic's description is needed: a refused DescribeConfigs or
// DescribeProducers leaves its part empty and says why (ConfigsUnread,
// OpenUnread).
func (l *Lab) TopicDetail(ctx context.Context, name string) (TopicDetail, error) {
	t, err := l.Topic(ctx, name)
	if err != nil {
		return TopicDetail{}, err
	}
	d := TopicDetail{TopicInfo: t, Partitions: make([]PartitionDetail, len(t.Partitions))}
	for i, p := range t.Partitions {
		d.Partitions[i] = PartitionDetail{PartitionInfo: p, OpenTransactions: -1}
		if i >= maxDescribedPartitions {
			continue
		}
		if d.OpenUnread != nil {
			continue // refused once, refused for every partition
		}
		pp, err := l.cluster.DescribeProducers(ctx, name, p.Partition)
		if err != nil {
			d.OpenUnread = unread(l.notAllowed(err, "READ", "topic", name))
		} else {
			open := 0
			for _, s := range pp.Producers {
				if s.CurrentTransactionStartOffset >= 0 {
					open++
				}
			}
			d.Partitions[i].OpenTransactions = open
		}
	}
	configs, err := l.cluster.TopicConfigs(ctx, name)
	if err != nil {
		d.Configs, d.ConfigsUnread = []cluster.TopicConfig{}, unread(l.notAllowed(err, "DESCRIBE_CONFIGS", "topic", name))
		return d, nil
	}
	d.Configs = configs
	return d, nil
}

// DeleteTopic deletes a topic and everything it holds (a write).
func (l *Lab) DeleteTopic(ctx context.Context, name string) error {
	if err := l.writable(); err != nil {
		return err
	}
	if err := l.cluster.DeleteTopic(ctx, name); err != nil {
		return l.notAllowed(err, "DELETE", "topic", name)
	}
	l.hub.Forget(name)
	l.narrate(live.EventWarning, "", 0, "narration.topicDeleted", "topic", name)
	return nil
}

// Map counts a partition's offsets by kind over equal ranges (see
// inspect.Inspector.MapPartition).
func (l *Lab) Map(ctx context.Context, topic string, partition int32, req inspect.MapRequest) (*inspect.PartitionMap, error) {
	m, err := l.inspector.MapPartition(ctx, topic, partition, req)
	return m, l.notAllowed(err, "READ", "topic", topic)
}

// Jump finds the next (or previous) offset of a kind (see
// inspect.Inspector.Jump).
func (l *Lab) Jump(ctx context.Context, topic string, partition int32, req inspect.JumpRequest) (*inspect.JumpResult, error) {
	j, err := l.inspector.Jump(ctx, topic, partition, req)
	return j, l.notAllowed(err, "READ", "topic", topic)
}

// Search finds records by key, value, header or JSON field (see
// inspect.Inspector.Search).
func (l *Lab) Search(ctx context.Context, topic string, partition int32, req inspect.SearchRequest) (*inspect.SearchResult, error) {
	r, err := l.inspector.Search(ctx, topic, partition, req)
	return r, l.notAllowed(err, "READ", "topic", topic)
}

// OffsetForTime is the first offset whose timestamp is at or after ms.
func (l *Lab) OffsetForTime(ctx context.Context, topic string, partition int32, ms int64) (inspect.TimestampOffset, error) {
	o, err := l.inspector.OffsetForTimestamp(ctx, topic, partition, ms)
	return o, l.notAllowed(err, "DESCRIBE", "topic", topic)
}

// Groups lists the consumer groups.
func (l *Lab) Groups(ctx context.Context) ([]cluster.GroupSummary, error) {
	g, err := l.cluster.ListGroups(ctx)
	return g, l.notAllowed(err, "DESCRIBE", "groups", "*")
}

// GroupDetail describes a group: members and their assignments, and per
// partition the committed offset, log end, offset lag and record lag
// (records a read_committed consumer would still receive), and where an
// open transaction holds the LSO above the committed offset, what holds
// it and how many records wait behind it (GroupOffset.Held).
func (l *Lab) GroupDetail(ctx context.Context, name string) (cluster.GroupDetail, error) {
	g, err := l.cluster.DescribeGroup(ctx, name, l.inspector)
	if err != nil {
		return g, l.notAllowed(err, "DESCRIBE", "group", name)
	}
	l.explainHeld(ctx, &g)
	return g, nil
}

// Transactions lists the transactional ids the coordinators know, in the
// given states (all when none).
func (l *Lab) Transactions(ctx context.Context, states ...string) ([]cluster.TransactionSummary, error) {
	t, err := l.cluster.ListTransactions(ctx, states...)
	return t, l.notAllowed(err, "DESCRIBE", "transactional ids", "*")
}

// Producers describes the producers with state on a partition, hanging
// transactions flagged as kafka-transactions.sh find-hanging flags them.
func (l *Lab) Producers(ctx context.Context, topic string, partition int32) (cluster.PartitionProducers, error) {
	p, err := l.cluster.DescribeProducers(ctx, topic, partition)
	return p, l.notAllowed(err, "READ", "topic", topic)
}

// AbortTransaction aborts the transaction open at startOffset of a
// partition, as kafka-transactions.sh abort does: for a hanging one,
// whose producer will never end it (a write).
func (l *Lab) AbortTransaction(ctx context.Context, topic string, partition int32, startOffset int64) (cluster.AbortedTransaction, error) {
	if err := l.writable(); err != nil {
		return cluster.AbortedTransaction{}, err
	}
	if _, err := l.partition(ctx, topic, partition); err != nil {
		return cluster.AbortedTransaction{}, err
	}
	l.record(ctx, topic, []int32{partition})
	a, err := l.cluster.AbortTransaction(ctx, topic, partition, startOffset)
	l.record(ctx, topic, []int32{partition})
	if err != nil {
		if problem.KindOf(err) == problem.Forbidden {
			// WriteTxnMarkers is authorized as ALTER on the cluster
			// (or CLUSTER_ACTION), not as a write to the topic.
			return a, l.notAllowed(err, "ALTER", "cluster", "kafka-cluster")
		}
		return a, err
	}
	l.narrateAt(live.EventAbort, topic, partition, -1, catalogAbort(topic, partition, startOffset))
	return a, nil
}

// catalogAbort is the narration of an administrator's abort.
func catalogAbort(topic string, partition int32, startOffset int64) catalog.Message {
	return catalog.M("narration.adminAbort", "topic", topic, "partition", strconv.Itoa(int(partition)), "offset", strconv.FormatInt(startOffset, 10))
}
