package lessons

import (
	"fmt"
	"strconv"
	"time"

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

// Builtin returns the lessons of LESSONS.md that the existing producers can
// run: seed 000 (lessons 1–3), seed 002 (lessons 4 and 5) and seed 003
// (lessons 6a–6d). Each call returns fresh data.
func Builtin() []Lesson {
	return []Lesson{lesson1(), lesson2(), lesson3(), lesson4(), lesson5(), lesson6a(), lesson6b(), lesson6c(), lesson6d(), lesson6e(), lesson6f(), lesson6g()}
}

func seedTopics(msg Msg, names ...string) Step {
	s := Step{Title: "create.title", Say: msg, Expect: []Expect{{Say: "expect.created", Fact: "created", Want: strconv.Itoa(len(names))}}}
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
		Do:      Produce{Topic: "orders", Values: producer.SeedOrders, Acks: producer.AcksAll},
		Command: cmdSeedOrders,
		Expect:  []Expect{{Say: "expect.orders.offsets", Fact: "offsets", Want: "0, 1, 2"}},
	}
}

func groupStep(title, say Msg, group string, committed, logEnd, lag string) Step {
	return Step{
		Title: title, Say: say,
		Do:      DescribeGroup{Group: group},
		Command: fmt.Sprintf(cmdGroup, group),
		Expect: []Expect{
			{Say: "expect.committed", Fact: "committed", Want: committed},
			{Say: "expect.logEnd", Fact: "logEnd", Want: logEnd},
			{Say: "expect.lag", Fact: "lag", Want: lag},
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

func lesson1() Lesson {
	return Lesson{
		ID: "1", Seed: "000", Title: "l1.title", Summary: "l1.summary",
		Steps: []Step{
			seedTopics("l1.create.say", "orders", "order-totals"),
			seedOrders(),
			{
				Title: "l1.crash.title", Say: "l1.crash.say",
				Do:      RunProcessor{Mode: producer.Plain, Input: "orders", Output: "order-totals", Group: "totals-plain", CrashAt: "O-2"},
				Command: "python processor.py plain {order-totals} O-2   # input {orders}, group {totals-plain}",
				Expect: []Expect{
					{Say: "expect.crashed", Fact: "crashed", Want: "yes"},
					{Say: "expect.processed", Fact: "processed", Want: "O-1, O-2"},
				},
			},
			groupStep("group.title", "l1.group1.say", "totals-plain", "1", "3", "2"),
			{
				Title: "restart.title", Say: "l1.restart.say",
				Do:      RunProcessor{Mode: producer.Plain, Input: "orders", Output: "order-totals", Group: "totals-plain"},
				Command: "python processor.py plain {order-totals}   # input {orders}, group {totals-plain}",
				Expect:  []Expect{{Say: "expect.processed", Fact: "processed", Want: "O-2, O-3"}},
			},
			consume("l1.read.title", "l1.read.say", "order-totals", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "0: " + totalO1 + " · 1: " + totalO2 + " · 2: " + totalO2 + " · 3: " + totalO3},
				Expect{Say: "expect.countO2", Fact: "count", Arg: totalO2, Want: "2"},
			),
			groupStep("group.end.title", "l1.group2.say", "totals-plain", "3", "3", "0"),
		},
	}
}

// crashAndRestart are lesson 2's two processor runs, shared by lesson 3.
func crashAndRestart(crashSay, restartSay Msg) []Step {
	return []Step{
		txProcessor("l2.crash.title", crashSay, "order-totals-tx", "totals-tx", "order-totals-app", "O-2",
			Expect{Say: "expect.crashed", Fact: "crashed", Want: "yes"},
			Expect{Say: "expect.processed", Fact: "processed", Want: "O-1, O-2"},
		),
		txProcessor("l2.restart.title", restartSay, "order-totals-tx", "totals-tx", "order-totals-app", "",
			Expect{Say: "expect.processed", Fact: "processed", Want: "O-2, O-3"},
			Expect{Say: "expect.retried", Fact: "retried", Want: "yes", Embedded: &Divergence{Want: "no", Note: "note.retried"}},
		),
	}
}

func lesson2() Lesson {
	runs := crashAndRestart("l2.crash.say", "l2.restart.say")
	return Lesson{
		ID: "2", Seed: "000", Title: "l2.title", Summary: "l2.summary",
		Steps: []Step{
			seedTopics("l2.create.say", "orders", "order-totals-tx"),
			seedOrders(),
			runs[0],
			{
				Title: "txn.title", Say: "l2.txn1.say",
				Do:      DescribeTransaction{TransactionalID: "order-totals-app"},
				Command: fmt.Sprintf(cmdTransaction, "order-totals-app"),
				Expect: []Expect{
					{Say: "expect.txnState", Fact: "state", Want: "Ongoing"},
					{Say: "expect.listsOutput", Fact: "lists", Arg: "order-totals-tx", Want: "yes"},
					{Say: "expect.offsetsPartition", Fact: "offsetsPartition", Want: "yes", Embedded: &Divergence{Want: "no", Note: "note.offsetsPartition"}},
				},
			},
			groupStep("l2.group1.title", "l2.group1.say", "totals-tx", "1", "3", "2"),
			runs[1],
			{
				Title: "txn.again.title", Say: "l2.txn2.say",
				Do:      DescribeTransaction{TransactionalID: "order-totals-app"},
				Command: fmt.Sprintf(cmdTransaction, "order-totals-app"),
				Expect: []Expect{
					{Say: "expect.txnState", Fact: "state", Want: "CompleteCommit", Embedded: &Divergence{Want: "Empty", Note: "note.empty"}},
					{Say: "expect.epochBumped", Fact: "epochBumped", Want: "yes"},
				},
			},
			consume("l2.read.title", "l2.read.say", "order-totals-tx", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "0: " + totalO1 + " · 4: " + totalO2 + " · 6: " + totalO3},
				Expect{Say: "expect.countO2", Fact: "count", Arg: totalO2, Want: "1"},
			),
			groupStep("group.end.title", "l2.group2.say", "totals-tx", "3", "3", "0"),
		},
	}
}

func lesson3() Lesson {
	steps := []Step{
		seedTopics("l3.create.say", "orders", "order-totals-tx"),
		seedOrders(),
	}
	steps = append(steps, crashAndRestart("l3.crash.say", "l3.restart.say")...)
	steps = append(steps,
		consume("l3.ru.title", "l3.ru.say", "order-totals-tx", inspect.ReadUncommitted,
			Expect{Say: "expect.offsets", Fact: "offsets", Want: "0, 2, 4, 6"},
			Expect{Say: "expect.countO2", Fact: "count", Arg: totalO2, Want: "2"},
		),
		Step{
			Title: "l3.log.title", Say: "l3.log.say",
			Do:      ReadLog{Topic: "order-totals-tx"},
			Command: fmt.Sprintf(cmdDumpLog, "order-totals-tx"),
			Expect: []Expect{
				{Say: "expect.markers", Fact: "markers", Want: "1 COMMIT, 3 ABORT, 5 COMMIT, 7 COMMIT"},
				{Say: "expect.aborted", Fact: "aborted", Want: "2"},
				{Say: "expect.lso", Fact: "lso", Want: "8"},
				{Say: "expect.hw", Fact: "hw", Want: "8"},
				{Say: "expect.rcVisible", Fact: "readCommitted", Want: "0, 4, 6"},
				{Say: "expect.ruVisible", Fact: "readUncommitted", Want: "0, 2, 4, 6"},
			},
		},
		consume("l3.rc.title", "l3.rc.say", "order-totals-tx", inspect.ReadCommitted,
			Expect{Say: "expect.offsets", Fact: "offsets", Want: "0, 4, 6"},
			Expect{Say: "expect.total", Fact: "total", Want: "3"},
		),
	)
	return Lesson{ID: "3", Seed: "000", Title: "l3.title", Summary: "l3.summary", Steps: steps}
}

func lesson4() Lesson {
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
		ID: "4", Seed: "002", Title: "l4.title", Summary: "l4.summary", NeedsReplication: true,
		Steps: []Step{
			{
				Title: "create.title", Say: "l4.create.say",
				Do:      CreateTopics{Topics: []TopicSpec{{Name: "reliable-orders", Partitions: 1, ReplicationFactor: 3, Configs: map[string]string{"min.insync.replicas": "2"}}}},
				Command: "kafka-topics.sh --bootstrap-server {bootstrap} --create --topic {reliable-orders} --partitions 1 --replication-factor 3 --config min.insync.replicas=2",
				Expect:  []Expect{{Say: "expect.created", Fact: "created", Want: "1"}},
			},
			{
				Title: "l4.describe.title", Say: "l4.describe.say",
				Do:      DescribeTopic{Topic: "reliable-orders", WaitInSync: true},
				Command: "kafka-topics.sh --bootstrap-server {bootstrap} --describe --topic {reliable-orders}",
				Expect: []Expect{
					{Say: "expect.replicas", Fact: "replicas", Want: "3"},
					{Say: "expect.isr", Fact: "isr", Want: "3"},
				},
			},
			acks("l4.acks0.title", "l4.acks0.say", producer.AcksNone, Expect{Say: "expect.offsetsKnown", Fact: "offsets", Want: "unknown"}),
			acks("l4.acks1.title", "l4.acks1.say", producer.AcksLeader, Expect{Say: "expect.acknowledged", Fact: "acknowledged", Want: "5"}),
			acks("l4.acksall.title", "l4.acksall.say", producer.AcksAll, Expect{Say: "expect.acknowledged", Fact: "acknowledged", Want: "5"}),
			{
				Title: "l4.stop.title", Say: "l4.stop.say",
				Do:      StopFollowers{Topic: "reliable-orders"},
				Command: "docker compose -f compose.triple.yaml stop kafka-2 kafka-3   # the two followers (the seed: docker stop kafka-2 kafka-3)",
				Expect: []Expect{
					{Say: "expect.stopped", Fact: "stopped", Want: "2"},
					{Say: "expect.isr", Fact: "isr", Want: "1"},
					{Say: "expect.leaderKept", Fact: "leaderKept", Want: "yes"},
				},
			},
			acks("l4.nerall.title", "l4.nerall.say", producer.AcksAll, Expect{Say: "expect.acknowledged", Fact: "acknowledged", Want: "0"},
				Expect{Say: "expect.failed", Fact: "errors", Want: "5"},
				Expect{Say: "expect.notEnoughReplicas", Fact: "errorMentions", Arg: "NOT_ENOUGH_REPLICAS", Want: "yes"}),
			acks("l4.ner1.title", "l4.ner1.say", producer.AcksLeader, Expect{Say: "expect.acknowledged", Fact: "acknowledged", Want: "5"}),
			{
				Title: "l4.start.title", Say: "l4.start.say",
				Do:      StartFollowers{Topic: "reliable-orders"},
				Command: "docker compose -f compose.triple.yaml start kafka-2 kafka-3\nkafka-topics.sh --bootstrap-server {bootstrap} --describe --topic {reliable-orders}",
				Expect: []Expect{
					{Say: "expect.isrBefore", Fact: "isrBefore", Want: "1"},
					{Say: "expect.isr", Fact: "isr", Want: "3"},
					{Say: "expect.isrFull", Fact: "isrFull", Want: "yes"},
				},
			},
		},
	}
}

