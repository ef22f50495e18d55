package lessons

// Lessons 4 and 5: seed 002, "How does a producer send safely?"

import (
	"fmt"

	"github.com/offsetlab/offsetlab/internal/producer"
)

// acksAndMinInsyncReplicas is lesson 4: acks=0, 1 and all on three brokers,
// and NOT_ENOUGH_REPLICAS once two followers stop.
func acksAndMinInsyncReplicas() Lesson {
	events := []string{"order-1001 event 1", "order-1001 event 2", "order-1001 event 3", "order-1001 event 4", "order-1001 event 5"}
	acks := func(title, say Msg, a producer.Acks, expect ...Expect) Step {
		return Step{
			Title: title, Say: say,
			Do:      Produce{Topic: "reliable-orders", Key: "order-1001", Values: events, Acks: a},
			Command: "python producer_acks.py " + string(a) + "   # five events keyed order-1001 to {reliable-orders}",
			Expect:  expect,
		}
	}
	return Lesson{
		ID: "4", Seed: "002", Title: "l4.title", Summary: "l4.summary", NeedsReplication: true, Focus: "reliable-orders",
		Steps: []Step{
			{
				Title: "create.title", Say: "l4.create.say",
				Do:      CreateTopics{Topics: []TopicSpec{{Name: "reliable-orders", Partitions: 1, ReplicationFactor: 3, Configs: map[string]string{"min.insync.replicas": "2"}}}},
				Command: "kafka-topics.sh --bootstrap-server {bootstrap} --create --topic {reliable-orders} --partitions 1 --replication-factor 3 --config min.insync.replicas=2",
				Expect:  []Expect{{Say: "expect.created", Fact: FactCreated, Want: "1"}},
			},
			{
				Title: "l4.describe.title", Say: "l4.describe.say",
				Do:      DescribeTopic{Topic: "reliable-orders", WaitInSync: true},
				Command: "kafka-topics.sh --bootstrap-server {bootstrap} --describe --topic {reliable-orders}",
				Expect: []Expect{
					{Say: "expect.replicas", Fact: FactReplicas, Want: "3"},
					{Say: "expect.isr", Fact: FactISR, Want: "3"},
				},
			},
			acks("l4.acks0.title", "l4.acks0.say", producer.AcksNone, Expect{Say: "expect.offsetsKnown", Fact: FactOffsets, Want: "unknown"}),
			acks("l4.acks1.title", "l4.acks1.say", producer.AcksLeader, Expect{Say: "expect.acknowledged", Fact: FactAcknowledged, Want: "5"}),
			acks("l4.acksall.title", "l4.acksall.say", producer.AcksAll, Expect{Say: "expect.acknowledged", Fact: FactAcknowledged, Want: "5"}),
			{
				Title: "l4.stop.title", Say: "l4.stop.say",
				Do:      StopFollowers{Topic: "reliable-orders"},
				Command: "docker compose -f compose.triple.yaml stop kafka-2 kafka-3   # the two followers (the seed: docker stop kafka-2 kafka-3)",
				Expect: []Expect{
					{Say: "expect.stopped", Fact: FactStopped, Want: "2"},
					{Say: "expect.isr", Fact: FactISR, Want: "1"},
					{Say: "expect.leaderKept", Fact: FactLeaderKept, Want: "yes"},
				},
			},
			acks("l4.nerall.title", "l4.nerall.say", producer.AcksAll, Expect{Say: "expect.acknowledged", Fact: FactAcknowledged, Want: "0"},
				Expect{Say: "expect.failed", Fact: FactErrors, Want: "5"},
				Expect{Say: "expect.notEnoughReplicas", Fact: FactErrorMentions, Arg: "NOT_ENOUGH_REPLICAS", Want: "yes"}),
			acks("l4.ner1.title", "l4.ner1.say", producer.AcksLeader, Expect{Say: "expect.acknowledged", Fact: FactAcknowledged, Want: "5"}),
			{
				Title: "l4.start.title", Say: "l4.start.say",
				Do:      StartFollowers{Topic: "reliable-orders"},
				Command: "docker compose -f compose.triple.yaml start kafka-2 kafka-3\nkafka-topics.sh --bootstrap-server {bootstrap} --describe --topic {reliable-orders}",
				Expect: []Expect{
					{Say: "expect.isrBefore", Fact: FactISRBefore, Want: "1"},
					{Say: "expect.isr", Fact: FactISR, Want: "3"},
					{Say: "expect.isrFull", Fact: FactISRFull, Want: "yes"},
				},
			},
		},
	}
}

