package web

import (
	"context"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Cluster is what the API needs to know about the brokers.
type Cluster interface {
	Mode() cluster.Mode
	Brokers() []string
	Ping(ctx context.Context) error
	Topics(ctx context.Context) ([]cluster.TopicInfo, error)
	Topic(ctx context.Context, name string) (cluster.TopicInfo, error)
	CreateTopic(ctx context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error)
	Group(ctx context.Context, group string) (cluster.GroupInfo, error)
	Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error)
	PartitionGroups(ctx context.Context, topic string, partition int32) ([]cluster.PartitionGroupOffset, error)
}

// Live streams watched partitions to viewers.
type Live interface {
	Subscribe(topic string, partition int32) (*live.Subscription, error)
	Narrate(e live.Event)
}

// LiveGroups adapts the cluster's group offsets for the live hub.
func LiveGroups(c Cluster) live.GroupSource {
	return live.GroupSourceFunc(func(ctx context.Context, topic string, partition int32) ([]live.GroupOffset, error) {
		groups, err := c.PartitionGroups(ctx, topic, partition)
		out := make([]live.GroupOffset, len(groups))
		for i, g := range groups {
			out[i] = live.GroupOffset{Group: g.Group, Committed: g.Committed}
		}
		return out, err
	})
}

// LogReader reads partitions offset by offset and as consumers see them.
type LogReader interface {
	ReadLog(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error)
	ReadRecords(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) ([]inspect.Record, error)
}

// Producer produces records with chosen settings and faults.
type Producer interface {
	Produce(ctx context.Context, req producer.Request) (*producer.Outcome, error)
}

// Processor runs the seeds' order processor.
type Processor interface {
	Run(ctx context.Context, cfg producer.RunConfig) (*producer.RunResult, error)
}

// Sessions are step-by-step transactional producers.
type Sessions interface {
	Begin(ctx context.Context, id string) (producer.SessionState, error)
	Send(ctx context.Context, id string, req producer.Request) (producer.SessionState, error)
	End(ctx context.Context, id string, commit bool) (producer.SessionState, error)
	Crash(ctx context.Context, id string) (producer.SessionState, error)
}

// Deps are the domain services the web layer drives.
type Deps struct {
	Cluster   Cluster
	Log       LogReader
	Producer  Producer
	Processor Processor
	Live      Live
	Sessions  Sessions
	// Lessons may be nil: the lesson endpoints then answer 404.
	Lessons Lessons
	// Brokers is nil unless the dashboard runs the brokers itself
	// (--local-kafka): only then can the API stop and start them.
	Brokers BrokerControl
}