func lesson5() Lesson {
	const topic = "reliable-orders"
	produceCmd := "kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {reliable-orders} --command-property acks=all --command-property enable.idempotence="
	dump := fmt.Sprintf(cmdDumpLog, topic)
	return Lesson{
		ID: "5", Seed: "002", Title: "l5.title", Summary: "l5.summary",
		Steps: []Step{
			seedTopics("l5.create.say", topic),
			{
				Title: "l5.lost.title", Say: "l5.lost.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1001"}, Acks: producer.AcksAll, Fault: producer.LoseAck},
				Command: produceCmd + "false   # send event-1001; Offset Lab drops the broker's ACK on the wire",
				Expect: []Expect{
					{Say: "expect.ackLost", Fact: "ackLost", Want: "yes"},
					{Say: "expect.acknowledged", Fact: "acknowledged", Want: "1"},
				},
			},
			{
				Title: "l5.log1.title", Say: "l5.log1.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: "count", Arg: "event-1001", Want: "2"},
					{Say: "expect.pid", Fact: "pid", Arg: "event-1001", Want: "no"},
				},
			},
			{
				Title: "l5.idem.title", Say: "l5.idem.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1002"}, Acks: producer.AcksAll, Idempotent: true, Fault: producer.LoseAck},
				Command: produceCmd + "true   # send event-1002; Offset Lab drops the broker's ACK on the wire",
				Expect: []Expect{
					{Say: "expect.ackLost", Fact: "ackLost", Want: "yes"},
					{Say: "expect.producerId", Fact: "producerId", Want: "assigned"},
				},
			},
			{
				Title: "l5.log2.title", Say: "l5.log2.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: "count", Arg: "event-1002", Want: "1"},
					{Say: "expect.pid", Fact: "pid", Arg: "event-1002", Want: "yes"},
					{Say: "expect.sequences", Fact: "sequences", Arg: "event-1002", Want: "0"},
				},
			},
			{
				Title: "l5.conflict.title", Say: "l5.conflict.say",
				Do:      Produce{Topic: topic, Values: []string{"event-1009"}, Acks: producer.AcksLeader, Idempotent: true, Refused: true},
				Command: "kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {reliable-orders} --command-property enable.idempotence=true --command-property acks=1",
				Expect: []Expect{
					{Say: "expect.refused", Fact: "refused", Want: "yes"},
					{Say: "expect.namesIdempotence", Fact: "errorMentions", Arg: "idempotence", Want: "yes"},
				},
			},
			{
				Title: "l5.double.title", Say: "l5.double.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1003"}, Acks: producer.AcksAll, Idempotent: true, Fault: producer.DoubleSend},
				Command: "printf 'event-1003\\nevent-1003\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {reliable-orders} --command-property enable.idempotence=true",
				Expect:  []Expect{{Say: "expect.acknowledged", Fact: "acknowledged", Want: "2"}},
			},
			{
				Title: "l5.log3.title", Say: "l5.log3.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: "count", Arg: "event-1003", Want: "2"},
					{Say: "expect.sequences", Fact: "sequences", Arg: "event-1003", Want: "0, 1"},
				},
			},
			{
				Title: "l5.restart.title", Say: "l5.restart.say",
				Do:      Produce{Topic: topic, Key: "order-1001", Values: []string{"event-1002"}, Acks: producer.AcksAll, Idempotent: true},
				Command: produceCmd + "true   # a new process sends event-1002 again",
				Expect: []Expect{
					{Say: "expect.newProducerId", Fact: "newProducerId", Want: "yes"},
					{Say: "expect.acknowledged", Fact: "acknowledged", Want: "1"},
				},
			},
			{
				Title: "l5.log4.title", Say: "l5.log4.say",
				Do:      ReadLog{Topic: topic},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.copies", Fact: "count", Arg: "event-1002", Want: "2"},
					{Say: "expect.sequences", Fact: "sequences", Arg: "event-1002", Want: "0, 0"},
				},
			},
		},
	}
}

