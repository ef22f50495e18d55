package lessons

import (
	"strconv"

	"github.com/offsetlab/offsetlab/internal/live"
)

// DeleteRecords deletes a partition's records below an offset, as
// kafka-delete-records.sh --offset-json-file does: the log start offset
// moves up to it.
type DeleteRecords struct {
	Topic     string
	Partition int32
	Before    int64
}

// Kind implements Action.
func (DeleteRecords) Kind() string { return "delete-records" }

// Facts implements Action.
func (DeleteRecords) Facts() []Fact { return []Fact{FactLogStart} }

// Names implements Action.
func (a DeleteRecords) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a DeleteRecords) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (DeleteRecords) Icon() string { return live.EventWarning }

func (a DeleteRecords) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, a.Partition)
	start, err := sc.lab.DeleteRecords(sc, topic, a.Partition, a.Before)
	if err != nil {
		return obs, err
	}
	obs.tool("Records delete operation completed:")
	obs.tool("partition: %s-%d\tlow_watermark: %d", topic, a.Partition, start)
	obs.set(FactLogStart, strconv.FormatInt(start, 10))
	return obs, nil
}
