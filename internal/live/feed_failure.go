package live

import "github.com/offsetlab/offsetlab/internal/problem"

// A feed's failed polls: what it tells its viewers when the broker stops
// answering or the partition cannot be read.

// failed tells viewers why the poll failed: an unreachable broker (the
// banner), or another problem, such as a user who may not read the
// partition (shown in place of the log, never as an empty one).
func (f *feed) failed(err error) {
	if problem.Unreachable(err) {
		f.brokerDown(err)
		return
	}
	p := problem.As(err)
	f.hub.cfg.Logger.Warn("live: poll failed", "topic", f.key.topic, "partition", f.key.partition, "err", err)
	ev := NewEvent(EventWarning, f.key.topic, f.key.partition, p.Message)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.problem != nil && f.problem.Key == ev.Key && f.problem.Text == ev.Text {
		return
	}
	f.problem = &ev
	f.publishLocked(encode(Message{Type: TypeProblem, Topic: f.key.topic, Partition: f.key.partition, Problem: &ev}))
}

// brokerDown tells viewers once that the broker stopped answering.
func (f *feed) brokerDown(err error) {
	f.hub.cfg.Logger.Warn("live: poll failed", "topic", f.key.topic, "partition", f.key.partition, "err", err)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unreachable {
		return
	}
	f.unreachable = true
	no := false
	p := problem.As(err)
	f.publishLocked(encode(Message{Type: TypeBroker, Topic: f.key.topic, Partition: f.key.partition, Reachable: &no,
		Error: p.Error(), ErrorCode: p.Message.Key, ErrorArgs: p.Message.Args}))
}