func lesson6a() Lesson {
	run := func(title, say Msg, mode producer.Mode, output, group, id, crashAt string, expect ...Expect) Step {
		if mode == producer.Transactional {
			return txProcessor(title, say, output, group, id, crashAt, expect...)
		}
		cmd := "python processor.py " + string(mode) + " {" + output + "}"
		if crashAt != "" {
			cmd += " " + crashAt
		}
		return Step{
			Title: title, Say: say,
			Do:      RunProcessor{Mode: mode, Input: "orders", Output: output, Group: group, CrashAt: crashAt},
			Command: cmd + "   # input {orders}, group {" + group + "}",
			Expect:  expect,
		}
	}
	crashed := Expect{Say: "expect.crashed", Fact: "crashed", Want: "yes"}
	return Lesson{
		ID: "6a", Seed: "003", Title: "l6a.title", Summary: "l6a.summary",
		Steps: []Step{
			seedTopics("l6a.create.say", "orders", "totals-amo", "totals-alo", "totals-eos"),
			seedOrders(),
			run("l6a.amo.crash.title", "l6a.amo.crash.say", producer.AtMostOnce, "totals-amo", "group-amo", "", "O-2",
				crashed, Expect{Say: "expect.processed", Fact: "processed", Want: "O-1"}),
			groupStep("l6a.amo.group.title", "l6a.amo.group.say", "group-amo", "2", "3", "1"),
			run("l6a.amo.restart.title", "l6a.amo.restart.say", producer.AtMostOnce, "totals-amo", "group-amo", "", "",
				Expect{Say: "expect.processed", Fact: "processed", Want: "O-3"}),
			{
				Title: "l6a.amo.read.title", Say: "l6a.amo.read.say",
				Do:      ReadRecords{Topic: "totals-amo", Isolation: inspect.ReadUncommitted, AtLeast: 2},
				Command: fmt.Sprintf(cmdConsume, "totals-amo", inspect.ReadUncommitted),
				Expect: []Expect{
					{Say: "expect.countO2", Fact: "count", Arg: totalO2, Want: "0"},
					{Say: "expect.records", Fact: "records", Want: "0: " + totalO1 + " · 1: " + totalO3},
				},
			},
			run("l6a.alo.crash.title", "l6a.alo.crash.say", producer.Plain, "totals-alo", "group-alo", "", "O-2", crashed),
			run("l6a.alo.restart.title", "l6a.alo.restart.say", producer.Plain, "totals-alo", "group-alo", "", "",
				Expect{Say: "expect.processed", Fact: "processed", Want: "O-2, O-3"}),
			consume("l6a.alo.read.title", "l6a.alo.read.say", "totals-alo", inspect.ReadCommitted,
				Expect{Say: "expect.countO2", Fact: "count", Arg: totalO2, Want: "2"},
				Expect{Say: "expect.total", Fact: "total", Want: "4"},
			),
			run("l6a.eos.crash.title", "l6a.eos.crash.say", producer.Transactional, "totals-eos", "group-eos", "totals-eos-app", "O-2", crashed),
			run("l6a.eos.restart.title", "l6a.eos.restart.say", producer.Transactional, "totals-eos", "group-eos", "totals-eos-app", "",
				Expect{Say: "expect.processed", Fact: "processed", Want: "O-2, O-3"}),
			consume("l6a.eos.read.title", "l6a.eos.read.say", "totals-eos", inspect.ReadCommitted,
				Expect{Say: "expect.countO2", Fact: "count", Arg: totalO2, Want: "1"},
				Expect{Say: "expect.total", Fact: "total", Want: "3"},
			),
		},
	}
}

