package lessons

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// ErrWaiting marks a step that waits for the learner to do something on
// the brokers themselves (stop or start a container): the run does not
// fail, the step stays under the cursor with the sentence saying what to
// do, and Next checks again.
var ErrWaiting = errors.New("waiting for the brokers")

// manualWait bounds how long a step waits for a command the learner runs
// by hand before it hands the page back (StepTimeout bounds every step).
var manualWait = 45 * time.Second

// fillWait bounds how long StartFollowers waits for the ISR to fill.
const fillWait = 60 * time.Second

// composeFile is the three-broker compose file; node N is service kafka-N.
const composeFile = "compose.triple.yaml"

// javaOnPath reports once whether java is on PATH: the embedded broker's
// refusal of lesson 4 then says how to start the local three-broker cluster.
var javaOnPath = sync.OnceValue(func() bool {
	_, err := exec.LookPath("java")
	return err == nil
})

// StopFollowers stops every replica of Topic's partition 0 but its leader,
// as `docker compose stop` does (a controlled shutdown: the controller
// takes them out of the ISR at once), and reports the ISR afterwards. When
// the dashboard runs the brokers (Deps.Brokers) it stops them itself;
// otherwise it shows the command and waits until the ISR shows it.
type StopFollowers struct{ Topic string }

// StartFollowers starts the followers StopFollowers stopped (or, against
// brokers the dashboard does not run, waits for the learner to) and waits
// until the ISR holds every replica again, recording how it refills.
type StartFollowers struct{ Topic string }

// Kind implements Action.
func (StopFollowers) Kind() string { return "stop-followers" }

// Facts implements Action: "stopped" counts the followers taken down,
// "isr" the in-sync replicas afterwards, "leaderKept" whether the leader
// stayed the same broker.
func (StopFollowers) Facts() []string { return []string{"stopped", "isr", "leaderKept"} }

// Kind implements Action.
func (StartFollowers) Kind() string { return "start-followers" }

// Facts implements Action: "isrBefore" is the ISR size when the followers
// start (the leader alone), "isr" once it has filled again, "isrFull"
// whether it equals the replicas.
func (StartFollowers) Facts() []string { return []string{"isrBefore", "isr", "isrFull"} }

// composeServices names nodes as compose.triple.yaml's services.
func composeServices(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "kafka-" + strconv.Itoa(int(id))
	}
	return strings.Join(parts, " ")
}

func joinIDs(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}

// partition0 describes Topic's partition 0: leader, replicas, sorted ISR.
func partition0(sc stepContext, topic string) (cluster.PartitionInfo, error) {
	t, err := sc.deps.Cluster.Topic(sc, topic)
	if err != nil {
		return cluster.PartitionInfo{}, err
	}
	if len(t.Partitions) == 0 {
		return cluster.PartitionInfo{}, fmt.Errorf("topic %s has no partitions", topic)
	}
	p := t.Partitions[0]
	p.ISR = slices.Clone(p.ISR)
	slices.Sort(p.ISR)
	return p, nil
}

func describeLine(topic string, p cluster.PartitionInfo) string {
	return fmt.Sprintf("Topic: %s  Partition: 0  Leader: %d  Replicas: %s  Isr: %s", topic, p.Leader, joinIDs(p.Replicas), joinIDs(p.ISR))
}

// waitISR polls partition 0 until done(p) holds or the deadline passes,
// printing every ISR it sees change. It returns the last description.
func waitISR(sc stepContext, obs *observation, topic string, deadline time.Time, done func(cluster.PartitionInfo) bool) (cluster.PartitionInfo, bool, error) {
	start := time.Now()
	var last string
	for {
		p, err := partition0(sc, topic)
		if err != nil {
			return p, false, err
		}
		if line := describeLine(topic, p); line != last {
			obs.printf("+%.1fs  %s", time.Since(start).Seconds(), line)
			last = line
		}
		if done(p) {
			return p, true, nil
		}
		if time.Now().After(deadline) {
			return p, false, nil
		}
		if err := sleep(sc, 250*time.Millisecond); err != nil {
			return p, false, err
		}
	}
}

