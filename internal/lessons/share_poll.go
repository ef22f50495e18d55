package lessons

import (
	"context"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// SharePoll has a share consumer (a worker) of a group poll a topic,
// starting it on the first poll: it acquires at most Max records (0: 50)
// and holds them until it acknowledges them or their lock expires. It
// polls until it holds something, so a step waiting for a lock to expire
// elsewhere ends when the records come back.
type SharePoll struct {
	Worker string
	Group  string
	Topic  string
	Max    int
}

// Kind implements Action.
func (SharePoll) Kind() string { return "share-poll" }

// Facts implements Action.
func (SharePoll) Facts() []Fact { return []Fact{FactHeld} }

// Names implements Action.
func (a SharePoll) Names() []string { return []string{a.Topic, a.Group} }

// TopicNames implements Action.
func (a SharePoll) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (SharePoll) Icon() string { return live.EventInfo }

// sharePollFor bounds how long a step polls for records that come back
// when a lock expires (the lesson's locks last seconds).
const sharePollFor = 30 * time.Second

func (a SharePoll) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	worker, first := sc.run.worker(a.Worker)
	obs := newObservation(topic, 0)
	if first {
		_, err := sc.lab.StartShareWorker(sc, lab.ShareWorkerRequest{Name: worker, Label: a.Worker, Group: sc.name(a.Group), Topic: topic, MaxRecords: a.Max})
		if err != nil {
			return obs, err
		}
	}
	var st lab.ShareWorkerState
	ctx, cancel := context.WithTimeout(sc, sharePollFor)
	defer cancel()
	err := wait.Until(ctx, 10*time.Millisecond, func(ctx context.Context) (bool, error) {
		var err error
		st, err = sc.lab.PollShareWorker(ctx, worker)
		return len(st.Held) > 0, err
	})
	if err != nil {
		return obs, err
	}
	held := heldList(st)
	obs.tool("%s holds %s", a.Worker, held)
	obs.set(FactHeld, held)
	return obs, nil
}

// heldList is "offset/delivery count" of each record a worker holds.
func heldList(st lab.ShareWorkerState) string {
	var out []string
	for _, h := range st.Held {
		out = append(out, i64(h.Offset)+"/"+itoa(h.DeliveryCount))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
