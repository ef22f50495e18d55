package lab

import (
	"context"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Step-by-step transactions: an application process (DashboardProcess for
// the page's transaction panel, or a lesson's own) begins, sends, commits,
// aborts or crashes, one call at a time, keeping its producer between
// steps as a long-running application does.

// Begin starts a transaction of id in process (initialising its producer
// first, which fences any older producer with the same id). A positive
// timeout is the producer's transaction.timeout.ms, fixed when the
// process first uses id; zero means Kafka's default.
func (l *Lab) Begin(ctx context.Context, process, id string, timeout time.Duration) (producer.SessionState, error) {
	if err := l.writes(id); err != nil {
		return producer.SessionState{}, err
	}
	sessions, err := l.processes.get(process)
	if err != nil {
		return producer.SessionState{}, err
	}
	if timeout <= 0 {
		timeout = producer.DefaultTransactionTimeout
	}
	st, err := sessions.BeginTimeout(ctx, id, timeout)
	if err != nil {
		return st, err
	}
	l.narrate(live.EventInfo, "", 0, "narration.txn.begin", sessionArgs(st)...)
	return st, nil
}

// Send produces req's values inside process's open transaction of id,
// after checking the topic and partition exist. A producer fenced by a
// newer one reports Fenced in the state, not an error.
func (l *Lab) Send(ctx context.Context, process, id string, req producer.Request) (producer.SessionState, error) {
	if err := l.writes(id, req.Topic); err != nil {
		return producer.SessionState{}, err
	}
	if err := l.roomToStore(); err != nil {
		return producer.SessionState{}, err
	}
	sessions, err := l.processes.get(process)
	if err != nil {
		return producer.SessionState{}, err
	}
	p := int32(0)
	if req.Partition != nil {
		p = *req.Partition
	}
	t, err := l.partition(ctx, req.Topic, p)
	if err != nil {
		return producer.SessionState{}, err
	}
	l.record(ctx, req.Topic, toRecord(t, req.Partition))
	st, err := sessions.Send(ctx, id, req)
	l.recordWritten(ctx, st.Partitions)
	return st, err
}

// End commits or aborts process's open transaction of id.
func (l *Lab) End(ctx context.Context, process, id string, commit bool) (producer.SessionState, error) {
	if err := l.writable(); err != nil {
		return producer.SessionState{}, err
	}
	sessions, err := l.processes.get(process)
	if err != nil {
		return producer.SessionState{}, err
	}
	st, err := sessions.End(ctx, id, commit)
	l.recordWritten(ctx, st.Partitions)
	return st, err
}

// Crash kills process's producer of id as SIGKILL would: no EndTxn, its
// transaction stays Ongoing and holds the LSO back until a newer producer
// with the same id fences it or transaction.timeout.ms passes.
func (l *Lab) Crash(ctx context.Context, process, id string) (producer.SessionState, error) {
	if err := l.writable(); err != nil {
		return producer.SessionState{}, err
	}
	sessions, err := l.processes.get(process)
	if err != nil {
		return producer.SessionState{}, err
	}
	st, err := sessions.Crash(ctx, id)
	if err != nil {
		return st, err
	}
	msg := catalog.M("narration.txn.crash", sessionArgs(st)...)
	if len(st.Partitions) == 0 {
		l.Narrate(live.EventCrash, "", 0, msg)
	}
	for _, p := range st.Partitions { // told where the open transaction holds the LSO
		l.narrateAt(live.EventCrash, p.Topic, p.Partition, -1, msg)
	}
	return st, nil
}

// EndProcess stops a process as a stopped application stops: its open
// transactions aborted, its producers closed.
func (l *Lab) EndProcess(process string) { l.processes.end(process) }

func sessionArgs(st producer.SessionState) []string {
	return []string{"txid", st.TransactionalID, "producer", strconv.FormatInt(st.ProducerID, 10), "epoch", strconv.Itoa(int(st.ProducerEpoch))}
}