// Python lines for the transactional steps: no Kafka script drives a
// transaction, so the command is the confluent-kafka call of the seeds.
const (
	pyInit   = `producer = Producer({"bootstrap.servers": "{bootstrap}", "transactional.id": "{payments-app}"})` + "\n" + `producer.init_transactions(); producer.begin_transaction()`
	pyCommit = `producer.commit_transaction()`
	pyAbort  = `producer.abort_transaction()`
)

func pySend(value string) string {
	return `producer.produce("{payments}", value=b"` + value + `"); producer.flush()`
}

func lesson6b() Lesson {
	return Lesson{
		ID: "6b", Seed: "003", Title: "l6b.title", Summary: "l6b.summary",
		Steps: []Step{
			seedTopics("l6b.create.say", "payments"),
			{
				Title: "l6b.begin1.title", Say: "l6b.begin1.say",
				Do:      Begin{Process: "app-1", TransactionalID: "payments-app"},
				Command: "# app-1\n" + pyInit,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: "producerId", Want: "yes"}},
			},
			{
				Title: "l6b.send1.title", Say: "l6b.send1.say",
				Do:      Send{Process: "app-1", TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-1 paid by app-1"}},
				Command: "# app-1\n" + pySend("P-1 paid by app-1"),
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: "offsets", Want: "0"}},
			},
			{
				Title: "l6b.begin2.title", Say: "l6b.begin2.say",
				Do:      Begin{Process: "app-2", TransactionalID: "payments-app"},
				Command: "# app-2, a second process with the same transactional.id\n" + pyInit,
				Expect: []Expect{
					{Say: "expect.fencedPrevious", Fact: "fencedPrevious", Want: "yes"},
					{Say: "expect.sameProducerId", Fact: "sameProducerId", Want: "yes"},
				},
			},
			{
				Title: "l6b.zombie.title", Say: "l6b.zombie.say",
				Do:      Send{Process: "app-1", TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-2 paid by app-1"}},
				Command: "# app-1, the zombie\n" + pySend("P-2 paid by app-1"),
				Expect: []Expect{
					{Say: "expect.fenced", Fact: "fenced", Want: "yes"},
					{Say: "expect.error", Fact: "error", Want: "INVALID_PRODUCER_EPOCH"},
				},
			},
			{
				Title: "l6b.send2.title", Say: "l6b.send2.say",
				Do:      Send{Process: "app-2", TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-2 paid by app-2"}},
				Command: "# app-2\n" + pySend("P-2 paid by app-2"),
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: "offsets", Want: "2"}},
			},
			{
				Title: "l6b.commit.title", Say: "l6b.commit.say",
				Do:      End{Process: "app-2", TransactionalID: "payments-app", Commit: true},
				Command: "# app-2\n" + pyCommit,
				Expect:  []Expect{{Say: "expect.ended", Fact: "ended", Want: "committed"}},
			},
			{
				Title: "l6b.log.title", Say: "l6b.log.say",
				Do:      ReadLog{Topic: "payments"},
				Command: fmt.Sprintf(cmdDumpLog, "payments"),
				Expect: []Expect{
					{Say: "expect.shape", Fact: "shape", Want: "0:aborted 1:ABORT 2:committed 3:COMMIT"},
					{Say: "expect.copies", Fact: "count", Arg: "P-2 paid by app-1", Want: "0"},
				},
			},
			consume("l6b.read.title", "l6b.read.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "2: P-2 paid by app-2"},
			),
		},
	}
}

