package lessons

import (
	"cmp"

	"github.com/offsetlab/offsetlab/internal/live"
)

// End commits or aborts the process's open transaction and waits until
// the coordinator has written its markers.
type End struct {
	Process         string
	TransactionalID string
	Commit          bool
}

// Kind implements Action.
func (a End) Kind() string {
	if a.Commit {
		return "txn-commit"
	}
	return "txn-abort"
}

// Facts implements Action.
func (End) Facts() []Fact { return []Fact{FactEnded} }

// Names implements Action.
func (a End) Names() []string { return []string{a.TransactionalID} }

// TopicNames implements Action.
func (End) TopicNames() []string { return nil }

// Icon implements Action.
func (a End) Icon() string {
	if a.Commit {
		return live.EventCommit
	}
	return live.EventAbort
}

func (a End) run(sc *stepContext) (*observation, error) {
	id := sc.name(a.TransactionalID)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation("", 0)
	if _, err := sc.lab.End(sc, sc.process(process), id, a.Commit); err != nil {
		return obs, err
	}
	settle(sc, id)
	how := "aborted"
	if a.Commit {
		how = "committed"
	}
	obs.say("end."+how, "process", process, "txid", id)
	obs.set(FactEnded, how)
	return obs, nil
}
