package lessons

import (
	"context"
	"log/slog"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Lab is what a lesson does to the brokers and reads back, each through
// the same use case the page's controls use; *lab.Lab is one.
type Lab interface {
	Mode() cluster.Mode
	Brokers() []string
	ReadOnly() bool
	// Security names the properties file the dashboard connects with,
	// which the lessons' commands pass to Kafka's tools.
	Security() cluster.Security

	CreateTopic(ctx context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error)
	DeleteTopic(ctx context.Context, name string) error
	Topics(ctx context.Context) ([]cluster.TopicInfo, error)
	Produce(ctx context.Context, req producer.Request) (*producer.Outcome, error)
	RunProcessor(ctx context.Context, cfg producer.RunConfig) (*producer.RunResult, error)

	Begin(ctx context.Context, process, id string, timeout time.Duration) (producer.SessionState, error)
	Send(ctx context.Context, process, id string, req producer.Request) (producer.SessionState, error)
	End(ctx context.Context, process, id string, commit bool) (producer.SessionState, error)
	Crash(ctx context.Context, process, id string) (producer.SessionState, error)
	EndProcess(process string)

	ManagesBrokers() bool
	StopBroker(ctx context.Context, id int) error
	StartBroker(ctx context.Context, id int) error

	Topic(ctx context.Context, name string) (cluster.TopicInfo, error)
	Group(ctx context.Context, name string) (cluster.GroupInfo, error)
	Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error)
	Log(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error)
	Records(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) ([]inspect.Record, error)
	Pointers(ctx context.Context, topic string, partition int32) (inspect.Pointers, error)

	AlterTopicConfigs(ctx context.Context, topic string, configs map[string]string) error
	DeleteRecords(ctx context.Context, topic string, partition int32, before int64) (int64, error)
	ReadAsGroup(ctx context.Context, req lab.GroupRead) (*lab.GroupReadOutcome, error)

	SetGroupConfig(ctx context.Context, group, key, value string) error
	GroupDetail(ctx context.Context, name string) (cluster.GroupDetail, error)
	StartShareWorker(ctx context.Context, req lab.ShareWorkerRequest) (lab.ShareWorkerState, error)
	PollShareWorker(ctx context.Context, name string) (lab.ShareWorkerState, error)
	AckShareRecord(ctx context.Context, name string, partition int32, offset int64, ack lab.ShareAck) (lab.ShareWorkerState, error)
	CrashShareWorker(name string) (lab.ShareWorkerState, error)
	StopShareWorker(name string) error

	Narrate(kind, topic string, partition int32, msg catalog.Message)
	// Compacted has the live view read again the offsets the log
	// cleaner rewrote.
	Compacted(ctx context.Context, topic string, partition int32)
	// Logger receives what the operator should know and a viewer is
	// not shown: an internal error's own text.
	Logger() *slog.Logger
}