// lostAckAndIdempotence is lesson 5: a lost ACK and its retry, with and
// without idempotence, and the duplicates idempotence does not remove.
func lostAckAndIdempotence() Lesson {
	const topic = "reliable-orders"
	produceCmd := "kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {reliable-orders} --command-property acks=all --command-property enable.idempotence="
	dump := fmt.Sprintf(cmdDumpLog, topic)
	return Lesson{
		ID: "5", Seed: "002", Title: "l5.title", Summary: "l5.summary", Focus: "reliable-orders",
		Steps: []Step{
			seedTopics("l5.create.say", topic),
			{
				Title: "l5.lost.title", Say: "l5.lost.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1001"}, Acks: producer.AcksAll, Fault: producer.LoseAck},
				Command: produceCmd + "false   # send event-1001; Offset Lab drops the broker's ACK on the wire",
				Expect: []Expect{
					{Say: "expect.ackLost", Fact: FactAckLost, Want: "yes"},
					{Say: "expect.acknowledged", Fact: FactAcknowledged, Want: "1"},
				},
			},
			{
				Title: "l5.log1.title", Say: "l5.log1.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: FactCount, Arg: "event-1001", Want: "2"},
					{Say: "expect.pid", Fact: FactPID, Arg: "event-1001", Want: "no"},
				},
			},
			{
				Title: "l5.idem.title", Say: "l5.idem.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1002"}, Acks: producer.AcksAll, Idempotent: true, Fault: producer.LoseAck},
				Command: produceCmd + "true   # send event-1002; Offset Lab drops the broker's ACK on the wire",
				Expect: []Expect{
					{Say: "expect.ackLost", Fact: FactAckLost, Want: "yes"},
					{Say: "expect.producerId", Fact: FactProducerID, Want: "assigned"},
				},
			},
			{
				Title: "l5.log2.title", Say: "l5.log2.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: FactCount, Arg: "event-1002", Want: "1"},
					{Say: "expect.pid", Fact: FactPID, Arg: "event-1002", Want: "yes"},
					{Say: "expect.sequences", Fact: FactSequences, Arg: "event-1002", Want: "0"},
				},
			},
			{
				Title: "l5.conflict.title", Say: "l5.conflict.say",
				Do:      Produce{Topic: topic, Values: []string{"event-1009"}, Acks: producer.AcksLeader, Idempotent: true, Refused: true},
				Command: "kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {reliable-orders} --command-property enable.idempotence=true --command-property acks=1",
				Expect: []Expect{
					{Say: "expect.refused", Fact: FactRefused, Want: "yes"},
					{Say: "expect.namesIdempotence", Fact: FactErrorMentions, Arg: "error.idempotenceNeedsAcksAll", Want: "yes"},
				},
			},
			{
				Title: "l5.double.title", Say: "l5.double.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1003"}, Acks: producer.AcksAll, Idempotent: true, Fault: producer.DoubleSend},
				Command: "printf 'event-1003\\nevent-1003\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {reliable-orders} --command-property enable.idempotence=true",
				Expect:  []Expect{{Say: "expect.acknowledged", Fact: FactAcknowledged, Want: "2"}},
			},
			{
				Title: "l5.log3.title", Say: "l5.log3.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: FactCount, Arg: "event-1003", Want: "2"},
					{Say: "expect.sequences", Fact: FactSequences, Arg: "event-1003", Want: "0, 1"},
				},
			},
			{
				Title: "l5.restart.title", Say: "l5.restart.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1002"}, Acks: producer.AcksAll, Idempotent: true},
				Command: produceCmd + "true   # a new process sends event-1002 again",
				Expect: []Expect{
					{Say: "expect.newProducerId", Fact: FactNewProducerID, Want: "yes"},
					{Say: "expect.acknowledged", Fact: FactAcknowledged, Want: "1"},
				},
			},
			{
				Title: "l5.log4.title", Say: "l5.log4.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: FactCount, Arg: "event-1002", Want: "2"},
					{Say: "expect.sequences", Fact: FactSequences, Arg: "event-1002", Want: "0, 0"},
				},
			},
		},
	}
}
