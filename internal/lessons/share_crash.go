package lessons

import (
	"github.com/offsetlab/offsetlab/internal/live"
)

// ShareCrash freezes a share consumer as a hung process: it stops polling
// and acknowledging, so the records it holds stay locked until each lock
// expires.
type ShareCrash struct {
	Worker string
	Topic  string
}

// Kind implements Action.
func (ShareCrash) Kind() string { return "share-crash" }

// Facts implements Action: FactHeld is what it held when it died.
func (ShareCrash) Facts() []Fact { return []Fact{FactCrashed, FactHeld} }

// Names implements Action.
func (a ShareCrash) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a ShareCrash) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (ShareCrash) Icon() string { return live.EventCrash }

func (a ShareCrash) run(sc *stepContext) (*observation, error) {
	worker, _ := sc.run.worker(a.Worker)
	obs := newObservation(sc.name(a.Topic), 0)
	st, err := sc.lab.CrashShareWorker(worker)
	if err != nil {
		return obs, err
	}
	obs.tool("kill -STOP %s   # holds %s", a.Worker, heldList(st))
	obs.set(FactCrashed, yesNo(st.Crashed))
	obs.set(FactHeld, heldList(st))
	return obs, nil
}