func lesson6c() Lesson {
	dump := fmt.Sprintf(cmdDumpLog, "payments")
	return Lesson{
		ID: "6c", Seed: "003", Title: "l6c.title", Summary: "l6c.summary",
		Steps: []Step{
			seedTopics("l6c.create.say", "payments"),
			{
				Title: "l6c.begin.title", Say: "l6c.begin.say",
				Do:      Begin{TransactionalID: "payments-app"},
				Command: pyInit,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: "producerId", Want: "yes"}},
			},
			{
				Title: "l6c.send.title", Say: "l6c.send.say",
				Do:      Send{TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-1 pending"}},
				Command: pySend("P-1 pending"),
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: "offsets", Want: "0"}},
			},
			{
				Title: "l6c.plain.title", Say: "l6c.plain.say",
				Do:      Produce{Topic: "payments", Values: []string{"P-2 paid", "P-3 paid"}, Acks: producer.AcksAll},
				Command: "printf 'P-2 paid\\nP-3 paid\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {payments}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: "offsets", Want: "1, 2"}},
			},
			{
				Title: "l6c.log1.title", Say: "l6c.log1.say",
				Do:      ReadLog{Topic: "payments"},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.lso", Fact: "lso", Want: "0"},
					{Say: "expect.hw", Fact: "hw", Want: "3"},
					{Say: "expect.open", Fact: "open", Want: "0"},
				},
			},
			consume("l6c.rc1.title", "l6c.rc1.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.total", Fact: "total", Want: "0"},
			),
			consume("l6c.ru.title", "l6c.ru.say", "payments", inspect.ReadUncommitted,
				Expect{Say: "expect.offsets", Fact: "offsets", Want: "0, 1, 2"},
			),
			{
				Title: "l6c.abort.title", Say: "l6c.abort.say",
				Do:      End{TransactionalID: "payments-app"},
				Command: pyAbort,
				Expect:  []Expect{{Say: "expect.ended", Fact: "ended", Want: "aborted"}},
			},
			{
				Title: "l6c.log2.title", Say: "l6c.log2.say",
				Do:      ReadLog{Topic: "payments"},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.markers", Fact: "markers", Want: "3 ABORT"},
					{Say: "expect.lso", Fact: "lso", Want: "4"},
					{Say: "expect.hw", Fact: "hw", Want: "4"},
				},
			},
			consume("l6c.rc2.title", "l6c.rc2.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "1: P-2 paid · 2: P-3 paid"},
			),
		},
	}
}

