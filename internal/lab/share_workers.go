package lab

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// Share workers are share consumers (KIP-932) the dashboard runs in its own
// process, one franz-go client each (kgo.ShareGroup): a student starts
// them on a topic, has them poll, acknowledges each record they hold
// (accept, release, reject), crashes or stops them. Because the lab holds
// their records, it knows their acquisitions exactly on both brokers: on
// real Kafka, whose state topic names no holder, SharePartition shows the
// records a worker holds as acquired by it, with the lock's deadline.

// MaxShareWorkers bounds the workers a Lab runs at once.
const MaxShareWorkers = 16

// maxSharePoll bounds the records one poll acquires.
const maxSharePoll = 50

// sharePollWait bounds how long a poll waits for records.
const sharePollWait = 3 * time.Second

var workerName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,40}$`)

// ShareWorkerRequest starts a worker.
type ShareWorkerRequest struct {
	// Name names the worker (its client id is offsetlab-worker-NAME).
	Name string `json:"name"`
	// Label is what the share lanes call the worker, its Name when empty:
	// a lesson's run names its workers apart from other runs' and its
	// lanes say "w1" as its story does.
	Label string `json:"label,omitempty"`
	Group string `json:"group"`
	Topic string `json:"topic"`
	// FromStart sets the group's share.auto.offset.reset to earliest
	// first, so that it reads what the topic holds already (a share
	// group starts at the log end by default).
	FromStart bool `json:"fromStart,omitempty"`
	// MaxRecords bounds the records one poll acquires (1 to 50; 0 is
	// 50), as the Java client's max.poll.records does.
	MaxRecords int `json:"maxRecords,omitempty"`
}

// label is what the lanes and the narration call the worker.
func (r ShareWorkerRequest) label() string {
	if r.Label != "" {
		return r.Label
	}
	return r.Name
}

// ShareWorkerState is a worker as the dashboard shows it.
type ShareWorkerState struct {
	Name string `json:"name"`
	// Label is what the share lanes call it (ShareWorkerRequest.Label).
	Label   string `json:"label"`
	Group   string `json:"group"`
	Topic   string `json:"topic"`
	Crashed bool   `json:"crashed,omitempty"`
	// Held are the records it acquired and has not acknowledged.
	Held []HeldRecord `json:"held"`
}

// HeldRecord is a record a worker holds.
type HeldRecord struct {
	Partition     int32     `json:"partition"`
	Offset        int64     `json:"offset"`
	DeliveryCount int32     `json:"deliveryCount"`
	LockExpiresAt time.Time `json:"lockExpiresAt"`
}

// shareWorker is one running worker.
type shareWorker struct {
	req    ShareWorkerRequest
	client *kgo.Client

	mu      sync.Mutex
	held    map[int32]map[int64]*kgo.Record
	crashed bool
}

// shareWorkers are a Lab's workers, by name.
type shareWorkers struct {
	mu     sync.Mutex
	byName map[string]*shareWorker
}

// StartShareWorker starts a share consumer of req.Group on req.Topic in the
// dashboard's process; it acquires nothing until it polls.
func (l *Lab) StartShareWorker(ctx context.Context, req ShareWorkerRequest) (ShareWorkerState, error) {
	if err := l.writes(req.Group); err != nil {
		return ShareWorkerState{}, err
	}
	if !workerName.MatchString(req.Name) {
		return ShareWorkerState{}, problem.New(problem.Invalid, "error.workerName", "name", req.Name)
	}
	if req.Group == "" {
		return ShareWorkerState{}, problem.New(problem.Invalid, "error.groupRequired")
	}
	if req.MaxRecords < 0 || req.MaxRecords > maxSharePoll {
		return ShareWorkerState{}, problem.New(problem.Invalid, "error.maxRecords", "max", strconv.Itoa(maxSharePoll))
	}
	if req.MaxRecords == 0 {
		req.MaxRecords = maxSharePoll
	}
	if _, err := l.Topic(ctx, req.Topic); err != nil {
		return ShareWorkerState{}, err
	}
	if req.FromStart {
		if err := l.cluster.SetGroupConfig(ctx, req.Group, "share.auto.offset.reset", "earliest"); err != nil {
			return ShareWorkerState{}, l.notAllowed(err, "ALTER_CONFIGS", "group", req.Group)
		}
	}
	l.workers.mu.Lock()
	defer l.workers.mu.Unlock()
	if _, ok := l.workers.byName[req.Name]; ok {
		return ShareWorkerState{}, problem.New(problem.Conflict, "error.workerExists", "name", req.Name)
	}
	if len(l.workers.byName) >= MaxShareWorkers {
		return ShareWorkerState{}, problem.New(problem.Busy, "error.tooManyWorkers", "max", strconv.Itoa(MaxShareWorkers))
	}
	opts := append(l.cluster.ClientOpts(), kgo.ClientID("offsetlab-worker-"+req.Name), kgo.ConsumeTopics(req.Topic),
		kgo.ShareGroup(req.Group), kgo.ShareMaxRecords(int32(req.MaxRecords)), kgo.ShareMaxRecordsStrict())
	client, err := kgo.NewClient(opts...)
	if err != nil {
		return ShareWorkerState{}, problem.Wrap(err, problem.Internal, "error.internal")
	}
	w := &shareWorker{req: req, client: client, held: map[int32]map[int64]*kgo.Record{}}
	if l.workers.byName == nil {
		l.workers.byName = map[string]*shareWorker{}
	}
	l.workers.byName[req.Name] = w
	l.narrate(live.EventInfo, req.Topic, 0, "narration.share.started", "worker", req.label(), "group", req.Group, "topic", req.Topic)
	return w.state(), nil
}

// worker returns the running worker name.
func (l *Lab) worker(name string) (*shareWorker, error) {
	l.workers.mu.Lock()
	defer l.workers.mu.Unlock()
	w, ok := l.workers.byName[name]
	if !ok {
		return nil, problem.New(problem.NotFound, "error.unknownWorker", "name", name)
	}
	return w, nil
}

// ShareWorkers lists the running workers, by name.
func (l *Lab) ShareWorkers() []ShareWorkerState {
	l.workers.mu.Lock()
	ws := make([]*shareWorker, 0, len(l.workers.byName))
	for _, w := range l.workers.byName {
		ws = append(ws, w)
	}
	l.workers.mu.Unlock()
	out := make([]ShareWorkerState, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.state())
	}
	slices.SortFunc(out, func(a, b ShareWorkerState) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return out
}

// PollShareWorker has worker name fetch once: the broker acquires up to 50
// records for it, which it holds until acknowledged or until their lock
// expires. As KafkaShareConsumer's implicit mode does, a poll first
// accepts whatever the previous poll left unacknowledged.
func (l *Lab) PollShareWorker(ctx context.Context, name string) (ShareWorkerState, error) {
	w, err := l.worker(name)
	if err != nil {
		return ShareWorkerState{}, err
	}
	w.mu.Lock()
	if w.crashed {
		w.mu.Unlock()
		return ShareWorkerState{}, problem.New(problem.Conflict, "error.workerCrashed", "name", name)
	}
	pollCtx, cancel := context.WithTimeout(ctx, sharePollWait)
	fetches := w.client.PollRecords(pollCtx, w.req.MaxRecords)
	cancel()
	accepted := 0
	touched := map[int32]bool{}
	for p, byOffset := range w.held {
		accepted += len(byOffset)
		touched[p] = len(byOffset) > 0
	}
	w.held = map[int32]map[int64]*kgo.Record{}
	var got []int64
	fetches.EachRecord(func(r *kgo.Record) {
		if w.held[r.Partition] == nil {
			w.held[r.Partition] = map[int64]*kgo.Record{}
		}
		w.held[r.Partition][r.Offset] = r
		got = append(got, r.Offset)
		touched[r.Partition] = true
	})
	w.mu.Unlock()
	if accepted > 0 {
		if err := w.client.FlushAcks(ctx); err != nil {
			return ShareWorkerState{}, problem.KafkaError(err)
		}
	}
	// The share lanes show what this poll acquired (and accepted) when it returns.
	for p, ok := range touched {
		if ok {
			l.record(ctx, w.req.Topic, []int32{p})
		}
	}
	l.narrate(live.EventInfo, w.req.Topic, 0, "narration.share.polled", "worker", w.req.label(), "count", strconv.Itoa(len(got)),
		"offsets", offsetList(got), "accepted", strconv.Itoa(accepted))
	return w.state(), nil
}

// ShareAck is how a worker acknowledges a record.
type ShareAck string

// The acknowledgements a worker can send (KIP-932).
const (
	AckAccept  ShareAck = "accept"
	AckRelease ShareAck = "release"
	AckReject  ShareAck = "reject"
)

// AckShareRecord has worker name acknowledge the record it holds at
// partition/offset: accept (done), release (deliver it again) or reject
// (archive it), and waits until the broker has the acknowledgement.
func (l *Lab) AckShareRecord(ctx context.Context, name string, partition int32, offset int64, ack ShareAck) (ShareWorkerState, error) {
	status, ok := map[ShareAck]kgo.AckStatus{AckAccept: kgo.AckAccept, AckRelease: kgo.AckRelease, AckReject: kgo.AckReject}[ack]
	if !ok {
		return ShareWorkerState{}, problem.New(problem.Invalid, "error.shareAck", "ack", string(ack))
	}
	w, err := l.worker(name)
	if err != nil {
		return ShareWorkerState{}, err
	}
	w.mu.Lock()
	r := w.held[partition][offset]
	if r == nil || w.crashed {
		w.mu.Unlock()
		return ShareWorkerState{}, problem.New(problem.Conflict, "error.notHeld", "name", name, "offset", strconv.FormatInt(offset, 10))
	}
	r.Ack(status)
	delete(w.held[partition], offset)
	w.mu.Unlock()
	if err := w.client.FlushAcks(ctx); err != nil {
		return ShareWorkerState{}, problem.KafkaError(err)
	}
	l.record(ctx, w.req.Topic, []int32{partition}) // the lane shows the acknowledgement when this returns
	l.narrateAt(live.EventInfo, w.req.Topic, partition, -1, catalog.M("narration.share."+string(ack), "worker", w.req.label(),
		"offset", strconv.FormatInt(offset, 10), "attempt", strconv.Itoa(int(r.DeliveryCount()))))
	return w.state(), nil
}

// CrashShareWorker freezes worker name as a hung process: it stops
// polling and acknowledging but keeps its connection, so the broker
// keeps its records locked until each lock expires and then delivers
// them again, with a higher delivery count. StopShareWorker ends it.
func (l *Lab) CrashShareWorker(name string) (ShareWorkerState, error) {
	w, err := l.worker(name)
	if err != nil {
		return ShareWorkerState{}, err
	}
	w.mu.Lock()
	w.crashed = true
	held := 0
	for _, byOffset := range w.held {
		held += len(byOffset)
	}
	w.mu.Unlock()
	l.narrate(live.EventCrash, w.req.Topic, 0, "narration.share.crashed", "worker", w.req.label(), "count", strconv.Itoa(held))
	return w.state(), nil
}

// StopShareWorker closes worker name as a stopped application closes its
// consumer: it leaves the group and the broker releases what it held.
func (l *Lab) StopShareWorker(name string) error {
	l.workers.mu.Lock()
	w, ok := l.workers.byName[name]
	delete(l.workers.byName, name)
	l.workers.mu.Unlock()
	if !ok {
		return problem.New(problem.NotFound, "error.unknownWorker", "name", name)
	}
	w.client.Close()
	l.narrate(live.EventInfo, w.req.Topic, 0, "narration.share.stopped", "worker", w.req.label(), "group", w.req.Group)
	return nil
}

// closeAll stops every worker (when the Lab closes).
func (s *shareWorkers) closeAll() {
	s.mu.Lock()
	ws := s.byName
	s.byName = nil
	s.mu.Unlock()
	for _, w := range ws {
		w.client.Close()
	}
}

// state is the worker as the dashboard shows it; a crashed worker's
// records whose lock has expired are no longer its own.
func (w *shareWorker) state() ShareWorkerState {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := ShareWorkerState{Name: w.req.Name, Label: w.req.label(), Group: w.req.Group, Topic: w.req.Topic, Crashed: w.crashed, Held: []HeldRecord{}}
	now := time.Now()
	for p, byOffset := range w.held {
		for o, r := range byOffset {
			if d := r.AcquisitionDeadline(); !d.IsZero() && d.Before(now) {
				continue
			}
			s.Held = append(s.Held, HeldRecord{Partition: p, Offset: o, DeliveryCount: r.DeliveryCount(), LockExpiresAt: r.AcquisitionDeadline()})
		}
	}
	slices.SortFunc(s.Held, func(a, b HeldRecord) int {
		if a.Partition != b.Partition {
			return int(a.Partition - b.Partition)
		}
		return int(min(max(a.Offset-b.Offset, -1), 1))
	})
	return s
}

// overlayWorkers names, in a share-partition, the dashboard's worker that
// holds each record one holds; read from Kafka's state topic, such a record
// becomes acquired, with its lock's deadline: what Kafka does not write
// down, the lab knows.
func (l *Lab) overlayWorkers(sp *cluster.SharePartition) {
	for _, w := range l.ShareWorkers() {
		if w.Group != sp.Group || w.Topic != sp.Topic {
			continue
		}
		for _, h := range w.Held {
			if h.Partition != sp.Partition {
				continue
			}
			for i := range sp.Records {
				r := &sp.Records[i]
				switch {
				case r.Offset != h.Offset:
				case r.State == "acquired": // the embedded broker's own
					r.Worker = w.Label
				case r.State == "inFlight" || r.State == "available":
					at := h.LockExpiresAt
					r.State, r.Worker, r.DeliveryCount, r.LockExpiresAt = "acquired", w.Label, h.DeliveryCount, &at
				}
			}
		}
	}
}

// offsetList writes offsets as "3, 4, 5" (at most 20, then "…").
func offsetList(offsets []int64) string {
	s := ""
	for i, o := range offsets {
		if i == 20 {
			return s + ", …"
		}
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatInt(o, 10)
	}
	return s
}

// SetGroupConfig sets one config of group, as kafka-configs.sh
// --entity-type groups --alter --add-config does: a share group's
// share.auto.offset.reset, share.record.lock.duration.ms,
// share.delivery.count.limit or share.isolation.level.
func (l *Lab) SetGroupConfig(ctx context.Context, group, key, value string) error {
	if err := l.writable(); err != nil {
		return err
	}
	if group == "" {
		return problem.New(problem.Invalid, "error.groupRequired")
	}
	if err := l.cluster.SetGroupConfig(ctx, group, key, value); err != nil {
		return l.notAllowed(err, "ALTER_CONFIGS", "group", group)
	}
	return nil
}
