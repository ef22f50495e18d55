package lessons

import (
	"slices"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Msg is the id of a sentence in the catalogue (English and Korean).
// Sentences may hold placeholders: {name} is a lesson's logical name
// (a topic, group or transactional.id) made unique for the run, and
// {bootstrap} is the brokers' address.
type Msg string

// Text is a catalogue sentence in every language the lessons speak.
type Text struct {
	En string `json:"en"`
	Ko string `json:"ko"`
}

// Lesson is one guided experiment of the seeds, as data.
type Lesson struct {
	// ID is how the API names the lesson ("2", "6b").
	ID string
	// Seed names the seed the lesson follows, e.g. "000".
	Seed    string
	Title   Msg
	Summary Msg
	// NeedsReplication marks a lesson about replicas and ISR: it needs a
	// real cluster of three brokers and refuses to start on the embedded
	// broker, which has no replication.
	NeedsReplication bool
	Steps            []Step
}

// Step is one action of a lesson with what to say, the command a learner
// would type on real Kafka, and what the broker must report afterwards.
type Step struct {
	Title Msg
	Say   Msg
	Do    Action
	// Command is the equivalent on real Kafka, one command per line,
	// with the same placeholders as catalogue sentences.
	Command string
	Expect  []Expect
}

// Expect is one check of a step: the fact observed after the action must
// equal Want (Apache Kafka's answer, the seeds' number).
type Expect struct {
	// Say states the check in words.
	Say Msg
	// Fact names what is observed (see each action's facts); Arg
	// qualifies it, e.g. the value whose copies "count" counts.
	Fact string
	Arg  string
	Want string
	// Embedded is set where the embedded broker legitimately answers
	// otherwise (docs/divergences.md); the check then expects its answer
	// and shows the note.
	Embedded *Divergence
}

// Divergence is the embedded broker's answer to a check and why it differs
// from Apache Kafka's.
type Divergence struct {
	Want string
	Note Msg
}

// Action is what a step does to the brokers. The types below are the
// actions; names in them are logical (the run makes them unique).
type Action interface {
	// Kind names the action in the API ("produce", "read-log", ...).
	Kind() string
	// Facts lists the facts the action observes; facts marked "name:"
	// take an Arg.
	Facts() []string
	run(ctx stepContext) (*observation, error)
}

// TopicSpec is a topic a lesson creates.
type TopicSpec struct {
	Name       string
	Partitions int32
	// ReplicationFactor 0 means the broker's default.
	ReplicationFactor int16
	Configs           map[string]string
}

// CreateTopics creates the lesson's topics.
type CreateTopics struct{ Topics []TopicSpec }

// Produce sends values with a fresh producer session, as one start of a
// producer program does.
type Produce struct {
	Topic      string
	Key        string
	Values     []string
	Acks       producer.Acks
	Idempotent bool
	Fault      producer.Fault
	// Refused marks a step whose settings the producer must refuse: the
	// refusal is the observation, not a failure of the step.
	Refused bool
}

// RunProcessor runs the seeds' order processor once (one process start).
type RunProcessor struct {
	Mode            producer.Mode
	Input           string
	Output          string
	Group           string
	TransactionalID string
	CrashAt         string
}

// Begin starts a transaction in a process's producer, initialising it
// first (which fences an older producer with the same transactional.id).
// Process names one application process of the run ("app" when empty);
// two processes with one transactional.id are the zombie case.
type Begin struct {
	Process         string
	TransactionalID string
	// TimeoutMs is the producer's transaction.timeout.ms; zero means
	// Kafka's default (60000). It takes effect when the process's
	// producer is created.
	TimeoutMs int
}

// Send produces values inside the process's open transaction. A fenced
// producer's failure is an observation ("fenced"), not a step failure.
type Send struct {
	Process         string
	TransactionalID string
	Topic           string
	Values          []string
}

// End commits or aborts the process's open transaction and waits until
// the coordinator has written its markers.
type End struct {
	Process         string
	TransactionalID string
	Commit          bool
}

// Crash kills the process's producer as SIGKILL would: no EndTxn, its
// open transaction stays Ongoing until a newer producer with the same
// transactional.id fences it or transaction.timeout.ms passes.
type Crash struct {
	Process         string
	TransactionalID string
}

// ApplyPayments is a consumer's business logic over the payment events of
// Topic ("PAY-1 O-1 10000": event id, order id, amount), delivered twice as
// at-least-once delivers them when a consumer dies before committing: a
// read_committed consumer reads the partition from the start, the process
// dies, the restarted one reads it again. Effect is what each delivery
// does: EffectUpsert, EffectDecrement or EffectDedupe. The account, the
// orders' statuses and the processed-id store stand in for the
// application's database and Redis: they survive the crash, as persistent
// stores do (an in-memory set would not).
type ApplyPayments struct {
	Topic  string
	Effect string
}

// The effects ApplyPayments can apply (seed 003's examples).
const (
	// EffectUpsert sets the order's status: UPDATE orders SET
	// status = 'PAID' WHERE order_id = ?. A replay changes nothing.
	EffectUpsert = "upsert-status"
	// EffectDecrement charges the account: UPDATE accounts SET
	// balance = balance - ?. A replay charges again.
	EffectDecrement = "decrement-balance"
	// EffectDedupe charges the account unless the event id is in a
	// persistent processed-id store, then records it.
	EffectDedupe = "decrement-with-processed-ids"
)

// StartingBalance is the account's balance before each ApplyPayments.
const StartingBalance = 100000

// ReadRecords reads a partition from the start as a consumer at Isolation
// receives it (the seeds' read.py, kafka-console-consumer.sh).
type ReadRecords struct {
	Topic string
	// Partition is read unless PartitionOfKey names a key an earlier
	// Produce of the run wrote: then that key's partition is read.
	Partition      int32
	PartitionOfKey string
	Isolation      inspect.Isolation
	// AtLeast waits (up to 10 s) until the partition holds this many
	// offsets: acks=0 producers return before the broker stored anything.
	AtLeast int64
}

// AwaitBrokerAbort waits, at most Within, until no record of Topic is in
// an open transaction any more — the broker aborted the hanging one once
// its transaction.timeout.ms passed — then reads the log as ReadLog does.
type AwaitBrokerAbort struct {
	Topic  string
	Within time.Duration
}

// ReadLog reads a partition offset by offset: data, markers, pointers.
type ReadLog struct {
	Topic     string
	Partition int32
}

// DescribeGroup is kafka-consumer-groups.sh --describe.
type DescribeGroup struct{ Group string }

// DescribeTransaction is kafka-transactions.sh describe. It waits until
// the coordinator has finished writing markers (no Prepare* state).
type DescribeTransaction struct{ TransactionalID string }

// DescribeTopic is kafka-topics.sh --describe: leader, replicas, ISR.
type DescribeTopic struct {
	Topic string
	// WaitInSync waits (up to 30 s) until every replica of partition 0
	// is in sync, as the followers of a new topic catch up, then reports
	// whatever the broker says.
	WaitInSync bool
}

// defaultProcess names the process of transactional steps that name none.
const defaultProcess = "app"

// lessonNames lists the logical names a lesson's actions use (topics,
// groups, transactional ids), in order of first use.
func lessonNames(l *Lesson) []string {
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	for _, s := range l.Steps {
		add(actionTopics(s.Do)...)
		switch a := s.Do.(type) {
		case RunProcessor:
			add(a.Group, a.TransactionalID)
		case Begin:
			add(a.TransactionalID)
		case Send:
			add(a.TransactionalID)
		case End:
			add(a.TransactionalID)
		case Crash:
			add(a.TransactionalID)
		case DescribeGroup:
			add(a.Group)
		case DescribeTransaction:
			add(a.TransactionalID)
		}
	}
	return out
}

// lessonTopics lists the topics a lesson creates or uses.
func lessonTopics(l *Lesson) []string {
	var out []string
	for _, s := range l.Steps {
		for _, t := range actionTopics(s.Do) {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func actionTopics(a Action) []string {
	switch a := a.(type) {
	case CreateTopics:
		var out []string
		for _, t := range a.Topics {
			out = append(out, t.Name)
		}
		return out
	case Produce:
		return []string{a.Topic}
	case RunProcessor:
		return []string{a.Input, a.Output}
	case Send:
		return []string{a.Topic}
	case ReadRecords:
		return []string{a.Topic}
	case ApplyPayments:
		return []string{a.Topic}
	case ReadLog:
		return []string{a.Topic}
	case AwaitBrokerAbort:
		return []string{a.Topic}
	case DescribeTopic:
		return []string{a.Topic}
	case StopFollowers:
		return []string{a.Topic}
	case StartFollowers:
		return []string{a.Topic}
	}
	return nil
}
