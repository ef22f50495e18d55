package embedded

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
// response; for the requests answerFixes names it keeps the parsed request
// and hands the answer's frame to fixAnswer. Each rewrite is written up in
// docs/divergences.md:
//
//   - OffsetFetch for a group that has never committed. Kafka 4.3.1
//     answers "no committed offset" (-1 per partition, no error); kfake
//     answers GROUP_ID_NOT_FOUND, which makes librdkafka's
//     consumer.committed() — the seeds' processor.py — raise.
//   - DescribeTopicPartitions leaves the eligible-leader-replica lists null;
//     Kafka sends empty lists, and the Java admin client (kafka-topics
//     --describe, kafka-get-offsets, kafka-consumer-groups --describe,
//     kafka-transactions find-hanging) dies on the null.
//   - CreateTopics v5+ leaves a topic's configs null when it set none; Kafka
//     sends the list, and kafka-topics --create dies on the null after the
//     topic is created.
//
// Each answer has one home: an answer that kfake's own state must fix is
// patched in third_party/kfake (PATCHES.md), all of it there. So
// ConsumerGroupDescribe (topic names; the uniform assignor named),
// DescribeGroups and ConsumerGroupDescribe (a member's host as Java
// prints it, /127.0.0.1) and ListGroups (filters by state and type
// case-insensitively; a KIP-848 group's protocol type "consumer") are
// changed by patches, not here.
//   - ApiVersions lists SaslHandshake from version 1; Kafka 4.3.1 lists
//     0–1. Older librdkafka (2.0.2, in the kcat 1.7.1 Debian and Ubuntu
//     ship; not confluent-kafka's 2.15.1) needs version 0 listed to do
//     SASL at all ("SASL Handshake not supported by broker"), then uses
//     version 1; a version-0 handshake itself is still refused by the
//     port's guard.
//   - ShareFetch v1+ sends a partition without records (an answer that
//     only carries acknowledgements, say) with its records null; Kafka's
//     schema allows null in version 0 only, and the Java share consumer
//     (VerifiableShareConsumer, kafka-console-share-consumer) dies on it
//     ("non-nullable field records was serialized as null"). Kafka sends
//     empty records.

// answerFix rewrites resp, kfake's answer to req, in place and reports
// whether it changed anything.
type answerFix func(req kmsg.Request, resp kmsg.Response) bool

// answerFixes are the rewrites by API key.
var answerFixes = map[int16]answerFix{
	int16(kmsg.OffsetFetch):             fixOffsetFetch,
	int16(kmsg.DescribeTopicPartitions): fixDescribeTopicPartitions,
	int16(kmsg.CreateTopics):            fixCreateTopics,
	int16(kmsg.ApiVersions):             fixApiVersions,
	int16(kmsg.ShareFetch):              fixShareFetch,
}

// rewritesAnswer reports whether compat.go may rewrite the answer to req.
func rewritesAnswer(req kmsg.Request) bool {
	_, ok := answerFixes[req.Key()]
	return ok
}

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

// fixAnswer decodes frame, kfake's answer to req (size prefix included),
// applies req's rewrite and returns the new frame, or errUnchanged.
func fixAnswer(req kmsg.Request, frame []byte) ([]byte, error) {
	fix := answerFixes[req.Key()]
	if fix == nil {
		return nil, errUnchanged
	}
	resp := req.ResponseKind()
	header := 8 // size + correlation id
	body := frame[header:]
	// An ApiVersions answer's header never has tags, whatever its version.
	if resp.IsFlexible() && req.Key() != int16(kmsg.ApiVersions) {
		rest, ok := skipTags(body)
		if !ok {
			return nil, errors.New("bad response header")
		}
		header += len(body) - len(rest)
		body = rest
	}
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("decode %s response: %w", kmsg.NameForKey(req.Key()), err)
	}
	if !fix(req, resp) {
		return nil, errUnchanged
	}
	out := append([]byte(nil), frame[:header]...)
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out, nil
}

// fixOffsetFetch rewrites GROUP_ID_NOT_FOUND into Kafka's answer for a
// group with no committed offsets: every requested partition at -1.
func fixOffsetFetch(kreq kmsg.Request, kresp kmsg.Response) bool {
	req, resp := kreq.(*kmsg.OffsetFetchRequest), kresp.(*kmsg.OffsetFetchResponse)
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
	return changed
}

// fixDescribeTopicPartitions gives every partition the empty
// eligible-leader-replica lists Kafka sends where kfake sends null.
func fixDescribeTopicPartitions(_ kmsg.Request, kresp kmsg.Response) bool {
	resp := kresp.(*kmsg.DescribeTopicPartitionsResponse)
	changed := false
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			p := &resp.Topics[i].Partitions[j]
			if p.EligibleLeaderReplicas == nil {
				p.EligibleLeaderReplicas, changed = []int32{}, true
			}
			if p.LastKnownELR == nil {
				p.LastKnownELR, changed = []int32{}, true
			}
		}
	}
	return changed
}

// fixCreateTopics gives every created topic a configs list, empty where
// kfake sends null (it lists only the configs the request set; Kafka lists
// them all).
func fixCreateTopics(_ kmsg.Request, kresp kmsg.Response) bool {
	resp := kresp.(*kmsg.CreateTopicsResponse)
	if resp.Version < 5 {
		return false
	}
	changed := false
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if t.Configs == nil && t.ErrorCode == 0 {
			t.Configs, changed = []kmsg.CreateTopicsResponseTopicConfig{}, true
		}
	}
	return changed
}

// fixApiVersions lists SaslHandshake from version 0, as Kafka does (see
// the file's comment).
func fixApiVersions(_ kmsg.Request, kresp kmsg.Response) bool {
	resp := kresp.(*kmsg.ApiVersionsResponse)
	changed := false
	for i := range resp.ApiKeys {
		if k := &resp.ApiKeys[i]; k.ApiKey == int16(kmsg.SASLHandshake) && k.MinVersion == 1 {
			k.MinVersion = 0
			changed = true
		}
	}
	return changed
}

// fixShareFetch sends empty records where kfake sends null ones, from
// version 1 on (see the file's comment).
func fixShareFetch(req kmsg.Request, kresp kmsg.Response) bool {
	if req.GetVersion() < 1 {
		return false
	}
	resp := kresp.(*kmsg.ShareFetchResponse)
	changed := false
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			if p := &resp.Topics[i].Partitions[j]; p.Records == nil {
				p.Records, changed = []byte{}, true
			}
		}
	}
	return changed
}
