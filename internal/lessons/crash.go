package lessons

import (
	"cmp"

	"github.com/offsetlab/offsetlab/internal/live"
)

// Crash kills the process's producer as SIGKILL would: no EndTxn, its
// open transaction stays Ongoing until a newer producer with the same
// transactional.id fences it or transaction.timeout.ms passes.
type Crash struct {
	Process         string
	TransactionalID string
}

// Kind implements Action.
func (Crash) Kind() string { return "txn-crash" }

// Facts implements Action.
func (Crash) Facts() []Fact { return []Fact{FactCrashed} }

// Names implements Action.
func (a Crash) Names() []string { return []string{a.TransactionalID} }

// TopicNames implements Action.
func (Crash) TopicNames() []string { return nil }

// Icon implements Action.
func (Crash) Icon() string { return live.EventCrash }

func (a Crash) run(sc *stepContext) (*observation, error) {
	id := sc.name(a.TransactionalID)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation("", 0)
	st, err := sc.lab.Crash(sc, sc.process(process), id)
	if err != nil {
		return obs, err
	}
	obs.say("crash.killed", "process", process, "txid", id, "producer", i64(st.ProducerID), "epoch", itoa(st.ProducerEpoch))
	obs.set(FactCrashed, yesNo(st.Crashed))
	sc.memory().crashed(id, st.ProducerEpoch)
	return obs, nil
}
