package lessons

import (
	"context"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// DescribeShareGroup is kafka-share-groups.sh --describe: the group's
// start offset (SPSO) and lag on partition 0 of its topic. The share
// coordinator writes acknowledgements a moment after a consumer sends
// them, so the step reads until the start offset is the one the step
// expects (and its lag), or a few seconds pass.
type DescribeShareGroup struct {
	Group string
	Topic string
}

// Kind implements Action.
func (DescribeShareGroup) Kind() string { return "describe-share-group" }

// Facts implements Action.
func (DescribeShareGroup) Facts() []Fact { return []Fact{FactStartOffset, FactLag, FactLogEnd} }

// Names implements Action.
func (a DescribeShareGroup) Names() []string { return []string{a.Topic, a.Group} }

// TopicNames implements Action.
func (DescribeShareGroup) TopicNames() []string { return nil }

// Icon implements Action.
func (DescribeShareGroup) Icon() string { return live.EventInfo }

// shareDescribeFor bounds how long the step waits for the coordinator.
const shareDescribeFor = 10 * time.Second

func (a DescribeShareGroup) run(sc *stepContext) (*observation, error) {
	group, topic := sc.name(a.Group), sc.name(a.Topic)
	obs := newObservation(topic, 0)
	want := map[Fact]string{}
	for _, e := range sc.expects {
		want[e.Fact] = e.Want
	}
	var o cluster.ShareGroupOffset
	ctx, cancel := context.WithTimeout(sc, shareDescribeFor)
	defer cancel()
	err := wait.Until(ctx, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		g, err := sc.lab.GroupDetail(ctx, group)
		if err != nil {
			return false, err
		}
		for _, so := range g.ShareOffsets {
			if so.Topic == topic && so.Partition == 0 {
				o = so
			}
		}
		return settled(want, FactStartOffset, o.StartOffset) && settled(want, FactLag, o.Lag), nil
	})
	if err != nil && ctx.Err() == nil {
		return obs, err
	}
	obs.tool("%-24s %-24s %-9s %-12s %s", "GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LAG")
	obs.tool("%-24s %-24s %-9d %-12d %d", group, topic, 0, o.StartOffset, o.Lag)
	obs.set(FactStartOffset, strconv.FormatInt(o.StartOffset, 10))
	obs.set(FactLag, strconv.FormatInt(o.Lag, 10))
	obs.set(FactLogEnd, strconv.FormatInt(o.LogEnd, 10))
	return obs, nil
}

// settled reports whether value is what want expects of fact, or want
// expects nothing of it.
func settled(want map[Fact]string, fact Fact, value int64) bool {
	w, ok := want[fact]
	return !ok || w == strconv.FormatInt(value, 10)
}
