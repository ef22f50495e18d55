package lessons

import (
	"fmt"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Commands a learner would type on real Kafka, as in the seeds (which run
// Kafka's scripts from /opt/kafka/bin and the Python programs of the
// tutorials). {bootstrap} is the address of the brokers on show.
const (
	cmdTopic       = "kafka-topics.sh --bootstrap-server {bootstrap} --create --topic {%s} --partitions 1"
	cmdGroup       = "kafka-consumer-groups.sh --bootstrap-server {bootstrap} --describe --group {%s}"
	cmdTransaction = "kafka-transactions.sh --bootstrap-server {bootstrap} describe --transactional-id {%s}"
	cmdConsume     = "kafka-console-consumer.sh --bootstrap-server {bootstrap} --topic {%s} --from-beginning --isolation-level %s --formatter-property print.offset=true --timeout-ms 10000"
	cmdDumpLog     = "kafka-dump-log.sh --print-data-log --files <log.dirs>/{%s}-0/00000000000000000000.log"
	cmdSeedOrders  = "printf 'O-1 2x15000\\nO-2 1x42000\\nO-3 3x9000\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {orders}"
)

// The seed's three orders and the totals the processor writes for them.
const (
	totalO1 = "O-1 total=30000"
	totalO2 = "O-2 total=42000"
	totalO3 = "O-3 total=27000"
)

// Builtin returns the lessons of docs/lessons.md: seed 000 (lessons 1–3,
// lesson_exactly_once.go), seed 002 (lessons 4 and 5,
// lesson_safe_producer.go) and seed 003 (lessons 6a–6g,
// lesson_delivery_semantics.go and lesson_transactions_in_practice.go),
// and lessons 7 and 8 (lesson_missing_offsets.go: compaction, retention
// and delete-records, which no seed runs) and lesson 9
// (lesson_queues_for_kafka.go: share groups).
// Each call returns fresh data.
func Builtin() []Lesson {
	return []Lesson{
		crashBeforeOffsetCommit(),     // 1
		crashInsideTransaction(),      // 2
		abortedRecordsAndMarkers(),    // 3
		acksAndMinInsyncReplicas(),    // 4
		lostAckAndIdempotence(),       // 5
		deliverySemanticsSideBySide(), // 6a
		zombieFencing(),               // 6b
		hangingTransactionHoldsLSO(),  // 6c
		orderingByKey(),               // 6d
		atomicWritesToTwoTopics(),     // 6e
		idempotentConsumers(),         // 6f
		brokerAbortsOnTimeout(),       // 6g
		compactedTopic(),              // 7
		retentionAndDeleteRecords(),   // 8
		queuesForKafka(),              // 9
	}
}

func seedTopics(msg Msg, names ...string) Step {
	s := Step{Title: "create.title", Say: msg, Expect: []Expect{{Say: "expect.created", Fact: FactCreated, Want: strconv.Itoa(len(names))}}}
	var a CreateTopics
	for i, n := range names {
		a.Topics = append(a.Topics, TopicSpec{Name: n, Partitions: 1})
		if i > 0 {
			s.Command += "\n"
		}
		s.Command += fmt.Sprintf(cmdTopic, n)
	}
	s.Do = a
	return s
}

func seedOrders() Step {
	return Step{
		Title: "orders.title", Say: "orders.say",
		Do:      Produce{Topic: "orders", Values: producer.SeedOrders(), Acks: producer.AcksAll},
		Command: cmdSeedOrders,
		Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "0, 1, 2"}},
	}
}

func groupStep(title, say Msg, group string, committed, logEnd, lag string) Step {
	return Step{
		Title: title, Say: say,
		Do:      DescribeGroup{Group: group},
		Command: fmt.Sprintf(cmdGroup, group),
		Expect: []Expect{
			{Say: "expect.committed", Fact: FactCommitted, Want: committed},
			{Say: "expect.logEnd", Fact: FactLogEnd, Want: logEnd},
			{Say: "expect.lag", Fact: FactLag, Want: lag},
		},
	}
}

func consume(title, say Msg, topic string, iso inspect.Isolation, expect ...Expect) Step {
	return Step{
		Title: title, Say: say,
		Do:      ReadRecords{Topic: topic, Isolation: iso},
		Command: fmt.Sprintf(cmdConsume, topic, iso),
		Expect:  expect,
	}
}

func txProcessor(title, say Msg, output, group, id, crashAt string, expect ...Expect) Step {
	cmd := "python processor.py tx {" + output + "}"
	if crashAt != "" {
		cmd += " " + crashAt
	}
	return Step{
		Title: title, Say: say,
		Do:      RunProcessor{Mode: producer.Transactional, Input: "orders", Output: output, Group: group, TransactionalID: id, CrashAt: crashAt},
		Command: cmd + "   # input {orders}, group {" + group + "}, transactional.id {" + id + "}",
		Expect:  expect,
	}
}
