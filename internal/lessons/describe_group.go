package lessons

import (
	"strconv"

	"github.com/offsetlab/offsetlab/internal/live"
)

// DescribeGroup is kafka-consumer-groups.sh --describe.
type DescribeGroup struct{ Group string }

// Kind implements Action.
func (DescribeGroup) Kind() string { return "describe-group" }

// Facts implements Action: the group's first partition's offsets.
func (DescribeGroup) Facts() []Fact { return []Fact{FactCommitted, FactLogEnd, FactLag, FactState} }

// Names implements Action.
func (a DescribeGroup) Names() []string { return []string{a.Group} }

// TopicNames implements Action.
func (DescribeGroup) TopicNames() []string { return nil }

// Icon implements Action.
func (DescribeGroup) Icon() string { return live.EventInfo }

func (a DescribeGroup) run(sc *stepContext) (*observation, error) {
	group := sc.name(a.Group)
	obs := newObservation("", 0)
	g, err := sc.lab.Group(sc, group)
	if err != nil {
		return obs, err
	}
	obs.tool("%-22s %-22s %-9s %-14s %-14s %s", "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG")
	for _, o := range g.Offsets {
		obs.tool("%-22s %-22s %-9d %-14d %-14d %d", group, o.Topic, o.Partition, o.Committed, o.LogEnd, o.Lag)
	}
	obs.set(FactState, g.State)
	if len(g.Offsets) > 0 {
		o := g.Offsets[0]
		obs.topic, obs.partition = o.Topic, o.Partition
		obs.set(FactCommitted, strconv.FormatInt(o.Committed, 10))
		obs.set(FactLogEnd, strconv.FormatInt(o.LogEnd, 10))
		obs.set(FactLag, strconv.FormatInt(o.Lag, 10))
		obs.answer = &Answer{Group: &GroupAnswer{Group: group, Committed: o.Committed, LogEnd: o.LogEnd, Lag: o.Lag}}
	}
	return obs, nil
}
