package lessons

import (
	"context"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// AwaitBrokerAbort waits, at most Within, until no record of Topic is in
// an open transaction any more — the broker aborted the hanging one once
// its transaction.timeout.ms passed — then reads the log as ReadLog does.
type AwaitBrokerAbort struct {
	Topic  string
	Within time.Duration
}

// Kind implements Action.
func (AwaitBrokerAbort) Kind() string { return "await-broker-abort" }

// Facts implements Action: those of ReadLog, once nothing is open.
func (AwaitBrokerAbort) Facts() []Fact { return ReadLog{}.Facts() }

// Names implements Action.
func (a AwaitBrokerAbort) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a AwaitBrokerAbort) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (AwaitBrokerAbort) Icon() string { return live.EventAbort }

func (a AwaitBrokerAbort) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	start := time.Now()
	ctx, cancel := context.WithTimeout(sc, a.Within)
	defer cancel()
	var l *inspect.Log
	open := 0
	err := wait.Until(ctx, 250*time.Millisecond, func(ctx context.Context) (bool, error) {
		var err error
		if l, err = sc.lab.Log(ctx, topic, 0, 0, inspect.MaxLimit); err != nil {
			return false, err
		}
		open = 0
		for _, e := range l.Entries {
			if e.Kind == inspect.KindData && e.Txn == inspect.TxnOpen {
				open++
			}
		}
		return open == 0 && l.LastStableOffset == l.HighWatermark, nil
	})
	if err != nil {
		if sc.Err() == nil && ctx.Err() != nil {
			return obs, problem.New(problem.Conflict, "error.lessonStillOpen", "count", strconv.Itoa(open), "topic", topic, "seconds", strconv.Itoa(int(a.Within.Round(time.Second).Seconds())))
		}
		return obs, err
	}
	obs.say("brokerAborted", "seconds", strconv.FormatFloat(time.Since(start).Seconds(), 'f', 1, 64))
	observeLog(sc, obs, l)
	return obs, nil
}
