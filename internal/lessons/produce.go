package lessons

import (
	"slices"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Produce sends values with a fresh producer session, as one start of a
// producer program does.
type Produce struct {
	Topic  string
	Key    string
	Values []string
	// Tombstone sends one record with a null value after Values: the
	// delete of its key on a compacted topic.
	Tombstone  bool
	Acks       producer.Acks
	Idempotent bool
	Fault      producer.Fault
	// Refused marks a step whose settings the producer must refuse: the
	// refusal is the observation, not a failure of the step.
	Refused bool
}

// Kind implements Action.
func (Produce) Kind() string { return "produce" }

// Facts implements Action.
func (Produce) Facts() []Fact {
	return []Fact{FactAcknowledged, FactOffsets, FactErrors, FactAckLost, FactProducerID, FactNewProducerID,
		FactPartitions, FactInOrder, FactRefused, FactErrorMentions}
}

// Names implements Action.
func (a Produce) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a Produce) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (Produce) Icon() string { return live.EventInfo }

func (a Produce) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	idempotent := a.Idempotent
	values := producer.Values(a.Values...)
	if a.Tombstone {
		values = append(values, nil)
	}
	req := producer.Request{
		Topic: topic, Values: values, Fault: a.Fault,
		Profile: producer.Profile{Acks: a.Acks, Idempotent: &idempotent},
	}
	if a.Key != "" {
		key := a.Key
		req.Key = &key
	}
	out, err := sc.lab.Produce(sc, req)
	if a.Refused {
		return a.refusal(sc, obs, out, err), nil
	}
	if err != nil {
		return obs, err
	}
	var offsets []int64
	unknown, errs := 0, 0
	partitions := map[int32][]int64{}
	for _, r := range out.Results {
		switch {
		case r.Error != nil:
			errs++
			obs.say("produce.failed", "value", str(r.Value), "error", *r.Error)
		case r.Offset == nil:
			unknown++
			obs.say("produce.offsetUnknown", "value", str(r.Value), "partition", itoa(r.Partition))
		default:
			offsets = append(offsets, *r.Offset)
			partitions[r.Partition] = append(partitions[r.Partition], *r.Offset)
			obs.say("produce.stored", "value", str(r.Value), "partition", itoa(r.Partition), "offset", i64(*r.Offset))
		}
		if r.Partition >= 0 && obs.partition == 0 {
			obs.partition = r.Partition
		}
	}
	for _, b := range out.AckLostAt {
		obs.say("produce.ackLostAt", "offset", i64(b.BaseOffset), "partition", itoa(b.Partition))
	}
	if out.AckLost && len(out.AckLostAt) == 0 {
		obs.say("produce.ackLost")
	}
	if out.ProducerID >= 0 {
		obs.say("produce.producer", "producer", i64(out.ProducerID), "epoch", itoa(out.ProducerEpoch))
	}
	obs.set(FactAcknowledged, strconv.Itoa(len(offsets)))
	if unknown > 0 && len(offsets) == 0 {
		obs.set(FactOffsets, "unknown")
	} else {
		obs.set(FactOffsets, joinOffsets(offsets))
	}
	obs.set(FactErrors, strconv.Itoa(errs))
	for _, code := range sc.args(FactErrorMentions) {
		every := errs > 0
		for _, r := range out.Results {
			if r.Error != nil && r.ErrorCode != code {
				every = false
			}
		}
		obs.setArg(FactErrorMentions, code, yesNo(every))
	}
	obs.set(FactAckLost, yesNo(out.AckLost))
	obs.set(FactPartitions, strconv.Itoa(len(partitions)))
	inOrder := true
	for _, offs := range partitions {
		inOrder = inOrder && slices.IsSorted(offs)
	}
	obs.set(FactInOrder, yesNo(inOrder))
	if out.ProducerID >= 0 {
		obs.set(FactProducerID, "assigned")
		obs.set(FactNewProducerID, yesNo(sc.memory().sawProducer(out.ProducerID)))
	} else {
		obs.set(FactProducerID, "none")
		obs.set(FactNewProducerID, "no")
	}
	if a.Key != "" && len(out.Results) > 0 && out.Results[0].Partition >= 0 {
		sc.memory().keyWentTo(a.Key, out.Results[0].Partition)
	}
	return obs, nil
}

// refusal observes a step whose settings the producer must refuse.
func (a Produce) refusal(sc *stepContext, obs *observation, out *producer.Outcome, err error) *observation {
	obs.set(FactRefused, yesNo(problem.KindOf(err) == problem.Invalid))
	for _, key := range sc.args(FactErrorMentions) {
		obs.setArg(FactErrorMentions, key, yesNo(problem.Is(err, key)))
	}
	if err != nil {
		obs.say("produce.refused", reasonArgs(err)...)
	} else {
		obs.say("produce.accepted", "count", itoa(len(out.Results)))
	}
	return obs
}

// reasonArgs names err's catalogue sentence as the {reason} of another
// (an error that has none is said to be internal; its text goes to the
// log, not to the page).
func reasonArgs(err error) []string {
	m := problem.As(err).Message
	kv := []string{"reasonKey", m.Key}
	for k, v := range m.Args {
		kv = append(kv, k, v)
	}
	return kv
}
