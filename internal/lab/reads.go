package lab

import (
	"context"
	"strings"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// ClusterStatus is what the dashboard says about the brokers.
type ClusterStatus struct {
	Mode    cluster.Mode `json:"mode"`
	Brokers []string     `json:"brokers"`
	// KafkaAddr is where Kafka clients should connect.
	KafkaAddr string `json:"kafkaAddr"`
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
}

// Status reports the brokers and whether one answers now.
func (l *Lab) Status(ctx context.Context) ClusterStatus {
	brokers := l.cluster.Brokers()
	s := ClusterStatus{Mode: l.cluster.Mode(), Brokers: brokers, KafkaAddr: strings.Join(brokers, ","), Reachable: true}
	if err := l.cluster.Ping(ctx); err != nil {
		s.Reachable, s.Error = false, err.Error()
	}
	return s
}

// Topics lists the topics with their partitions' placement and pointers.
func (l *Lab) Topics(ctx context.Context) ([]cluster.TopicInfo, error) {
	topics, err := l.cluster.Topics(ctx)
	if topics == nil && err == nil {
		topics = []cluster.TopicInfo{}
	}
	return topics, err
}

// Topic describes one topic.
func (l *Lab) Topic(ctx context.Context, name string) (cluster.TopicInfo, error) {
	return l.cluster.Topic(ctx, name)
}

// CreateTopic creates a topic after checking its name and configurations
// as Kafka would (see cluster.CreateTopic).
func (l *Lab) CreateTopic(ctx context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error) {
	return l.cluster.CreateTopic(ctx, spec)
}

// partition checks that topic has partition p and returns the topic.
func (l *Lab) partition(ctx context.Context, topic string, p int32) (cluster.TopicInfo, error) {
	t, err := l.cluster.Topic(ctx, topic)
	if err != nil {
		return t, err
	}
	if p < 0 || int(p) >= len(t.Partitions) {
		return t, problem.UnknownPartition(topic, len(t.Partitions), p)
	}
	return t, nil
}

// Log reads a window of a partition offset by offset (see
// inspect.Inspector.ReadLog); from < 0 starts at the log start.
func (l *Lab) Log(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	return l.inspector.ReadLog(ctx, topic, partition, from, limit)
}

// Records is what a consumer at isolation level iso receives from offset
// from (see inspect.Inspector.ReadRecords).
func (l *Lab) Records(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) ([]inspect.Record, error) {
	recs, err := l.inspector.ReadRecords(ctx, topic, partition, iso, from, limit)
	if recs == nil && err == nil {
		recs = []inspect.Record{}
	}
	return recs, err
}

// Pointers are a partition's log start offset, LSO and high watermark.
func (l *Lab) Pointers(ctx context.Context, topic string, partition int32) (inspect.Pointers, error) {
	return l.inspector.Pointers(ctx, topic, partition)
}

// Watch subscribes to a partition's live view: a snapshot, then entries,
// pointer moves, group offsets and narration. The caller closes the
// subscription. A partition that does not exist is refused, and so is one
// more partition than the hub polls at once.
func (l *Lab) Watch(ctx context.Context, topic string, partition int32) (*live.Subscription, error) {
	if _, err := l.partition(ctx, topic, partition); err != nil {
		return nil, err
	}
	return l.hub.Subscribe(topic, partition)
}

// Group describes a consumer group: state, committed offsets and lag.
func (l *Lab) Group(ctx context.Context, name string) (cluster.GroupInfo, error) {
	return l.cluster.Group(ctx, name)
}

// Transaction describes a transactional.id at its coordinator.
func (l *Lab) Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error) {
	return l.cluster.Transaction(ctx, id)
}
