package lessons

import (
	"cmp"
	"time"

	"github.com/offsetlab/offsetlab/internal/live"
)

// Begin starts a transaction in a process's producer, initialising it
// first (which fences an older producer with the same transactional.id).
// Process names one application process of the run ("app" when empty);
// two processes with one transactional.id are the zombie case.
type Begin struct {
	Process         string
	TransactionalID string
	// TimeoutMs is the producer's transaction.timeout.ms; zero means
	// Kafka's default (60000). It takes effect when the process's
	// producer is created.
	TimeoutMs int
}

// Kind implements Action.
func (Begin) Kind() string { return "txn-begin" }

// Facts implements Action: FactFencedPrevious says the epoch rose above
// the one another process of the run began with; FactSameProducerID that
// the producer id stayed (a fence keeps the id, bumps the epoch).
func (Begin) Facts() []Fact { return []Fact{FactProducerID, FactFencedPrevious, FactSameProducerID} }

// Names implements Action.
func (a Begin) Names() []string { return []string{a.TransactionalID} }

// TopicNames implements Action.
func (Begin) TopicNames() []string { return nil }

// Icon implements Action.
func (Begin) Icon() string { return live.EventInfo }

func (a Begin) run(sc *stepContext) (*observation, error) {
	id := sc.name(a.TransactionalID)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation("", 0)
	st, err := sc.lab.Begin(sc, sc.process(process), id, time.Duration(a.TimeoutMs)*time.Millisecond)
	if err != nil {
		return obs, err
	}
	obs.say("begin.started", "process", process, "txid", id, "producer", i64(st.ProducerID), "epoch", itoa(st.ProducerEpoch))
	if a.TimeoutMs > 0 {
		obs.say("begin.timeout", "ms", itoa(a.TimeoutMs))
	}
	obs.set(FactProducerID, yesNo(st.ProducerID >= 0))
	prev, ok := sc.memory().begin(id, beginRecord{process: process, id: st.ProducerID, epoch: st.ProducerEpoch})
	fenced := ok && prev.process != process && st.ProducerEpoch > prev.epoch
	obs.set(FactFencedPrevious, yesNo(fenced))
	obs.set(FactSameProducerID, yesNo(ok && prev.id == st.ProducerID))
	if fenced {
		sc.memory().crashed(id, prev.epoch)
		obs.say("begin.fenced", "from", itoa(prev.epoch), "to", itoa(st.ProducerEpoch), "process", prev.process)
	}
	return obs, nil
}
