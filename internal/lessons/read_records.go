package lessons

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// ReadRecords reads a partition from the start as a consumer at Isolation
// receives it (the seeds' read.py, kafka-console-consumer.sh).
type ReadRecords struct {
	Topic string
	// Partition is read unless PartitionOfKey names a key an earlier
	// Produce of the run wrote: then that key's partition is read.
	Partition      int32
	PartitionOfKey string
	Isolation      inspect.Isolation
	// AtLeast waits (up to 10 s) until the partition holds this many
	// offsets: acks=0 producers return before the broker stored anything.
	AtLeast int64
}

// Kind implements Action.
func (ReadRecords) Kind() string { return "read-records" }

// Facts implements Action.
func (ReadRecords) Facts() []Fact {
	return []Fact{FactRecords, FactOffsets, FactTotal, FactCount, FactKeyOrder}
}

// Names implements Action.
func (a ReadRecords) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a ReadRecords) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (ReadRecords) Icon() string { return live.EventInfo }

func (a ReadRecords) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	partition := a.Partition
	if a.PartitionOfKey != "" {
		p, ok := sc.memory().partitionOf(a.PartitionOfKey)
		if !ok {
			return nil, fmt.Errorf("no earlier step of this lesson wrote key %q", a.PartitionOfKey)
		}
		partition = p
	}
	obs := newObservation(topic, partition)
	if a.AtLeast > 0 {
		if err := waitForOffsets(sc, topic, partition, a.AtLeast); err != nil {
			return obs, err
		}
	}
	recs, err := sc.lab.Records(sc, topic, partition, a.Isolation, 0, inspect.MaxLimit)
	if err != nil {
		return obs, err
	}
	obs.tool("[%s] %s-%d", a.Isolation, topic, partition)
	var lines, offsets []string
	received := []int64{}
	counts := map[string]int{}
	byKey := map[string][]string{}
	for _, r := range recs {
		v := str(r.Value)
		lines = append(lines, fmt.Sprintf("%d: %s", r.Offset, v))
		offsets = append(offsets, strconv.FormatInt(r.Offset, 10))
		received = append(received, r.Offset)
		counts[v]++
		if r.Key != nil {
			byKey[*r.Key] = append(byKey[*r.Key], v)
		}
		obs.tool("  offset %d: %s", r.Offset, v)
	}
	if len(recs) == 0 {
		obs.say("nothingReceived")
	}
	obs.answer = &Answer{Read: &ReadAnswer{Isolation: a.Isolation, Offsets: received}}
	obs.set(FactRecords, orNone(strings.Join(lines, " · ")))
	obs.set(FactOffsets, orNone(strings.Join(offsets, ", ")))
	obs.set(FactTotal, strconv.Itoa(len(recs)))
	for _, v := range sc.args(FactCount) {
		obs.setArg(FactCount, v, strconv.Itoa(counts[v]))
	}
	for _, k := range sc.args(FactKeyOrder) {
		obs.setArg(FactKeyOrder, k, orNone(strings.Join(byKey[k], ", ")))
	}
	return obs, nil
}

// waitForOffsets waits (up to 10 s) until the partition's high watermark
// reaches n, then returns whatever it is.
func waitForOffsets(sc *stepContext, topic string, partition int32, n int64) error {
	ctx, cancel := context.WithTimeout(sc, 10*time.Second)
	defer cancel()
	err := wait.Until(ctx, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		p, err := sc.lab.Pointers(ctx, topic, partition)
		return err == nil && p.HighWatermark >= n, err
	})
	if sc.Err() != nil {
		return sc.Err()
	}
	if ctx.Err() != nil {
		return nil // read what there is: the check says what is missing
	}
	return err
}
