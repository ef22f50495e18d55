package lessons

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// Lesson 4 stops and starts partition 0's followers (StopFollowers,
// StartFollowers). When the server runs the brokers it does so itself;
// against brokers it does not run, a step shows the compose command, waits
// a while for the ISR to show it was done, and otherwise hands the page
// back with errWaiting: the step stays under the cursor and Next checks
// again.

// errWaiting marks a step that waits for the learner to do something on
// the brokers themselves (stop or start a container).
var errWaiting = errors.New("waiting for the brokers")

// manualWait bounds how long a step waits for a command the learner runs
// by hand before it hands the page back (StepTimeout bounds every step).
const manualWait = 45 * time.Second

// fillWait bounds how long StartFollowers waits for the ISR to fill.
const fillWait = 60 * time.Second

// composeFile is the three-broker compose file; node N is service kafka-N.
const composeFile = "compose.triple.yaml"

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

// partition0 describes topic's partition 0: leader, replicas, sorted ISR.
func partition0(ctx context.Context, sc *stepContext, topic string) (cluster.PartitionInfo, error) {
	t, err := sc.lab.Topic(ctx, topic)
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
	return fmt.Sprintf("Topic: %s  Partition: %d  Leader: %d  Replicas: %s  Isr: %s", topic, p.Partition, p.Leader, joinIDs(p.Replicas), joinIDs(p.ISR))
}

// waitISR polls partition 0 for at most within until done(p) holds,
// printing every ISR it sees change. It returns the last description and
// whether done held.
func waitISR(sc *stepContext, obs *observation, topic string, within time.Duration, done func(cluster.PartitionInfo) bool) (cluster.PartitionInfo, bool, error) {
	ctx, cancel := context.WithTimeout(sc, within)
	defer cancel()
	start := time.Now()
	var last string
	var p cluster.PartitionInfo
	held := false
	err := wait.Until(ctx, 250*time.Millisecond, func(ctx context.Context) (bool, error) {
		q, err := partition0(ctx, sc, topic)
		if problem.Unreachable(err) {
			return false, nil // a broker just stopped or started: ask again
		}
		if err != nil {
			return false, err
		}
		p = q
		if line := describeLine(topic, p); line != last {
			obs.tool("+%.1fs  %s", time.Since(start).Seconds(), line)
			last = line
		}
		held = done(p)
		return held, nil
	})
	if err != nil && sc.Err() == nil && ctx.Err() != nil {
		err = nil // the wait ran out: the caller reports what it saw
	}
	return p, held, err
}
