package producer

import (
	"context"
	"errors"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Fault is a failure injected into a produce call.
type Fault string

// The faults a produce call can inject.
const (
	// NoFault produces normally.
	NoFault Fault = ""
	// LoseAck drops the broker's response to the first Produce request at
	// the connection: the broker stored the batch, the client retries.
	LoseAck Fault = "lose-ack"
	// DoubleSend makes the application call produce twice per value.
	DoubleSend Fault = "double-send"
)

// Limits on one produce call, so a typo cannot flood the broker. A value
// must also fit the topic's max.message.bytes (see RecordOverhead).
const (
	MaxValues     = 1000
	MaxValueBytes = 1 << 20
)

// RecordOverhead bounds the bytes a record batch of one record adds to its
// key and value (61 bytes of batch header, up to 21 of record framing and
// varints): a record fits a topic whose max.message.bytes is M when
// len(key)+len(value)+RecordOverhead <= M.
const RecordOverhead = 82

// Request is one produce call: values written in order, each its own
// produce (and so its own batch), by one fresh producer session.
type Request struct {
	Topic string
	// Partition pins the partition; nil lets the default partitioner
	// choose (by key hash when a key is given, as the Java client does).
	Partition *int32
	Key       *string
	// Values are the record values; a nil value is a null value, which
	// Kafka reads as a tombstone.
	Values  []*string
	Profile Profile
	Fault   Fault
}

// Values turns strings into the values of a Request.
func Values(vs ...string) []*string {
	out := make([]*string, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

// Validate reports a request no producer could carry out.
func (r Request) Validate() error {
	if r.Topic == "" {
		return problem.New(problem.Invalid, "error.topicRequired")
	}
	if len(r.Values) == 0 {
		return problem.New(problem.Invalid, "error.valuesRequired")
	}
	if len(r.Values) > MaxValues {
		return problem.New(problem.Invalid, "error.tooManyValues", "max", strconv.Itoa(MaxValues), "count", strconv.Itoa(len(r.Values)))
	}
	for _, v := range r.Values {
		if v != nil && len(*v) > MaxValueBytes {
			return problem.New(problem.TooLarge, "error.valueTooLarge", "max", strconv.Itoa(MaxValueBytes), "size", strconv.Itoa(len(*v)))
		}
	}
	if r.Key != nil && len(*r.Key) > MaxValueBytes {
		return problem.New(problem.TooLarge, "error.keyTooLarge", "max", strconv.Itoa(MaxValueBytes), "size", strconv.Itoa(len(*r.Key)))
	}
	if r.Partition != nil && *r.Partition < 0 {
		return problem.New(problem.Invalid, "error.partitionNegative")
	}
	switch r.Fault {
	case NoFault, DoubleSend:
	case LoseAck:
		if r.Profile.acks() == AcksNone {
			return problem.New(problem.Invalid, "error.loseAckWithAcks0")
		}
	default:
		return problem.New(problem.Invalid, "error.unknownFault", "fault", string(r.Fault))
	}
	return r.Profile.Validate()
}

// LargestRecord is the size of the request's largest record, key and
// value: with RecordOverhead, what the topic's max.message.bytes must hold.
func (r Request) LargestRecord() int {
	largest := 0
	for _, v := range r.Values {
		n := 0
		if v != nil {
			n = len(*v)
		}
		if r.Key != nil {
			n += len(*r.Key)
		}
		largest = max(largest, n)
	}
	return largest
}

// Result is what the producer learned about one send.
type Result struct {
	// Value is the value sent (nil: a null value).
	Value *string `json:"value"`
	// Partition is where the record went (-1 if it never got one).
	Partition int32 `json:"partition"`
	// Offset is where the broker stored it; nil with acks=0 (the
	// producer cannot know) or on error.
	Offset *int64 `json:"offset"`
	// Error is the failure the producer reported, or nil; ErrorCode is
	// Kafka's name for it (NOT_ENOUGH_REPLICAS, say) when the broker
	// answered with an error code.
	Error     *string `json:"error"`
	ErrorCode string  `json:"errorCode,omitempty"`
}

// Outcome is the result of a produce call.
type Outcome struct {
	Results []Result `json:"results"`
	// AckLost reports that the lose-ack fault dropped a Produce
	// response and the client retried; AckLostAt says where the broker
	// had stored the batch whose ACK never arrived.
	AckLost   bool          `json:"ackLost"`
	AckLostAt []StoredBatch `json:"ackLostAt,omitempty"`
	// ProducerID and ProducerEpoch identify the idempotent or
	// transactional session; -1 for a plain producer.
	ProducerID    int64 `json:"producerId"`
	ProducerEpoch int16 `json:"producerEpoch"`
	// Committed reports whether a transactional call committed.
	Committed bool `json:"committed,omitempty"`
}

// Connection says how the producers reach the brokers: the client options
// every client of the cluster starts from (seed brokers, SASL, timeouts)
// and how to open a connection to a broker (TLS, if the cluster uses it).
// The faults (a lost ACK, a crash) sit between the two, over plain Kafka
// frames, so Opts must not set kgo.Dialer.
type Connection struct {
	Opts []kgo.Opt
	// Dial opens a connection; nil dials plain TCP.
	Dial func(ctx context.Context, network, host string) (net.Conn, error)
}

// Producer produces with fresh kgo clients over one Connection. It holds
// no connections between calls.
type Producer struct {
	conn Connection
}

// New returns a Producer whose clients connect as conn says.
func New(conn Connection) *Producer {
	return &Producer{conn: conn}
}

// Produce carries out req with a new producer session. Per-record broker
// errors (NOT_ENOUGH_REPLICAS, say) are reported in the results, not as the
// returned error, which is for invalid requests and unusable clients.
func (p *Producer) Produce(ctx context.Context, req Request) (*Outcome, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	conns := newConnections(p.conn, req.Fault == LoseAck)
	opts := append(append([]kgo.Opt{}, p.conn.Opts...), req.Profile.clientOpts()...)
	opts = append(opts, kgo.Dialer(conns.Dial), kgo.RecordRetries(5), kgo.RecordPartitioner(pinnedPartitioner()))
	client, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, problem.Wrap(err, problem.Internal, "error.internal")
	}
	defer client.Close()

	transactional := req.Profile.TransactionalID != ""
	if transactional {
		if err := client.BeginTransaction(); err != nil {
			return nil, problem.KafkaError(err)
		}
	}
	out := &Outcome{ProducerID: -1, ProducerEpoch: -1}
	sends := 1
	if req.Fault == DoubleSend {
		sends = 2
	}
	failed := false
	for _, v := range req.Values {
		for range sends {
			res, _ := sendOne(ctx, client, req, v)
			failed = failed || res.Error != nil
			out.Results = append(out.Results, res)
		}
	}
	if transactional {
		commit := kgo.TryCommit
		if failed {
			commit = kgo.TryAbort
		}
		if err := client.EndTransaction(ctx, commit); err != nil {
			return nil, problem.KafkaError(err)
		}
		out.Committed = !failed
	}
	out.AckLost = conns.AckLost()
	out.AckLostAt = conns.LostBatches()
	for i := range out.AckLostAt {
		if out.AckLostAt[i].Topic == "" { // Produce v13+ answers a topic id
			out.AckLostAt[i].Topic = req.Topic
		}
	}
	if req.Profile.idempotent() {
		if id, epoch, err := client.ProducerID(ctx); err == nil {
			out.ProducerID, out.ProducerEpoch = id, epoch
		}
	}
	return out, nil
}

// sendOne produces one value synchronously and reports what the producer
// learned, and the client's error (nil on success) for callers that must
// tell one failure from another.
func sendOne(ctx context.Context, client *kgo.Client, req Request, value *string) (Result, error) {
	rec := &kgo.Record{Topic: req.Topic}
	if value != nil {
		rec.Value = []byte(*value)
	}
	if req.Key != nil {
		rec.Key = []byte(*req.Key)
	}
	if req.Partition != nil {
		rec.Context = pin(ctx, *req.Partition)
	}
	res := Result{Value: value, Partition: -1}
	err := client.ProduceSync(ctx, rec).FirstErr()
	if err != nil {
		msg := describeProduceError(err)
		res.Error = &msg
		var ke *kerr.Error
		if errors.As(err, &ke) {
			res.ErrorCode = ke.Message
		}
		return res, err
	}
	res.Partition = rec.Partition
	if req.Profile.acks() != AcksNone {
		off := rec.Offset
		res.Offset = &off
	}
	return res, nil
}

// describeProduceError turns a client error into a sentence that keeps
// Kafka's own error name, which is what learners search for.
func describeProduceError(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "the broker did not answer in time: " + err.Error()
	}
	return err.Error()
}