func (a StopFollowers) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	obs := newObservation(topic, 0)
	p, err := partition0(sc, topic)
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
	obs.printf("%s", describeLine(topic, p))
	leaderOnly := func(q cluster.PartitionInfo) bool { return slices.Equal(q.ISR, []int32{leader}) }
	if b := sc.deps.Brokers; b != nil {
		for _, id := range followers {
			if err := b.StopNode(sc, int(id)); err != nil {
				return obs, err
			}
			obs.printf("Stopped broker %d (SIGTERM: a controlled shutdown, as docker compose stop does).", id)
		}
	}
	deadline := time.Now().Add(manualWait)
	if sc.deps.Brokers != nil {
		deadline = time.Now().Add(30 * time.Second)
	}
	q, ok, err := waitISR(sc, obs, topic, deadline, leaderOnly)
	if err != nil {
		return obs, err
	}
	if !ok {
		if sc.deps.Brokers == nil {
			return obs, keyf(ErrWaiting, "error.lessonWaitStop", []string{"topic", topic, "isr", joinIDs(q.ISR), "command", obs.command},
				"The ISR of %s is still %s. Stop the two followers yourself: %s — then press Next again.", topic, joinIDs(q.ISR), obs.command)
		}
		return obs, fmt.Errorf("the ISR of %s is still %s %s after the followers stopped", topic, joinIDs(q.ISR), "30 s")
	}
	sc.run.mu.Lock()
	sc.run.memory.stopped = followers
	sc.run.mu.Unlock()
	obs.set("stopped", strconv.Itoa(len(followers)))
	obs.set("isr", strconv.Itoa(len(q.ISR)))
	obs.set("leaderKept", yesNo(q.Leader == leader))
	return obs, nil
}

func (a StartFollowers) run(sc stepContext) (*observation, error) {
	topic := sc.run.name(a.Topic)
	obs := newObservation(topic, 0)
	p, err := partition0(sc, topic)
	if err != nil {
		return obs, err
	}
	sc.run.mu.Lock()
	followers := slices.Clone(sc.run.memory.stopped)
	sc.run.mu.Unlock()
	if len(followers) == 0 {
		for _, r := range p.Replicas {
			if !slices.Contains(p.ISR, r) {
				followers = append(followers, r)
			}
		}
		slices.Sort(followers)
	}
	obs.command = fmt.Sprintf("docker compose -f %s start %s", composeFile, composeServices(followers))
	obs.set("isrBefore", strconv.Itoa(len(p.ISR)))
	obs.printf("Before: %s", describeLine(topic, p))
	full := func(q cluster.PartitionInfo) bool {
		r := slices.Clone(q.Replicas)
		slices.Sort(r)
		return slices.Equal(q.ISR, r)
	}
	if b := sc.deps.Brokers; b != nil {
		for _, id := range followers {
			if err := b.StartNode(sc, int(id)); err != nil {
				return obs, err
			}
			q, err := partition0(sc, topic)
			if err != nil {
				return obs, err
			}
			obs.printf("Started broker %d; now %s", id, describeLine(topic, q))
		}
	}
	wait := fillWait
	if sc.deps.Brokers == nil {
		wait = manualWait
	}
	q, ok, err := waitISR(sc, obs, topic, time.Now().Add(wait), full)
	if err != nil {
		return obs, err
	}
	if !ok && sc.deps.Brokers == nil {
		return obs, keyf(ErrWaiting, "error.lessonWaitStart", []string{"topic", topic, "isr", joinIDs(q.ISR), "command", obs.command},
			"The ISR of %s is still %s. Start the followers again: %s — then press Next again.", topic, joinIDs(q.ISR), obs.command)
	}
	sc.run.mu.Lock()
	sc.run.memory.stopped = nil
	sc.run.mu.Unlock()
	obs.set("isr", strconv.Itoa(len(q.ISR)))
	obs.set("isrFull", yesNo(ok))
	return obs, nil
}
