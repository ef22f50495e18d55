package producer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// Mode is the order processor's delivery semantics.
type Mode string

// The processor's modes, named as the API names them.
const (
	// AtMostOnce commits the input offset before processing and produces
	// with acks=0: a crash loses the order, never duplicates it.
	AtMostOnce Mode = "at-most-once"
	// Plain is the seeds' at-least-once processor: produce (acks=all,
	// idempotent), then commit the input offset. A crash in between
	// re-processes the order after a restart.
	Plain Mode = "plain"
	// Transactional is exactly-once: begin, produce, add the consumer
	// position to the transaction, commit.
	Transactional Mode = "tx"
)

// inputPartition is the partition the seeds' processor reads.
const inputPartition int32 = 0

// RunConfig is one run of the order processor, as one process start of
// the seeds' processor.py.
type RunConfig struct {
	Mode   Mode
	Input  string
	Output string
	Group  string
	// TransactionalID is required in tx mode.
	TransactionalID string
	// CrashAt names an order id ("O-2"): the process dies at that order
	// at the mode's crash point. Empty means run to the end.
	CrashAt string
	// BeforeOrder, if set, is called before each order is handled, once
	// the producer is initialised: the lab reads the topics there, so
	// that their recorded history shows each order's writes as one step.
	BeforeOrder func(ctx context.Context) `json:"-"`
}

// Validate reports a run that cannot start.
func (c RunConfig) Validate() error {
	switch c.Mode {
	case AtMostOnce, Plain, Transactional:
	default:
		return problem.New(problem.Invalid, "error.processorModeUnknown", "mode", string(c.Mode))
	}
	if c.Input == "" || c.Output == "" {
		return problem.New(problem.Invalid, "error.processorNeedsTopics")
	}
	if c.Group == "" {
		return problem.New(problem.Invalid, "error.processorNeedsGroup")
	}
	if c.Mode == Transactional && c.TransactionalID == "" {
		return problem.New(problem.Invalid, "error.processorTxNeedsId")
	}
	if c.Mode != Transactional && c.TransactionalID != "" {
		return problem.New(problem.Invalid, "error.processorIdOnlyTx")
	}
	if c.Input == c.Output {
		return problem.New(problem.Invalid, "error.processorSameTopics", "topic", c.Input)
	}
	return nil
}

// RunResult is what one processor run did, printed and whether it died.
type RunResult struct {
	// Log holds the lines processor.py would print, in the seed's shape.
	Log []string `json:"log"`
	// LogKeys names, line for line, the catalogue sentence of each Log
	// line ("processor.log.*") and its values, so the page can print the
	// run in the viewer's language; Log stays English.
	LogKeys []LogLine `json:"logKeys,omitempty"`
	// Processed lists the orders whose result was written, in order.
	Processed []Processed `json:"processed"`
	// Crashed reports that the run ended in the injected crash, at the
	// order CrashedAt.
	Crashed   bool   `json:"crashed"`
	CrashedAt string `json:"crashedAt,omitempty"`
	// ConcurrentTransactions counts the times the coordinator answered
	// init_transactions() with CONCURRENT_TRANSACTIONS while it aborted
	// a previous incarnation's transaction; the client retried each.
	ConcurrentTransactions int `json:"concurrentTransactions"`
	// ProducerID and ProducerEpoch are the transactional producer's
	// identity in tx mode (-1 otherwise).
	ProducerID    int64 `json:"producerId"`
	ProducerEpoch int16 `json:"producerEpoch"`
	// InitEpoch is the epoch init_transactions() gave the producer, which
	// its first transaction's records carry (-1 outside tx mode). With
	// transaction version 2 every commit raises the epoch, so after a
	// run ProducerEpoch is above it: the last COMMIT marker's.
	InitEpoch int16 `json:"initEpoch"`
}

// Processed is one order the processor handled: where it read it and
// where it wrote its total.
type Processed struct {
	Offset          int64  `json:"offset"`
	Order           string `json:"order"`
	Total           string `json:"total"`
	OutputPartition int32  `json:"outputPartition"`
	OutputOffset    int64  `json:"outputOffset"`
}

