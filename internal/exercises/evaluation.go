package exercises

import (
	"context"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// maxOffsets bounds how much of a student's partition one evaluation
// reads: an exercise needs a handful of offsets, and a student who writes
// a million records must not make the grader hold them.
const maxOffsets = 1000

// evaluation is what one grading of one student reads, each read done
// once and only when a rule asks for it.
type evaluation struct {
	ctx    context.Context
	broker Broker
	names  Names
	// from is where the student's attempt starts (the log end at the
	// teacher's last reset).
	from int64

	log    *inspect.Log
	logErr error
	read   bool

	group     *cluster.GroupInfo
	groupErr  error
	groupRead bool

	shared map[string]*inspect.Log

	txn     *cluster.TransactionInfo
	txnErr  error
	txnRead bool

	// writeErr is why the exercise's jobs could not be written
	// (WriteJobs); jobs and jobsErr the attempt's jobs as read.
	writeErr error
	jobs     *jobRun
	jobsErr  error
}

// entries are the student's partition 0 from the attempt's start on: an
// unknown topic is an empty log (the student has written nothing yet).
func (ev *evaluation) entries() ([]inspect.Entry, inspect.Pointers, error) {
	if !ev.read {
		ev.read = true
		ev.log, ev.logErr = ev.broker.Log(ev.ctx, ev.names.Topic, 0, ev.from, maxOffsets)
		if ev.logErr != nil && problem.Is(ev.logErr, "error.unknownTopic") {
			ev.log, ev.logErr = &inspect.Log{Topic: ev.names.Topic}, nil
		}
	}
	if ev.logErr != nil {
		return nil, inspect.Pointers{}, ev.logErr
	}
	return ev.log.Entries, ev.log.Pointers, nil
}

// sharedEntries are partition 0 of a teacher's shared topic, from its
// start: an unknown topic is empty.
func (ev *evaluation) sharedEntries(topic string) ([]inspect.Entry, inspect.Pointers, error) {
	if l, ok := ev.shared[topic]; ok {
		return l.Entries, l.Pointers, nil
	}
	l, err := ev.broker.Log(ev.ctx, topic, 0, 0, maxOffsets)
	if err != nil && problem.Is(err, "error.unknownTopic") {
		l, err = &inspect.Log{Topic: topic}, nil
	}
	if err != nil {
		return nil, inspect.Pointers{}, err
	}
	if ev.shared == nil {
		ev.shared = map[string]*inspect.Log{}
	}
	ev.shared[topic] = l
	return l.Entries, l.Pointers, nil
}

// data are the data records among entries.
func data(entries []inspect.Entry) []inspect.Entry {
	var out []inspect.Entry
	for _, e := range entries {
		if e.Kind == inspect.KindData {
			out = append(out, e)
		}
	}
	return out
}

// groupInfo is the student's group of the exercise; nil when it has not
// committed anything yet.
func (ev *evaluation) groupInfo() (*cluster.GroupInfo, error) {
	if !ev.groupRead {
		ev.groupRead = true
		g, err := ev.broker.Group(ev.ctx, ev.names.Group)
		switch {
		case err == nil:
			ev.group = &g
		case problem.KindOf(err) == problem.NotFound:
		default:
			ev.groupErr = err
		}
	}
	return ev.group, ev.groupErr
}

// transaction is the coordinator's state of the student's transactional
// id; nil when the coordinator does not know it.
func (ev *evaluation) transaction() (*cluster.TransactionInfo, error) {
	if !ev.txnRead {
		ev.txnRead = true
		t, err := ev.broker.Transaction(ev.ctx, ev.names.TransactionalID)
		switch {
		case err == nil:
			ev.txn = &t
		case problem.KindOf(err) == problem.NotFound:
		default:
			ev.txnErr = err
		}
	}
	return ev.txn, ev.txnErr
}
