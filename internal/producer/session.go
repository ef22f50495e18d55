package producer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Sessions holds step-by-step transactional producers, one per
// transactional.id, for the dashboard's Begin / Send / Commit / Abort /
// Crash buttons. Each session is a live kgo client that keeps its producer
// id and epoch between steps, as a long-running application would.
// Close ends every session cleanly (aborting open transactions).
//
// One Sessions is one application process. Two Sessions that Begin the
// same transactional.id are two processes sharing it — the zombie case:
// the later Begin fences the earlier producer, whose next Send reports
// Fenced and whose session ends.
type Sessions struct {
	conn   Connection
	limits SessionLimits

	mu       sync.Mutex
	sessions map[string]*session
	janitor  chan struct{} // closed by Close; nil until the first session
}

// SessionLimits bound what a Sessions holds: each session is a live client
// with its connections, so a script that begins thousands of
// transactional ids must not keep thousands of sockets open.
type SessionLimits struct {
	// Max is how many sessions may be open at once (DefaultMaxSessions);
	// one more Begin is refused with problem.Busy until one ends.
	Max int
	// Idle ends a session no step touched for this long
	// (DefaultSessionIdle), aborting its open transaction as a stopped
	// application's producer would; the broker has long aborted it by
	// then (transaction.timeout.ms).
	Idle time.Duration
}

// Default session limits.
const (
	DefaultMaxSessions = 32
	DefaultSessionIdle = 15 * time.Minute
)

type session struct {
	mu       sync.Mutex // serialises steps on one transactional.id
	id       string
	client   *kgo.Client
	conns    *connections
	inTxn    bool
	written  []TopicPartition // partitions the open transaction wrote to
	lastUsed time.Time
}

// NewSessions returns an empty session set whose clients connect as conn
// says. Zero limits pick the defaults.
func NewSessions(conn Connection, limits SessionLimits) *Sessions {
	if limits.Max <= 0 {
		limits.Max = DefaultMaxSessions
	}
	if limits.Idle <= 0 {
		limits.Idle = DefaultSessionIdle
	}
	return &Sessions{conn: conn, limits: limits, sessions: make(map[string]*session)}
}

// SessionState is what a step reports.
type SessionState struct {
	TransactionalID string   `json:"transactionalId"`
	ProducerID      int64    `json:"producerId"`
	ProducerEpoch   int16    `json:"producerEpoch"`
	InTransaction   bool     `json:"inTransaction"`
	Results         []Result `json:"results,omitempty"`
	// Crashed reports that the session's process was killed.
	Crashed bool `json:"crashed,omitempty"`
	// Fenced reports that a newer producer with the same
	// transactional.id fenced this one: its write failed and the
	// session is closed.
	Fenced bool `json:"fenced,omitempty"`
	// Partitions are those the open (or just crashed) transaction wrote
	// to.
	Partitions []TopicPartition `json:"partitions,omitempty"`
}

// TopicPartition names a partition.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// get returns the session of id. A positive timeout creates it when
// missing, with that transaction.timeout.ms; zero only looks it up.
func (s *Sessions) get(id string, timeout time.Duration) (*session, error) {
	if id == "" {
		return nil, problem.New(problem.Invalid, "error.transactionalIdRequired")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[id]; ok {
		return sess, nil
	}
	if timeout <= 0 {
		return nil, problem.New(problem.Conflict, "error.sessionMissing", "id", id)
	}
	if len(s.sessions) >= s.limits.Max {
		return nil, problem.New(problem.Busy, "error.tooManySessions", "max", strconv.Itoa(s.limits.Max))
	}
	conns := newConnections(s.conn, false)
	opts := append(append([]kgo.Opt{}, s.conn.Opts...), Profile{Acks: AcksAll, TransactionalID: id}.clientOpts()...)
	opts = append(opts, kgo.Dialer(conns.Dial), kgo.TransactionTimeout(timeout), kgo.RecordPartitioner(pinnedPartitioner()))
	client, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, problem.Wrap(err, problem.Internal, "error.internal")
	}
	sess := &session{id: id, client: client, conns: conns, lastUsed: time.Now()}
	s.sessions[id] = sess
	if s.janitor == nil {
		s.janitor = make(chan struct{})
		go s.expireIdle(s.janitor)
	}
	return sess, nil
}

// expireIdle ends sessions idle longer than the limit until done closes.
func (s *Sessions) expireIdle(done chan struct{}) {
	t := time.NewTicker(min(s.limits.Idle/4, time.Minute))
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		cutoff := time.Now().Add(-s.limits.Idle)
		s.mu.Lock()
		var idle []*session
		for _, sess := range s.sessions {
			if sess.mu.TryLock() {
				if sess.lastUsed.Before(cutoff) {
					idle = append(idle, sess)
				}
				sess.mu.Unlock()
			}
		}
		s.mu.Unlock()
		for _, sess := range idle {
			s.drop(sess)
			sess.close()
		}
	}
}

// close aborts the session's open transaction and closes its producer.
func (sess *session) close() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.lastUsed = time.Now()
	if sess.inTxn {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = sess.client.EndTransaction(ctx, kgo.TryAbort)
		cancel()
		sess.inTxn = false
	}
	sess.client.Close()
}

func (s *Sessions) drop(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[sess.id] == sess {
		delete(s.sessions, sess.id)
	}
}

