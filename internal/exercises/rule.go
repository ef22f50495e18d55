package exercises

import (
	"context"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// Broker is what the checks read; *lab.Lab is one. Each method is one
// use case of internal/lab, with its costs.
type Broker interface {
	Pointers(ctx context.Context, topic string, partition int32) (inspect.Pointers, error)
	Log(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error)
	Group(ctx context.Context, name string) (cluster.GroupInfo, error)
	Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error)
	// ProducerAliases names a partition's producers by id as its
	// partition page does (P1, P2 …): the evidence uses the same names.
	ProducerAliases(ctx context.Context, topic string, partition int32) (map[int64]string, error)
	// SharePartition is a share group's delivery state on a partition,
	// offset by offset, as the partition page's share lane shows it,
	// with the final state of the offsets its start offset passed
	// (cluster.SharePartition.Settled).
	SharePartition(ctx context.Context, topic string, partition int32, group string, from int64, limit int) (cluster.SharePartition, error)
	// WriteExerciseJobs creates a student's topic, sets their share
	// group to read it from the start and writes values: an exercise's
	// Jobs, the one write the server makes in a student's namespace.
	WriteExerciseJobs(ctx context.Context, topic, group string, values []string) error
}

// Rule is one kind of check: it reads the broker through the evaluation
// and says whether the student's run shows what the exercise asks.
type Rule interface {
	// Kind names the rule ("committed-transaction").
	Kind() string
	// check decides. An error is the broker's (unreachable, refused):
	// the check is then not ok, with the error as its hint.
	check(ev *evaluation) (Verdict, error)
}

// Verdict is a check's answer.
type Verdict struct {
	OK       bool     `json:"ok"`
	Evidence Evidence `json:"evidence"`
	// Hint names the cause of a failure; zero when OK.
	Hint catalog.Message `json:"-"`
}

// Evidence is what the broker showed a check: only the fields the check
// reads are set.
type Evidence struct {
	// Offsets are the data records the check looked at.
	Offsets    []int64 `json:"offsets,omitempty"`
	ProducerID *int64  `json:"producerId,omitempty"`
	// ProducerAlias is ProducerID's name on the student's partition page
	// (P1 …), empty when it has none.
	ProducerAlias string `json:"producerAlias,omitempty"`
	ProducerEpoch *int16 `json:"producerEpoch,omitempty"`
	// Epochs are the producer epochs seen, in log order, once each.
	Epochs    []int16    `json:"epochs,omitempty"`
	Sequences []int32    `json:"sequences,omitempty"`
	Marker    *MarkerRef `json:"marker,omitempty"`
	// Received are the offsets a read_committed consumer receives.
	Received        []int64 `json:"received,omitempty"`
	CommittedOffset *int64  `json:"committedOffset,omitempty"`
	LogEnd          *int64  `json:"logEnd,omitempty"`
	// CoordinatorEpoch is the epoch the transaction coordinator holds
	// for the transactional id.
	CoordinatorEpoch *int16 `json:"coordinatorEpoch,omitempty"`
	// Acknowledged, Archived and Unfinished are jobs' offsets (Offsets)
	// by their state in the student's share group: accepted; archived
	// (rejected, or at the delivery limit); delivered or waiting but not
	// finished (available, acquired, in flight).
	Acknowledged []int64 `json:"acknowledged,omitempty"`
	Archived     []int64 `json:"archived,omitempty"`
	Unfinished   []int64 `json:"unfinished,omitempty"`
	// Poison is the poison job's state in the student's share group.
	Poison *ShareRecordRef `json:"poison,omitempty"`
}

// MarkerRef is a transaction marker of the log.
type MarkerRef struct {
	Offset        int64  `json:"offset"`
	Type          string `json:"type"`
	ProducerID    int64  `json:"producerId"`
	ProducerAlias string `json:"producerAlias,omitempty"`
	ProducerEpoch int16  `json:"producerEpoch"`
}

func markerOf(e inspect.Entry) *MarkerRef {
	return &MarkerRef{Offset: e.Offset, Type: e.Marker, ProducerID: e.ProducerID, ProducerEpoch: e.ProducerEpoch}
}

// fail is a failing verdict with a hint "exercise.hint.<key>".
func fail(ev Evidence, key string, kv ...string) Verdict {
	return Verdict{Evidence: ev, Hint: catalog.M("exercise.hint."+key, kv...)}
}

// pass is a passing verdict.
func pass(ev Evidence) Verdict { return Verdict{OK: true, Evidence: ev} }

func ptr[T any](v T) *T { return &v }

func itoa[T ~int | ~int16 | ~int32 | ~int64](v T) string { return strconv.FormatInt(int64(v), 10) }
