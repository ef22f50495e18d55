package lessons

import (
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
)

// ShareAck has a share consumer acknowledge records it holds on partition
// 0, each as Ack says (accept, release or reject), and waits until the
// broker has each acknowledgement.
type ShareAck struct {
	Worker  string
	Topic   string
	Offsets []int64
	Ack     lab.ShareAck
}

// Kind implements Action.
func (ShareAck) Kind() string { return "share-ack" }

// Facts implements Action: what the worker holds afterwards.
func (ShareAck) Facts() []Fact { return []Fact{FactHeld} }

// Names implements Action.
func (a ShareAck) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a ShareAck) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (ShareAck) Icon() string { return live.EventInfo }

func (a ShareAck) run(sc *stepContext) (*observation, error) {
	worker, _ := sc.run.worker(a.Worker)
	obs := newObservation(sc.name(a.Topic), 0)
	var st lab.ShareWorkerState
	for _, o := range a.Offsets {
		var err error
		if st, err = sc.lab.AckShareRecord(sc, worker, 0, o, a.Ack); err != nil {
			return obs, err
		}
		obs.tool("%s %s offset %d", a.Worker, a.Ack, o)
	}
	obs.set(FactHeld, heldList(st))
	return obs, nil
}
