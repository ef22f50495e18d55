package lessons

import (
	"cmp"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Send produces values inside the process's open transaction. A fenced
// producer's failure is an observation (FactFenced), not a step failure.
type Send struct {
	Process         string
	TransactionalID string
	Topic           string
	// Key, when set, is every record's key.
	Key    string
	Values []string
}

// Kind implements Action.
func (Send) Kind() string { return "txn-send" }

// Facts implements Action.
func (Send) Facts() []Fact { return []Fact{FactOffsets, FactFenced, FactError} }

// Names implements Action.
func (a Send) Names() []string { return []string{a.Topic, a.TransactionalID} }

// TopicNames implements Action.
func (a Send) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (Send) Icon() string { return live.EventInfo }

func (a Send) run(sc *stepContext) (*observation, error) {
	id, topic := sc.name(a.TransactionalID), sc.name(a.Topic)
	process := cmp.Or(a.Process, defaultProcess)
	obs := newObservation(topic, 0)
	req := producer.Request{Topic: topic, Values: producer.Values(a.Values...)}
	if a.Key != "" {
		key := a.Key
		req.Key = &key
	}
	st, err := sc.lab.Send(sc, sc.process(process), id, req)
	if err != nil {
		return obs, err
	}
	var offsets []int64
	firstErr := "none"
	for _, r := range st.Results {
		switch {
		case r.Error != nil:
			if firstErr == "none" {
				firstErr = cmp.Or(r.ErrorCode, "unknown")
			}
			// Kafka's error code (INVALID_PRODUCER_EPOCH) reads in either
			// language; its English description only where there is none.
			obs.say("send.failed", "process", process, "value", str(r.Value), "error", cmp.Or(r.ErrorCode, *r.Error))
		case r.Offset != nil:
			offsets = append(offsets, *r.Offset)
			obs.partition = r.Partition
			obs.say("send.stored", "process", process, "value", str(r.Value), "partition", itoa(r.Partition), "offset", i64(*r.Offset))
		}
	}
	if st.Fenced {
		obs.say("send.fenced", "process", process, "txid", id)
	}
	obs.set(FactOffsets, joinOffsets(offsets))
	obs.set(FactFenced, yesNo(st.Fenced))
	obs.set(FactError, firstErr)
	return obs, nil
}
