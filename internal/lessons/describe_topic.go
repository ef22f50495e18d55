package lessons

import (
	"context"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// DescribeTopic is kafka-topics.sh --describe: leader, replicas, ISR.
type DescribeTopic struct {
	Topic string
	// WaitInSync waits (up to 30 s) until every replica of partition 0
	// is in sync, as the followers of a new topic catch up, then reports
	// whatever the broker says.
	WaitInSync bool
}

// Kind implements Action.
func (DescribeTopic) Kind() string { return "describe-topic" }

// Facts implements Action: partition 0's replica and in-sync replica counts.
func (DescribeTopic) Facts() []Fact { return []Fact{FactPartitions, FactReplicas, FactISR, FactLeader} }

// Names implements Action.
func (a DescribeTopic) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a DescribeTopic) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (DescribeTopic) Icon() string { return live.EventInfo }

func (a DescribeTopic) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	t, err := sc.lab.Topic(sc, topic)
	if err == nil && a.WaitInSync && !inSync(t) {
		ctx, cancel := context.WithTimeout(sc, 30*time.Second)
		_ = wait.Until(ctx, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
			t, err = sc.lab.Topic(ctx, topic)
			return err != nil || inSync(t), nil
		})
		cancel()
	}
	if err != nil {
		return obs, err
	}
	for _, p := range t.Partitions {
		obs.tool("%s", describeLine(topic, p))
	}
	obs.set(FactPartitions, strconv.Itoa(len(t.Partitions)))
	if len(t.Partitions) > 0 {
		p := t.Partitions[0]
		obs.set(FactReplicas, strconv.Itoa(len(p.Replicas)))
		obs.set(FactISR, strconv.Itoa(len(p.ISR)))
		obs.set(FactLeader, yesNo(p.Leader >= 0))
	}
	return obs, nil
}

// inSync reports whether partition 0 has every replica in its ISR.
func inSync(t cluster.TopicInfo) bool {
	return len(t.Partitions) > 0 && len(t.Partitions[0].ISR) == len(t.Partitions[0].Replicas)
}
