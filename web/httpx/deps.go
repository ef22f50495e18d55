package httpx

import (
	"context"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Lab is what the router hands the API and the pages, each a use case of
// internal/lab; *lab.Lab is one. The API takes it as web/api's Lab, the
// resources' small interfaces in one (api.DepsOf), so a method an API
// handler calls is declared there too.
type Lab interface {
	Mode() cluster.Mode
	Brokers() []string
	ReadOnly() bool
	Status(ctx context.Context) lab.ClusterStatus

	Topics(ctx context.Context) ([]cluster.TopicInfo, error)
	Topic(ctx context.Context, name string) (cluster.TopicInfo, error)
	CreateTopic(ctx context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error)
	Log(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error)
	RecordsPage(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) (*inspect.RecordsPage, error)
	Watch(ctx context.Context, topic string, partition int32, viewer live.Viewer) (*live.Subscription, error)
	Events(n int) []live.Event
	History(ctx context.Context, topic string, partition int32, from int) (live.History, error)
	Group(ctx context.Context, name string) (cluster.GroupInfo, error)
	Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error)

	Produce(ctx context.Context, req producer.Request) (*producer.Outcome, error)
	RunProcessor(ctx context.Context, cfg producer.RunConfig) (*producer.RunResult, error)
	Begin(ctx context.Context, process, id string, timeout time.Duration) (producer.SessionState, error)
	Send(ctx context.Context, process, id string, req producer.Request) (producer.SessionState, error)
	End(ctx context.Context, process, id string, commit bool) (producer.SessionState, error)
	Crash(ctx context.Context, process, id string) (producer.SessionState, error)

	AllTopics(ctx context.Context) ([]cluster.TopicInfo, error)
	TopicDetail(ctx context.Context, name string) (lab.TopicDetail, error)
	DeleteTopic(ctx context.Context, name string) error
	Map(ctx context.Context, topic string, partition int32, req inspect.MapRequest) (*inspect.PartitionMap, error)
	Jump(ctx context.Context, topic string, partition int32, req inspect.JumpRequest) (*inspect.JumpResult, error)
	Search(ctx context.Context, topic string, partition int32, req inspect.SearchRequest) (*inspect.SearchResult, error)
	OffsetForTime(ctx context.Context, topic string, partition int32, ms int64) (inspect.TimestampOffset, error)
	SearchTopic(ctx context.Context, topic string, req lab.TopicSearchRequest) (*lab.TopicSearchResult, error)
	TopicOffsetsForTime(ctx context.Context, topic string, ms int64, workers func() (func(), bool)) ([]lab.PartitionTimeOffset, error)
	Groups(ctx context.Context) ([]cluster.GroupSummary, error)
	GroupDetail(ctx context.Context, name string) (cluster.GroupDetail, error)
	SharePartition(ctx context.Context, topic string, partition int32, group string, from int64, limit int) (cluster.SharePartition, error)
	ShareWorkers() []lab.ShareWorkerState
	StartShareWorker(ctx context.Context, req lab.ShareWorkerRequest) (lab.ShareWorkerState, error)
	PollShareWorker(ctx context.Context, name string) (lab.ShareWorkerState, error)
	AckShareRecord(ctx context.Context, name string, partition int32, offset int64, ack lab.ShareAck) (lab.ShareWorkerState, error)
	CrashShareWorker(name string) (lab.ShareWorkerState, error)
	StopShareWorker(name string) error
	Transactions(ctx context.Context, states ...string) ([]cluster.TransactionSummary, error)
	Producers(ctx context.Context, topic string, partition int32) (cluster.PartitionProducers, error)
	AbortTransaction(ctx context.Context, topic string, partition int32, startOffset int64) (cluster.AbortedTransaction, error)
	HeldLSO(ctx context.Context, topic string, partition int32) (cluster.LSOHold, error)
	ForceTerminateTransaction(ctx context.Context, id string) (cluster.TerminatedTransaction, error)
	Security() cluster.Security
	SchemaRegistry() string
	TerminateRight(ctx context.Context, id, topic string, partition int32) cluster.Right
	AbortRight(ctx context.Context) cluster.Right

	BrokerStatus(ctx context.Context) (lab.BrokersStatus, error)
	StopBroker(ctx context.Context, id int) error
	StartBroker(ctx context.Context, id int) error
}

// Lessons runs guided lessons; *lessons.Runner is one.
type Lessons interface {
	List() []lessons.Summary
	Start(id string) (lessons.RunState, error)
	State(id string) (lessons.RunState, error)
	Current() string
	Next(ctx context.Context, id string) (lessons.RunState, error)
	Finish(ctx context.Context, id string) (lessons.RunState, error)
	Reset(id string) (lessons.RunState, error)
	Cleanup(ctx context.Context, id string) (lessons.RunState, error)
	CleanupPlan(ctx context.Context) ([]string, error)
	CleanupAll(ctx context.Context) ([]string, error)
	CleanupConfirmed(ctx context.Context, confirm []string) ([]string, error)
	// TopicLesson names the lesson whose run created topic, and the run.
	TopicLesson(topic string) (runID string, title catalog.Message, ok bool)
}

// Exercises grades the hands-on exercises and holds the class that does
// them; *exercises.Grader is one.
type Exercises interface {
	Class() *exercises.Class
	Current() string
	Start(id string) (exercises.Exercise, error)
	Reset(ctx context.Context, id string) (map[string]int64, error)
	Results(id string) ([]exercises.Result, int64, error)
	Wait(ctx context.Context, after int64) int64
	Remove(ctx context.Context, name string, deleteNames bool) error
	Stage() (exercises.Stage, bool)
	SetStage(exercises.Stage)
	Flush(ctx context.Context) error
}

// Deps are the services the web layer drives: the API and the pages
// call them, the router hands them to both.
type Deps struct {
	Lab Lab
	// Lessons may be nil: the lesson endpoints then answer 404.
	Lessons Lessons
	// Exercises may be nil: the students' and exercises' endpoints then
	// answer 404.
	Exercises Exercises
}
