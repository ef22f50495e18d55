package lessons

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// StartFollowers starts the followers StopFollowers stopped (or, against
// brokers the server does not run, waits for the learner to) and waits
// until the ISR holds every replica again, recording how it refills.
type StartFollowers struct{ Topic string }

// Kind implements Action.
func (StartFollowers) Kind() string { return "start-followers" }

// Facts implements Action: the ISR size when the followers start (the
// leader alone), once it has filled again, and whether it equals the
// replicas.
func (StartFollowers) Facts() []Fact { return []Fact{FactISRBefore, FactISR, FactISRFull} }

// Names implements Action.
func (a StartFollowers) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a StartFollowers) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (StartFollowers) Icon() string { return live.EventInfo }

func (a StartFollowers) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	p, err := partition0(sc, sc, topic)
	if err != nil {
		return obs, err
	}
	followers := sc.memory().stoppedBrokers()
	if len(followers) == 0 {
		for _, r := range p.Replicas {
			if !slices.Contains(p.ISR, r) {
				followers = append(followers, r)
			}
		}
		slices.Sort(followers)
	}
	obs.command = fmt.Sprintf("docker compose -f %s start %s", composeFile, composeServices(followers))
	obs.set(FactISRBefore, strconv.Itoa(len(p.ISR)))
	obs.say("before")
	obs.tool("%s", describeLine(topic, p))
	full := func(q cluster.PartitionInfo) bool {
		r := slices.Clone(q.Replicas)
		slices.Sort(r)
		return slices.Equal(q.ISR, r)
	}
	managed := sc.lab.ManagesBrokers()
	within := manualWait
	if managed {
		for _, id := range followers {
			if err := sc.lab.StartBroker(sc, int(id)); err != nil {
				return obs, err
			}
			q, err := partition0(sc, sc, topic)
			if err != nil {
				return obs, err
			}
			obs.say("brokerStarted", "broker", itoa(id))
			obs.tool("%s", describeLine(topic, q))
		}
		within = fillWait
	}
	q, ok, err := waitISR(sc, obs, topic, within, full)
	if err != nil {
		return obs, err
	}
	if !ok && !managed {
		return obs, problem.Wrap(errWaiting, problem.Conflict, "error.lessonWaitStart", "topic", topic, "isr", joinIDs(q.ISR), "command", obs.command)
	}
	sc.memory().setStopped(nil)
	obs.set(FactISR, strconv.Itoa(len(q.ISR)))
	obs.set(FactISRFull, yesNo(ok))
	return obs, nil
}