func (sess *session) state(ctx context.Context) SessionState {
	st := SessionState{TransactionalID: sess.id, ProducerID: -1, ProducerEpoch: -1, InTransaction: sess.inTxn, Partitions: slices.Clone(sess.written)}
	if id, epoch, err := sess.client.ProducerID(ctx); err == nil {
		st.ProducerID, st.ProducerEpoch = id, epoch
	}
	return st
}

// Begin starts a transaction, creating (and initialising, which fences any
// older producer with the same id) the session's producer if needed, with
// Kafka's default transaction.timeout.ms.
func (s *Sessions) Begin(ctx context.Context, id string) (SessionState, error) {
	return s.BeginTimeout(ctx, id, DefaultTransactionTimeout)
}

// BeginTimeout is Begin with the producer's transaction.timeout.ms: a
// transaction left open longer is aborted by the broker. Like a real
// producer's configuration, the timeout is fixed when the session's
// producer is created (its first Begin); later Begins keep it.
func (s *Sessions) BeginTimeout(ctx context.Context, id string, timeout time.Duration) (SessionState, error) {
	if timeout <= 0 {
		return SessionState{}, problem.New(problem.Invalid, "error.txnTimeoutPositive")
	}
	sess, err := s.get(id, timeout)
	if err != nil {
		return SessionState{}, err
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.lastUsed = time.Now()
	if sess.inTxn {
		return SessionState{}, problem.New(problem.Conflict, "error.txnAlreadyOpen", "id", id)
	}
	if _, _, err := sess.client.ProducerID(ctx); err != nil {
		s.drop(sess)
		sess.client.Close()
		return SessionState{}, fmt.Errorf("producer: init transactions for %s: %w", id, err)
	}
	if err := sess.client.BeginTransaction(); err != nil {
		return SessionState{}, fmt.Errorf("producer: begin transaction %s: %w", id, err)
	}
	sess.inTxn, sess.written = true, nil
	return sess.state(ctx), nil
}

// Send produces values inside the open transaction.
func (s *Sessions) Send(ctx context.Context, id string, req Request) (SessionState, error) {
	req.Profile = Profile{Acks: AcksAll, TransactionalID: id}
	if req.Fault != NoFault {
		return SessionState{}, problem.New(problem.Invalid, "error.txnNoFaults")
	}
	if err := req.Validate(); err != nil {
		return SessionState{}, err
	}
	sess, err := s.get(id, 0)
	if err != nil {
		return SessionState{}, err
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.lastUsed = time.Now()
	if !sess.inTxn {
		return SessionState{}, problem.New(problem.Conflict, "error.txnSendBeforeBegin")
	}
	var results []Result
	fenced := false
	for _, v := range req.Values {
		res, err := sendOne(ctx, sess.client, req, v)
		results = append(results, res)
		if tp := (TopicPartition{req.Topic, res.Partition}); err == nil && !slices.Contains(sess.written, tp) {
			sess.written = append(sess.written, tp)
		}
		if fenced = isFenced(err); fenced {
			break
		}
	}
	st := sess.state(ctx)
	st.Results = results
	if fenced {
		st.Fenced, st.InTransaction = true, false
		s.retire(sess)
	}
	return st, nil
}

// isFenced reports whether err says a newer producer with the same
// transactional.id took over.
func isFenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}

// retire forgets a fenced session and closes its client in the
// background; the caller holds sess.mu.
func (s *Sessions) retire(sess *session) {
	s.drop(sess)
	sess.inTxn = false
	go sess.client.Close()
}

// End commits or aborts the open transaction.
func (s *Sessions) End(ctx context.Context, id string, commit bool) (SessionState, error) {
	sess, err := s.get(id, 0)
	if err != nil {
		return SessionState{}, err
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.lastUsed = time.Now()
	if !sess.inTxn {
		return SessionState{}, problem.New(problem.Conflict, "error.txnNotOpen", "id", id)
	}
	how := kgo.TryAbort
	if commit {
		how = kgo.TryCommit
	}
	if err := sess.client.EndTransaction(ctx, how); err != nil {
		if isFenced(err) {
			s.retire(sess)
			return SessionState{}, problem.Wrap(err, problem.Conflict, "error.txnFenced", "id", id, "detail", err.Error())
		}
		return SessionState{}, fmt.Errorf("producer: end transaction %s: %w", id, err)
	}
	sess.inTxn = false
	return sess.state(ctx), nil
}

// Crash kills the session's producer as SIGKILL would: connections drop,
// no EndTxn is sent, the transaction stays open on the broker until a new
// producer with the same id fences it or transaction.timeout.ms passes.
func (s *Sessions) Crash(ctx context.Context, id string) (SessionState, error) {
	sess, err := s.get(id, 0)
	if err != nil {
		return SessionState{}, err
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.lastUsed = time.Now()
	st := sess.state(ctx)
	st.Crashed, st.InTransaction = true, false
	s.drop(sess)
	sess.conns.Kill()
	go sess.client.Close()
	return st, nil
}

// Close aborts open transactions and closes every session's producer.
func (s *Sessions) Close() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*session{}
	if s.janitor != nil {
		close(s.janitor)
		s.janitor = nil
	}
	s.mu.Unlock()
	for _, sess := range all {
		sess.close()
	}
}