func lesson6d() Lesson {
	keyed := func(title, say Msg, key string, values ...string) Step {
		lines := ""
		for _, v := range values {
			lines += key + ":" + v + "\\n"
		}
		return Step{
			Title: title, Say: say,
			Do:      Produce{Topic: "user-events", Key: key, Values: values, Acks: producer.AcksAll, Idempotent: true},
			Command: "printf '" + lines + "' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {user-events} --reader-property parse.key=true --reader-property key.separator=:",
			Expect: []Expect{
				{Say: "expect.onePartition", Fact: "partitions", Want: "1"},
				{Say: "expect.inOrder", Fact: "inOrder", Want: "yes"},
			},
		}
	}
	read := func(title, say Msg, key string, want string) Step {
		return Step{
			Title: title, Say: say,
			Do:      ReadRecords{Topic: "user-events", PartitionOfKey: key, Isolation: inspect.ReadCommitted},
			Command: "kafka-console-consumer.sh --bootstrap-server {bootstrap} --topic {user-events} --partition <" + key + "'s partition> --offset earliest --formatter-property print.key=true --formatter-property print.offset=true --timeout-ms 10000",
			Expect:  []Expect{{Say: "expect.keyOrder", Fact: "keyOrder", Arg: key, Want: want}},
		}
	}
	return Lesson{
		ID: "6d", Seed: "003", Title: "l6d.title", Summary: "l6d.summary",
		Steps: []Step{
			{
				Title: "create.title", Say: "l6d.create.say",
				Do:      CreateTopics{Topics: []TopicSpec{{Name: "user-events", Partitions: 3}}},
				Command: "kafka-topics.sh --bootstrap-server {bootstrap} --create --topic {user-events} --partitions 3",
				Expect:  []Expect{{Say: "expect.created", Fact: "created", Want: "1"}},
			},
			keyed("l6d.user1.title", "l6d.user1.say", "user-1", "user-1 login", "user-1 add-to-cart", "user-1 pay"),
			keyed("l6d.user2.title", "l6d.user2.say", "user-2", "user-2 login", "user-2 pay"),
			read("l6d.read1.title", "l6d.read1.say", "user-1", "user-1 login, user-1 add-to-cart, user-1 pay"),
			read("l6d.read2.title", "l6d.read2.say", "user-2", "user-2 login, user-2 pay"),
		},
	}
}