// LogLine is one processor log line as a catalogue key and its values.
type LogLine struct {
	Key  string       `json:"key"`
	Args catalog.Args `json:"args,omitempty"`
}

// Processor runs the order processor against one cluster.
type Processor struct {
	conn Connection
}

// NewProcessor returns a Processor whose clients connect as conn says.
func NewProcessor(conn Connection) *Processor {
	return &Processor{conn: conn}
}

// Run processes the orders of cfg.Input from the group's committed offset
// to the current end of the partition, then returns. A crash kills the
// run's connections without another request: no EndTxn, no offset commit.
func (p *Processor) Run(ctx context.Context, cfg RunConfig) (*RunResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, conns: newConnections(p.conn, false), res: &RunResult{ProducerID: -1, ProducerEpoch: -1, InitEpoch: -1, Processed: []Processed{}}}
	r.conns.onConcurrentTransactions = func() {
		r.say("processor.log.retry", []string{"id", cfg.TransactionalID})
	}
	opts := append([]kgo.Opt{}, p.conn.Opts...)
	opts = append(opts, kgo.Dialer(r.conns.Dial))
	switch cfg.Mode {
	case AtMostOnce:
		opts = append(opts, Profile{Acks: AcksNone}.clientOpts()...)
	case Plain:
		yes := true
		opts = append(opts, Profile{Acks: AcksAll, Idempotent: &yes}.clientOpts()...)
	case Transactional:
		opts = append(opts, Profile{Acks: AcksAll, TransactionalID: cfg.TransactionalID}.clientOpts()...)
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	client, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("processor: create client: %w", err)
	}
	r.client = client
	r.admin = kadm.NewClient(client)
	defer func() {
		if !r.res.Crashed {
			client.Close()
		}
	}()
	err = r.process(ctx)
	r.res.ConcurrentTransactions = r.conns.ConcurrentTransactions()
	return r.res, err
}

// run is the state of one processor run.
type run struct {
	cfg    RunConfig
	conns  *connections
	client *kgo.Client
	admin  *kadm.Client

	mu  sync.Mutex
	res *RunResult
}

// say appends a log line: the catalogue sentence key with its values
// (name, value pairs), and its English text.
func (r *run) say(key string, kv []string) {
	msg := catalog.M(key, kv...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Log = append(r.res.Log, msg.String())
	r.res.LogKeys = append(r.res.LogKeys, LogLine{Key: msg.Key, Args: msg.Args})
}

func (r *run) process(ctx context.Context) error {
	if r.cfg.Mode == Transactional {
		// init_transactions(): fences the previous incarnation and
		// aborts its open transaction before we read any offset.
		id, epoch, err := r.client.ProducerID(ctx)
		if err != nil {
			return fmt.Errorf("processor: init transactions for %s: %w", r.cfg.TransactionalID, err)
		}
		r.res.ProducerID, r.res.ProducerEpoch, r.res.InitEpoch = id, epoch, epoch
	}
	start, end, topicID, err := r.bounds(ctx)
	if err != nil {
		return err
	}
	if start >= end {
		r.say("processor.log.nothing", []string{"group", r.cfg.Group, "offset", strconv.FormatInt(start, 10), "input", r.cfg.Input, "partition", strconv.Itoa(int(inputPartition))})
		return nil
	}
	r.client.AddConsumePartitions(map[string]map[int32]kgo.Offset{
		r.cfg.Input: {inputPartition: kgo.NewOffset().At(start)},
	})
	for next := start; next < end; {
		pollCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		fetches := r.client.PollFetches(pollCtx)
		cancel()
		if err := fetchError(fetches); err != nil {
			return fmt.Errorf("processor: read %s: %w", r.cfg.Input, err)
		}
		for _, rec := range fetches.Records() {
			if rec.Offset < next || rec.Offset >= end {
				continue
			}
			next = rec.Offset + 1
			if r.cfg.BeforeOrder != nil {
				r.cfg.BeforeOrder(ctx)
			}
			crashed, err := r.handle(ctx, rec, topicID)
			if err != nil || crashed {
				return err
			}
		}
	}
	return nil
}

// fetchError returns the first fetch error that is not a benign poll end.
func fetchError(fetches kgo.Fetches) error {
	var first error
	fetches.EachError(func(_ string, _ int32, err error) {
		if first == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			first = err
		}
	})
	if first == nil && fetches.IsClientClosed() {
		return kgo.ErrClientClosed
	}
	if first == nil && fetches.Empty() {
		return errors.New("no records arrived within 15s")
	}
	return first
}

