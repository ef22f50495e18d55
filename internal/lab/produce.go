package lab

import (
	"context"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// ClientBatchMaxBytes is the largest batch the dashboard's producers send
// (franz-go's default producer batch size, like the Java client's
// max.request.size): a record must fit it as well as the topic.
const ClientBatchMaxBytes = 1000012

// Produce sends req's values with a fresh producer session, after
// checking that the topic and partition exist and that every record fits
// the topic's max.message.bytes, and narrates what the producer learned
// that the log cannot show: acks=0's unknown outcome, a lost ACK and its
// retry, an application's double send.
func (l *Lab) Produce(ctx context.Context, req producer.Request) (*producer.Outcome, error) {
	if err := l.writes(req.Topic); err != nil {
		return nil, err
	}
	if err := l.roomToStore(); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	p := int32(0)
	if req.Partition != nil {
		p = *req.Partition
	}
	t, err := l.partition(ctx, req.Topic, p)
	if err != nil {
		return nil, err
	}
	if err := l.checkRecordSize(ctx, req); err != nil {
		return nil, err
	}
	touched := toRecord(t, req.Partition)
	l.record(ctx, req.Topic, touched)
	out, err := l.producer.Produce(ctx, req)
	if err != nil {
		return nil, err
	}
	l.record(ctx, req.Topic, touched)
	l.narrateProduce(req, out)
	return out, nil
}

// checkRecordSize refuses a record the topic or the producer could not
// take, before anything is sent.
func (l *Lab) checkRecordSize(ctx context.Context, req producer.Request) error {
	size := req.LargestRecord() + producer.RecordOverhead
	limit, err := l.cluster.MaxMessageBytes(ctx, req.Topic)
	if err != nil {
		return err
	}
	limit = min(limit, ClientBatchMaxBytes)
	if size > limit {
		return problem.New(problem.TooLarge, "error.recordTooLarge", "topic", req.Topic,
			"size", strconv.Itoa(req.LargestRecord()), "max", strconv.Itoa(limit-producer.RecordOverhead))
	}
	return nil
}

// narrateProduce tells the timeline what the producer did and learned;
// the live feed narrates what landed in the log.
func (l *Lab) narrateProduce(req producer.Request, out *producer.Outcome) {
	topic, partition := req.Topic, firstPartition(out)
	if req.Profile.Acks != producer.AcksNone && req.Fault == producer.NoFault {
		return
	}
	at := l.logEnd(topic, partition) // after the records this call wrote
	if req.Profile.Acks == producer.AcksNone {
		l.narrateAt(live.EventInfo, topic, partition, at, catalog.M("narration.acks0"))
	}
	if out.AckLost {
		if out.ProducerID >= 0 {
			l.narrateAt(live.EventWarning, topic, partition, at, catalog.M("narration.acklost.idempotent",
				"producer", strconv.FormatInt(out.ProducerID, 10), "epoch", strconv.Itoa(int(out.ProducerEpoch))))
		} else {
			l.narrateAt(live.EventWarning, topic, partition, at, catalog.M("narration.acklost.plain"))
		}
	}
	if req.Fault == producer.DoubleSend {
		l.narrateAt(live.EventWarning, topic, partition, at, catalog.M("narration.doublesend"))
	}
	for _, b := range out.AckLostAt {
		l.narrateRetry(b, out)
	}
}

// narrateRetry tells, on the cell of the retry, what became of the batch
// whose ACK was lost: stored a second time (no idempotence), or
// recognised by its sequence number and kept once.
func (l *Lab) narrateRetry(lost producer.StoredBatch, out *producer.Outcome) {
	for _, r := range out.Results {
		if r.Partition != lost.Partition || r.Offset == nil {
			continue
		}
		key := "narration.retry"
		if *r.Offset == lost.BaseOffset {
			key = "narration.retryDeduped"
		}
		e := live.NewEvent(live.EventWarning, lost.Topic, lost.Partition, catalog.M(key,
			"offset", strconv.FormatInt(*r.Offset, 10), "of", strconv.FormatInt(lost.BaseOffset, 10)))
		e.Offset = r.Offset
		l.hub.Narrate(e)
		return
	}
}

// firstPartition is the partition the first stored record went to.
func firstPartition(out *producer.Outcome) int32 {
	for _, r := range out.Results {
		if r.Partition >= 0 {
			return r.Partition
		}
	}
	return 0
}