func lesson6e() Lesson {
	send := func(title, say Msg, process, topic, value, want string) Step {
		return Step{
			Title: title, Say: say,
			Do:      Send{Process: process, TransactionalID: "order-service", Topic: topic, Values: []string{value}},
			Command: "# " + process + "\n" + `producer.produce("{` + topic + `}", value=b"` + value + `"); producer.flush()`,
			Expect:  []Expect{{Say: "expect.writtenAt", Fact: "offsets", Want: want}},
		}
	}
	initTxn := `producer = Producer({"bootstrap.servers": "{bootstrap}", "transactional.id": "{order-service}"})` + "\n" + `producer.init_transactions(); producer.begin_transaction()`
	return Lesson{
		ID: "6e", Seed: "003", Title: "l6e.title", Summary: "l6e.summary",
		Steps: []Step{
			seedTopics("l6e.create.say", "orders", "inventory"),
			{
				Title: "l6e.plain.title", Say: "l6e.plain.say",
				Do:      Produce{Topic: "orders", Values: []string{"O-7 created"}, Acks: producer.AcksAll},
				Command: "echo 'O-7 created' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {orders}\n# the process dies before: echo 'I-7 reserved for O-7' | kafka-console-producer.sh ... --topic {inventory}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: "offsets", Want: "0"}},
			},
			consume("l6e.inventory1.title", "l6e.inventory1.say", "inventory", inspect.ReadCommitted,
				Expect{Say: "expect.total", Fact: "total", Want: "0"},
			),
			{
				Title: "l6e.begin.title", Say: "l6e.begin.say",
				Do:      Begin{Process: "app-1", TransactionalID: "order-service"},
				Command: "# app-1\n" + initTxn,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: "producerId", Want: "yes"}},
			},
			send("l6e.send1.title", "l6e.send1.say", "app-1", "orders", "O-8 created", "1"),
			{
				Title: "l6e.crash.title", Say: "l6e.crash.say",
				Do:      Crash{Process: "app-1", TransactionalID: "order-service"},
				Command: "kill -9 <pid of app-1>",
				Expect:  []Expect{{Say: "expect.crashed", Fact: "crashed", Want: "yes"}},
			},
			consume("l6e.orders1.title", "l6e.orders1.say", "orders", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "0: O-7 created"},
			),
			{
				Title: "l6e.restart.title", Say: "l6e.restart.say",
				Do:      Begin{Process: "app-2", TransactionalID: "order-service"},
				Command: "# app-2, the restarted service\n" + initTxn,
				Expect:  []Expect{{Say: "expect.fencedPrevious", Fact: "fencedPrevious", Want: "yes"}},
			},
			send("l6e.send2.title", "l6e.send2.say", "app-2", "orders", "O-8 created", "3"),
			send("l6e.send3.title", "l6e.send3.say", "app-2", "inventory", "I-8 reserved for O-8", "0"),
			{
				Title: "l6e.commit.title", Say: "l6e.commit.say",
				Do:      End{Process: "app-2", TransactionalID: "order-service", Commit: true},
				Command: "# app-2\n" + pyCommit,
				Expect:  []Expect{{Say: "expect.ended", Fact: "ended", Want: "committed"}},
			},
			consume("l6e.orders2.title", "l6e.orders2.say", "orders", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "0: O-7 created · 3: O-8 created"},
			),
			consume("l6e.inventory2.title", "l6e.inventory2.say", "inventory", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "0: I-8 reserved for O-8"},
			),
		},
	}
}

