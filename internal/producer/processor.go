package producer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/offsetlab/offsetlab/internal/kretry"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
}

// Validate reports a run that cannot start.
func (c RunConfig) Validate() error {
	switch c.Mode {
	case AtMostOnce, Plain, Transactional:
	default:
		return invalid(fmt.Sprintf("unknown processor mode %q: use \"at-most-once\", \"plain\" or \"tx\"", string(c.Mode)), "error.processorModeUnknown", "mode", string(c.Mode))
	}
	if c.Input == "" || c.Output == "" {
		return invalid("the processor needs an input and an output topic", "error.processorNeedsTopics")
	}
	if c.Group == "" {
		return invalid("the processor needs a consumer group", "error.processorNeedsGroup")
	}
	if c.Mode == Transactional && c.TransactionalID == "" {
		return invalid("tx mode needs a transactionalId: a fixed name the restarted process reuses", "error.processorTxNeedsId")
	}
	if c.Mode != Transactional && c.TransactionalID != "" {
		return invalid("a transactionalId only makes sense in tx mode", "error.processorIdOnlyTx")
	}
	return nil
}

// RunResult is what one processor run printed and whether it died.
type RunResult struct {
	// Log holds the lines processor.py would print, in the seed's shape.
	Log []string `json:"log"`
	// LogKeys names, line for line, the UI catalogue sentence of each Log
	// line (web/static/i18n, "processor.log.*") and its values, so the
	// page can print the run in the viewer's language; Log stays English.
	LogKeys []LogLine `json:"logKeys,omitempty"`
	// Crashed reports that the run ended in the injected crash.
	Crashed bool `json:"crashed"`
	// ProducerID and ProducerEpoch are the transactional producer's
	// identity in tx mode (-1 otherwise).
	ProducerID    int64 `json:"producerId"`
	ProducerEpoch int16 `json:"producerEpoch"`
}

// LogLine is one processor log line as a catalogue key and its values.
type LogLine struct {
	Key  string            `json:"key"`
	Args map[string]string `json:"args,omitempty"`
}

// Processor runs the order processor against one cluster.
type Processor struct {
	base []kgo.Opt
}

// NewProcessor returns a Processor whose clients start from base.
func NewProcessor(base []kgo.Opt) *Processor {
	return &Processor{base: base}
}

// Run processes the orders of cfg.Input from the group's committed offset
// to the current end of the partition, then returns. A crash kills the
// run's connections without another request: no EndTxn, no offset commit.
func (p *Processor) Run(ctx context.Context, cfg RunConfig) (*RunResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, conns: newConnections(false), res: &RunResult{ProducerID: -1, ProducerEpoch: -1}}
	opts := append([]kgo.Opt{}, p.base...)
	opts = append(opts, kgo.Dialer(r.conns.Dial), kgo.WithLogger(r))
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
	if err := r.process(ctx); err != nil {
		return r.res, err
	}
	return r.res, nil
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

// say appends a log line: its English text and its catalogue key with
// values (name, value pairs).
func (r *run) say(key string, kv []string, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := LogLine{Key: key, Args: make(map[string]string, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		line.Args[kv[i]] = kv[i+1]
	}
	r.res.Log = append(r.res.Log, fmt.Sprintf(format, args...))
	r.res.LogKeys = append(r.res.LogKeys, line)
}

// Level and Log make run a kgo.Logger that surfaces the coordinator's
// CONCURRENT_TRANSACTIONS answers: the retry the seed shows while a real
// broker aborts the previous incarnation's transaction.
func (r *run) Level() kgo.LogLevel { return kgo.LogLevelDebug }

// Log implements kgo.Logger.
func (r *run) Log(_ kgo.LogLevel, msg string, _ ...any) {
	if strings.HasPrefix(msg, "InitProducerID failed with CONCURRENT_TRANSACTIONS") {
		r.say("processor.log.retry", []string{"id", r.cfg.TransactionalID},
			"init_transactions: the coordinator answered CONCURRENT_TRANSACTIONS (it is still aborting the previous transaction of %s): retrying", r.cfg.TransactionalID)
	}
}

func (r *run) process(ctx context.Context) error {
	if r.cfg.Mode == Transactional {
		// init_transactions(): fences the previous incarnation and
		// aborts its open transaction before we read any offset.
		id, epoch, err := r.client.ProducerID(ctx)
		if err != nil {
			return fmt.Errorf("processor: init transactions for %s: %w", r.cfg.TransactionalID, err)
		}
		r.res.ProducerID, r.res.ProducerEpoch = id, epoch
	}
	start, end, topicID, err := r.bounds(ctx)
	if err != nil {
		return err
	}
	if start >= end {
		r.say("processor.log.nothing", []string{"group", r.cfg.Group, "offset", strconv.FormatInt(start, 10), "input", r.cfg.Input, "partition", strconv.Itoa(int(inputPartition))},
			"nothing to process: group %s is at offset %d, the end of %s-%d", r.cfg.Group, start, r.cfg.Input, inputPartition)
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
	err = kretry.Do(ctx, func() (err error) {
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
			r.crash("processor.log.crashAtMostOnce", []string{"order", order.ID, "next", strconv.FormatInt(rec.Offset+1, 10)},
				"%s: process killed while processing; offset %d was already committed, so %s will never be processed", order.ID, rec.Offset+1, order.ID)
			return true, nil
		}
		return false, r.write(ctx, rec, order, perr)
	case Plain:
		if err := r.write(ctx, rec, order, perr); err != nil {
			return false, err
		}
		if crashHere {
			r.crash("processor.log.crashPlain", []string{"order", order.ID}, "%s: process killed before the offset commit", order.ID)
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
			r.crash("processor.log.crashTx", []string{"order", order.ID},
				"%s: process killed after its offsets were added to the transaction, before commit_transaction: no EndTxn was sent", order.ID)
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
		r.say("processor.log.skipped", []string{"offset", strconv.FormatInt(rec.Offset, 10), "error", perr.Error()}, "offset %d skipped: %v", rec.Offset, perr)
		return nil
	}
	out := &kgo.Record{Topic: r.cfg.Output, Value: []byte(order.Total())}
	if err := r.client.ProduceSync(ctx, out).FirstErr(); err != nil {
		return fmt.Errorf("processor: write %s to %s: %w", order.Total(), r.cfg.Output, err)
	}
	r.say("processor.log.processed", []string{"offset", strconv.FormatInt(rec.Offset, 10), "order", order.ID, "total", order.Total(), "output", r.cfg.Output},
		"offset %d %s processed, wrote '%s' to %s", rec.Offset, order.ID, order.Total(), r.cfg.Output)
	return nil
}

// commit commits the group's position outside any transaction, as a
// consumer with manual assignment does (generation -1, no member id).
func (r *run) commit(ctx context.Context, next int64) error {
	offsets := kadm.Offsets{}
	offsets.Add(kadm.Offset{Topic: r.cfg.Input, Partition: inputPartition, At: next, LeaderEpoch: -1})
	err := kretry.Do(ctx, func() error {
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
func (r *run) crash(key string, kv []string, format string, args ...any) {
	r.say(key, kv, format, args...)
	r.res.Crashed = true
	r.conns.Kill()
	// Close releases the client's goroutines; its dials all fail now.
	go r.client.Close()
}