// bounds returns where the group resumes, where the input ends, and the
// input topic's ID (TxnOffsetCommit v6 names topics by ID).
func (r *run) bounds(ctx context.Context) (start, end int64, topicID [16]byte, err error) {
	ends, err := r.admin.ListEndOffsets(ctx, r.cfg.Input)
	if err != nil {
		return 0, 0, topicID, fmt.Errorf("processor: end offset of %s: %w", r.cfg.Input, err)
	}
	lo, ok := ends.Lookup(r.cfg.Input, inputPartition)
	if !ok || lo.Err != nil {
		if ok {
			err = lo.Err
		}
		return 0, 0, topicID, fmt.Errorf("processor: end offset of %s-%d: %w", r.cfg.Input, inputPartition, unknownTopic(err))
	}
	end = lo.Offset
	topics, err := r.admin.ListTopics(ctx, r.cfg.Input)
	if err != nil {
		return 0, 0, topicID, fmt.Errorf("processor: metadata of %s: %w", r.cfg.Input, err)
	}
	topicID = topics[r.cfg.Input].ID
	var committed kadm.OffsetResponses
	err = wait.Retry(ctx, func() (err error) {
		committed, err = r.admin.FetchOffsets(ctx, r.cfg.Group)
		return err
	})
	if errors.Is(err, kerr.GroupIDNotFound) {
		// A group that never committed: start from the beginning.
		committed, err = nil, nil
	}
	if err != nil {
		return 0, 0, topicID, fmt.Errorf("processor: committed offset of group %s: %w", r.cfg.Group, err)
	}
	start = 0
	if o, ok := committed.Lookup(r.cfg.Input, inputPartition); ok && o.Err == nil && o.At >= 0 {
		start = o.At
	}
	return start, end, topicID, nil
}

func unknownTopic(err error) error {
	if err == nil {
		return kerr.UnknownTopicOrPartition
	}
	return err
}

// handle processes one order. It reports whether the process crashed.
func (r *run) handle(ctx context.Context, rec *kgo.Record, topicID [16]byte) (bool, error) {
	order, perr := ParseOrder(string(rec.Value))
	crashHere := perr == nil && order.ID == r.cfg.CrashAt
	switch r.cfg.Mode {
	case AtMostOnce:
		if err := r.commit(ctx, rec.Offset+1); err != nil {
			return false, err
		}
		if crashHere {
			r.crash("processor.log.crashAtMostOnce", []string{"order", order.ID, "next", strconv.FormatInt(rec.Offset+1, 10)})
			return true, nil
		}
		return false, r.write(ctx, rec, order, perr)
	case Plain:
		if err := r.write(ctx, rec, order, perr); err != nil {
			return false, err
		}
		if crashHere {
			r.crash("processor.log.crashPlain", []string{"order", order.ID})
			return true, nil
		}
		return false, r.commit(ctx, rec.Offset+1)
	default:
		if err := r.client.BeginTransaction(); err != nil {
			return false, fmt.Errorf("processor: begin transaction: %w", err)
		}
		if err := r.write(ctx, rec, order, perr); err != nil {
			return false, r.abort(ctx, err)
		}
		if err := r.sendOffsetsToTransaction(ctx, rec.Offset+1, topicID); err != nil {
			return false, r.abort(ctx, err)
		}
		if crashHere {
			r.crash("processor.log.crashTx", []string{"order", order.ID})
			return true, nil
		}
		if err := r.client.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return false, fmt.Errorf("processor: commit transaction: %w", err)
		}
		if id, epoch, err := r.client.ProducerID(ctx); err == nil {
			r.res.ProducerID, r.res.ProducerEpoch = id, epoch
		}
		return false, nil
	}
}

