package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// StopFollowers stops every replica of Topic's partition 0 but its leader,
// as `docker compose stop` does (a controlled shutdown: the controller
// takes them out of the ISR at once), and reports the ISR afterwards.
type StopFollowers struct{ Topic string }

// Kind implements Action.
func (StopFollowers) Kind() string { return "stop-followers" }

// Facts implements Action: followers taken down, the in-sync replicas
// afterwards, whether the leader stayed the same broker.
func (StopFollowers) Facts() []Fact { return []Fact{FactStopped, FactISR, FactLeaderKept} }

// Names implements Action.
func (a StopFollowers) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a StopFollowers) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (StopFollowers) Icon() string { return live.EventWarning }

func (a StopFollowers) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	p, err := partition0(sc, sc, topic)
	if err != nil {
		return obs, err
	}
	leader := p.Leader
	var followers []int32
	for _, r := range p.Replicas {
		if r != leader {
			followers = append(followers, r)
		}
	}
	slices.Sort(followers)
	obs.command = fmt.Sprintf("docker compose -f %s stop %s   # the followers of %s; the leader is broker %d", composeFile, composeServices(followers), topic, leader)
	obs.tool("%s", describeLine(topic, p))
	managed := sc.lab.ManagesBrokers()
	within := manualWait
	if managed {
		for _, id := range followers {
			if err := sc.lab.StopBroker(sc, int(id)); err != nil {
				return obs, err
			}
			obs.say("brokerStopped", "broker", itoa(id))
		}
		within = 30 * time.Second
	}
	leaderOnly := func(q cluster.PartitionInfo) bool { return slices.Equal(q.ISR, []int32{leader}) }
	q, ok, err := waitISR(sc, obs, topic, within, leaderOnly)
	if err != nil {
		return obs, err
	}
	if !ok {
		if !managed {
			return obs, problem.Wrap(errWaiting, problem.Conflict, "error.lessonWaitStop", "topic", topic, "isr", joinIDs(q.ISR), "command", obs.command)
		}
		return obs, problem.New(problem.Conflict, "error.lessonIsrStuck", "topic", topic, "isr", joinIDs(q.ISR))
	}
	sc.memory().setStopped(followers)
	obs.set(FactStopped, strconv.Itoa(len(followers)))
	obs.set(FactISR, strconv.Itoa(len(q.ISR)))
	obs.set(FactLeaderKept, yesNo(q.Leader == leader))
	return obs, nil
}