func lesson6f() Lesson {
	apply := func(title, say Msg, effect, cmd string, expect ...Expect) Step {
		return Step{
			Title: title, Say: say,
			Do:      ApplyPayments{Topic: "payments", Effect: effect},
			Command: cmd,
			Expect:  append([]Expect{{Say: "expect.deliveries", Fact: "deliveries", Want: "4"}}, expect...),
		}
	}
	return Lesson{
		ID: "6f", Seed: "003", Title: "l6f.title", Summary: "l6f.summary",
		Steps: []Step{
			seedTopics("l6f.create.say", "payments"),
			{
				Title: "l6f.produce.title", Say: "l6f.produce.say",
				Do:      Produce{Topic: "payments", Values: []string{"PAY-1 O-1 10000", "PAY-2 O-2 25000"}, Acks: producer.AcksAll, Idempotent: true},
				Command: "printf 'PAY-1 O-1 10000\\nPAY-2 O-2 25000\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {payments}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: "offsets", Want: "0, 1"}},
			},
			apply("l6f.upsert.title", "l6f.upsert.say", EffectUpsert,
				"UPDATE orders SET status = 'PAID' WHERE order_id = :orderId;",
				Expect{Say: "expect.status", Fact: "status", Arg: "O-1", Want: "PAID"},
				Expect{Say: "expect.status", Fact: "status", Arg: "O-2", Want: "PAID"},
			),
			apply("l6f.decrement.title", "l6f.decrement.say", EffectDecrement,
				"UPDATE accounts SET balance = balance - :amount WHERE user_id = :userId;",
				Expect{Say: "expect.balanceTwice", Fact: "balance", Want: "30000"},
			),
			apply("l6f.dedupe.title", "l6f.dedupe.say", EffectDedupe,
				"if redis.exists(\"processed:\" + eventId): skip\nUPDATE accounts SET balance = balance - :amount WHERE user_id = :userId;\nredis.set(\"processed:\" + eventId, \"1\", TTL)",
				Expect{Say: "expect.skipped", Fact: "skipped", Want: "2"},
				Expect{Say: "expect.balanceOnce", Fact: "balance", Want: "65000"},
			),
		},
	}
}

// lesson6g is seed 003's cost of transactions: a transaction nobody ends is
// aborted by the broker once transaction.timeout.ms passes (Kafka checks
// every 10 s, so the abort comes 5 to 15 s after the transaction began).
func lesson6g() Lesson {
	init := `producer = Producer({"bootstrap.servers": "{bootstrap}", "transactional.id": "{slow-app}", "transaction.timeout.ms": 5000})` + "\n" + `producer.init_transactions(); producer.begin_transaction()`
	return Lesson{
		ID: "6g", Seed: "003", Title: "l6g.title", Summary: "l6g.summary",
		Steps: []Step{
			seedTopics("l6g.create.say", "payments"),
			{
				Title: "l6g.begin.title", Say: "l6g.begin.say",
				Do:      Begin{TransactionalID: "slow-app", TimeoutMs: 5000},
				Command: init,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: "producerId", Want: "yes"}},
			},
			{
				Title: "l6g.send.title", Say: "l6g.send.say",
				Do:      Send{TransactionalID: "slow-app", Topic: "payments", Values: []string{"P-1 pending"}},
				Command: `producer.produce("{payments}", value="P-1 pending"); producer.flush()` + "\n# ... and the application hangs: no commit, no abort",
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: "offsets", Want: "0"}},
			},
			{
				Title: "l6g.plain.title", Say: "l6g.plain.say",
				Do:      Produce{Topic: "payments", Values: []string{"P-2 paid", "P-3 paid"}, Acks: producer.AcksAll},
				Command: "printf 'P-2 paid\\nP-3 paid\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {payments}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: "offsets", Want: "1, 2"}},
			},
			consume("l6g.rc1.title", "l6g.rc1.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.total", Fact: "total", Want: "0"},
			),
			{
				Title: "l6g.wait.title", Say: "l6g.wait.say",
				Do:      AwaitBrokerAbort{Topic: "payments", Within: 45 * time.Second},
				Command: fmt.Sprintf(cmdDumpLog, "payments"),
				Expect: []Expect{
					{Say: "expect.aborted", Fact: "aborted", Want: "0"},
					{Say: "expect.markers", Fact: "markers", Want: "3 ABORT"},
					{Say: "expect.lso", Fact: "lso", Want: "4"},
					{Say: "expect.hw", Fact: "hw", Want: "4"},
				},
			},
			consume("l6g.rc2.title", "l6g.rc2.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: "records", Want: "1: P-2 paid · 2: P-3 paid"},
			),
			{
				Title: "txn.title", Say: "l6g.txn.say",
				Do:      DescribeTransaction{TransactionalID: "slow-app"},
				Command: fmt.Sprintf(cmdTransaction, "slow-app"),
				Expect: []Expect{
					{Say: "expect.txnState", Fact: "state", Want: "CompleteAbort", Embedded: &Divergence{Want: "Empty", Note: "note.emptyAbort"}},
					{Say: "expect.timeoutMs", Fact: "timeoutMs", Want: "5000"},
				},
			},
		},
	}
}
