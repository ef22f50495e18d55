package producer

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Acks is how many acknowledgements the producer waits for, as Kafka's
// acks setting spells it: "0", "1" or "all".
type Acks string

// The acks settings Kafka knows.
const (
	AcksNone   Acks = "0"
	AcksLeader Acks = "1"
	AcksAll    Acks = "all"
)

// DefaultTransactionTimeout is Kafka's default transaction.timeout.ms, as
// the seeds' kafka-transactions.sh output shows (60000).
const DefaultTransactionTimeout = 60 * time.Second

// Profile is a producer's delivery settings.
type Profile struct {
	// Acks is "0", "1" or "all"; empty means "all".
	Acks Acks
	// Idempotent is enable.idempotence. Nil means "not set": false for a
	// plain producer (librdkafka's default), true when TransactionalID is
	// set (transactions imply it).
	Idempotent *bool
	// TransactionalID makes the producer transactional when not empty.
	TransactionalID string
}

// Validate checks the profile the way librdkafka checks its configuration
// at producer creation, returning a problem.Invalid error whose message
// names the conflicting settings.
func (p Profile) Validate() error {
	switch p.Acks {
	case "", AcksNone, AcksLeader, AcksAll:
	default:
		return problem.New(problem.Invalid, "error.acksInvalid", "acks", string(p.Acks))
	}
	if p.TransactionalID != "" && p.Idempotent != nil && !*p.Idempotent {
		return problem.New(problem.Invalid, "error.transactionalNeedsIdempotence")
	}
	if p.idempotent() && p.acks() != AcksAll {
		return problem.New(problem.Invalid, "error.idempotenceNeedsAcksAll", "acks", string(p.acks()))
	}
	return nil
}

func (p Profile) acks() Acks {
	if p.Acks == "" {
		return AcksAll
	}
	return p.Acks
}

func (p Profile) idempotent() bool {
	if p.Idempotent != nil {
		return *p.Idempotent
	}
	return p.TransactionalID != ""
}

// clientOpts translates the profile into kgo options. The caller validated it.
func (p Profile) clientOpts() []kgo.Opt {
	var opts []kgo.Opt
	switch p.acks() {
	case AcksNone:
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case AcksLeader:
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !p.idempotent() {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	if p.TransactionalID != "" {
		opts = append(opts,
			kgo.TransactionalID(p.TransactionalID),
			kgo.TransactionTimeout(DefaultTransactionTimeout),
		)
	}
	return opts
}
