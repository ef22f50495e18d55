package lessons

import (
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
)

// ReadAsGroup starts a consumer of a group on partition 0 of a topic: it
// resumes at the group's committed offset, applies auto.offset.reset
// (lab.ResetEarliest or lab.ResetLatest) where Kafka's consumer would, reads
// up to Max records (0: to the high watermark) and commits the offset
// after them.
type ReadAsGroup struct {
	Topic string
	Group string
	Reset string
	Max   int
}

// Kind implements Action.
func (ReadAsGroup) Kind() string { return "consume-group" }

// Facts implements Action: FactCommitted is the group's offset before it
// started, FactOffsets the offsets it received.
func (ReadAsGroup) Facts() []Fact {
	return []Fact{FactCommitted, FactOutOfRange, FactStart, FactLost, FactOffsets, FactRecords, FactNext}
}

// Names implements Action.
func (a ReadAsGroup) Names() []string { return []string{a.Topic, a.Group} }

// TopicNames implements Action.
func (a ReadAsGroup) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (ReadAsGroup) Icon() string { return live.EventInfo }

func (a ReadAsGroup) run(sc *stepContext) (*observation, error) {
	topic, group := sc.name(a.Topic), sc.name(a.Group)
	obs := newObservation(topic, 0)
	out, err := sc.lab.ReadAsGroup(sc, lab.GroupRead{Topic: topic, Group: group, Reset: a.Reset, Max: a.Max})
	if err != nil {
		return obs, err
	}
	switch {
	case out.OutOfRange:
		obs.tool("Fetch position FetchPosition{offset=%d} is out of range for partition %s-0, resetting offset (log start offset %d, high watermark %d)",
			out.Committed, topic, out.Pointers.LogStartOffset, out.Pointers.HighWatermark)
		obs.tool("Resetting offset for partition %s-0 to position FetchPosition{offset=%d} (auto.offset.reset=%s): %d offsets skipped", topic, out.Start, a.Reset, out.Lost)
	case out.Committed < 0:
		obs.tool("Found no committed offset for partition %s-0; auto.offset.reset=%s: starting at %d", topic, a.Reset, out.Start)
	default:
		obs.tool("Setting offset for partition %s-0 to the committed offset %d", topic, out.Committed)
	}
	offsets := []int64{}
	var records []string
	for _, r := range out.Records {
		offsets = append(offsets, r.Offset)
		records = append(records, strconv.FormatInt(r.Offset, 10)+": "+str(r.Value))
		obs.tool("Offset:%d\t%s", r.Offset, str(r.Value))
	}
	obs.tool("Processed a total of %d messages; committed offset %d for group %s", len(out.Records), out.Next, group)
	obs.set(FactCommitted, strconv.FormatInt(out.Committed, 10))
	obs.set(FactOutOfRange, yesNo(out.OutOfRange))
	obs.set(FactStart, strconv.FormatInt(out.Start, 10))
	obs.set(FactLost, strconv.FormatInt(out.Lost, 10))
	obs.set(FactOffsets, joinOffsets(offsets))
	obs.set(FactRecords, orNone(strings.Join(records, " · ")))
	obs.set(FactNext, strconv.FormatInt(out.Next, 10))
	obs.answer = &Answer{Read: &ReadAnswer{Isolation: inspect.ReadUncommitted, Offsets: offsets, Resume: &GroupResume{
		Group: group, Committed: out.Committed, OutOfRange: out.OutOfRange, Start: out.Start, Lost: out.Lost, Next: out.Next,
	}}}
	return obs, nil
}