// write produces the order's total (or skips an unparsable line) and logs
// the seed's line.
func (r *run) write(ctx context.Context, rec *kgo.Record, order Order, perr error) error {
	if perr != nil {
		r.say("processor.log.skipped", []string{"offset", strconv.FormatInt(rec.Offset, 10), "error", perr.Error()})
		return nil
	}
	out := &kgo.Record{Topic: r.cfg.Output, Value: []byte(order.Total())}
	if err := r.client.ProduceSync(ctx, out).FirstErr(); err != nil {
		return fmt.Errorf("processor: write %s to %s: %w", order.Total(), r.cfg.Output, err)
	}
	r.mu.Lock()
	r.res.Processed = append(r.res.Processed, Processed{Offset: rec.Offset, Order: order.ID, Total: order.Total(), OutputPartition: out.Partition, OutputOffset: out.Offset})
	r.mu.Unlock()
	r.say("processor.log.processed", []string{"offset", strconv.FormatInt(rec.Offset, 10), "order", order.ID, "total", order.Total(), "output", r.cfg.Output})
	return nil
}

// commit commits the group's position outside any transaction, as a
// consumer with manual assignment does (generation -1, no member id).
func (r *run) commit(ctx context.Context, next int64) error {
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: r.cfg.Input, Partition: inputPartition, At: next, LeaderEpoch: -1})
	err := wait.Retry(ctx, func() error {
		resp, err := r.admin.CommitOffsets(ctx, r.cfg.Group, offsets)
		if err == nil {
			err = resp.Error()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("processor: commit offset %d for group %s: %w", next, r.cfg.Group, err)
	}
	return nil
}

// sendOffsetsToTransaction is send_offsets_to_transaction(): AddOffsetsToTxn
// puts the group's __consumer_offsets partition into the transaction, then
// TxnOffsetCommit stages the position so that it commits or aborts with it.
func (r *run) sendOffsetsToTransaction(ctx context.Context, next int64, topicID [16]byte) error {
	id, epoch, err := r.client.ProducerID(ctx)
	if err != nil {
		return fmt.Errorf("processor: producer id: %w", err)
	}
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID = r.cfg.TransactionalID
	add.ProducerID, add.ProducerEpoch = id, epoch
	add.Group = r.cfg.Group
	addResp, err := add.RequestWith(ctx, r.client)
	if err == nil {
		err = kerr.ErrorForCode(addResp.ErrorCode)
	}
	if err != nil {
		return fmt.Errorf("processor: add offsets of group %s to the transaction: %w", r.cfg.Group, err)
	}

	commit := kmsg.NewPtrTxnOffsetCommitRequest()
	commit.TransactionalID = r.cfg.TransactionalID
	commit.Group = r.cfg.Group
	commit.ProducerID, commit.ProducerEpoch = id, epoch
	commit.Generation = -1
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic, t.TopicID = r.cfg.Input, topicID
	p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	p.Partition, p.Offset, p.LeaderEpoch = inputPartition, next, -1
	t.Partitions = append(t.Partitions, p)
	commit.Topics = append(commit.Topics, t)
	commitResp, err := commit.RequestWith(ctx, r.client)
	if err != nil {
		return fmt.Errorf("processor: stage offset %d in the transaction: %w", next, err)
	}
	for _, t := range commitResp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("processor: stage offset %d in the transaction: %w", next, err)
			}
		}
	}
	return nil
}

func (r *run) abort(ctx context.Context, cause error) error {
	if err := r.client.EndTransaction(ctx, kgo.TryAbort); err != nil {
		return errors.Join(cause, fmt.Errorf("processor: abort transaction: %w", err))
	}
	return cause
}

// crash makes the process die as SIGKILL would: every connection drops at
// once and no further request leaves, so the broker sees no EndTxn, no
// offset commit and no LeaveGroup.
func (r *run) crash(key string, kv []string) {
	r.say(key, kv)
	r.res.Crashed = true
	r.res.CrashedAt = r.cfg.CrashAt
	r.conns.Kill()
	// Close releases the client's goroutines; its dials all fail now.
	go r.client.Close()
}
