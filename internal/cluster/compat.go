package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// This file holds the answers of the embedded broker we rewrite so that
// they match Apache Kafka where kfake's differ in a way that breaks ordinary
// clients. The Kafka port guard (guard_conn.go) frames every request and
// response and calls in here. Today that is one answer: OffsetFetch for a
// group that has never committed. Kafka 4.3.1 answers "no committed offset"
// (-1 per partition, no error); kfake answers GROUP_ID_NOT_FOUND, which
// makes librdkafka's consumer.committed() — the seeds' processor.py — raise.

// skipTags skips an empty or small tagged-field section.
func skipTags(b []byte) ([]byte, bool) {
	n, used := binary.Uvarint(b)
	if used <= 0 {
		return nil, false
	}
	b = b[used:]
	for range n {
		_, u1 := binary.Uvarint(b)
		if u1 <= 0 {
			return nil, false
		}
		b = b[u1:]
		size, u2 := binary.Uvarint(b)
		if u2 <= 0 || uint64(len(b)-u2) < size {
			return nil, false
		}
		b = b[u2+int(size):]
	}
	return b, true
}

var errUnchanged = errors.New("response needs no change")

// fixOffsetFetch rewrites GROUP_ID_NOT_FOUND into Kafka's answer for a
// group with no committed offsets: every requested partition at -1.
func fixOffsetFetch(req *kmsg.OffsetFetchRequest, frame []byte) ([]byte, error) {
	resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
	header := 8 // size + correlation id
	body := frame[header:]
	if resp.IsFlexible() {
		rest, ok := skipTags(body)
		if !ok {
			return nil, errors.New("bad response header")
		}
		header += len(body) - len(rest)
		body = rest
	}
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("decode OffsetFetch response: %w", err)
	}
	changed := false
	notFound := kerr.GroupIDNotFound.Code
	if resp.Version <= 7 && resp.ErrorCode == notFound {
		resp.ErrorCode = 0
		for _, rt := range req.Topics {
			st := kmsg.NewOffsetFetchResponseTopic()
			st.Topic = rt.Topic
			for _, p := range rt.Partitions {
				sp := kmsg.NewOffsetFetchResponseTopicPartition()
				sp.Partition, sp.Offset, sp.LeaderEpoch = p, -1, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		changed = true
	}
	for i := range resp.Groups {
		g := &resp.Groups[i]
		if g.ErrorCode != notFound || i >= len(req.Groups) {
			continue
		}
		g.ErrorCode = 0
		for _, rt := range req.Groups[i].Topics {
			st := kmsg.NewOffsetFetchResponseGroupTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, p := range rt.Partitions {
				sp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				sp.Partition, sp.Offset, sp.LeaderEpoch = p, -1, -1
				st.Partitions = append(st.Partitions, sp)
			}
			g.Topics = append(g.Topics, st)
		}
		changed = true
	}
	if !changed {
		return nil, errUnchanged
	}
	out := append([]byte(nil), frame[:header]...)
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out, nil
}
