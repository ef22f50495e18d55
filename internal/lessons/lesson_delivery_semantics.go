package lessons

// Lessons 6a–6d: seed 003, delivery semantics, fencing, hanging
// transactions, ordering by key.

import (
	"fmt"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// deliverySemanticsSideBySide is lesson 6a: the same crash under
// at-most-once, at-least-once and exactly-once.
func deliverySemanticsSideBySide() Lesson {
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
	crashed := Expect{Say: "expect.crashed", Fact: FactCrashed, Want: "yes"}
	return Lesson{
		ID: "6a", Seed: "003", Title: "l6a.title", Summary: "l6a.summary", Focus: "totals-eos",
		Steps: []Step{
			seedTopics("l6a.create.say", "orders", "totals-amo", "totals-alo", "totals-eos"),
			seedOrders(),
			run("l6a.amo.crash.title", "l6a.amo.crash.say", producer.AtMostOnce, "totals-amo", "group-amo", "", "O-2",
				crashed, Expect{Say: "expect.processed", Fact: FactProcessed, Want: "O-1"}),
			groupStep("l6a.amo.group.title", "l6a.amo.group.say", "group-amo", "2", "3", "1"),
			run("l6a.amo.restart.title", "l6a.amo.restart.say", producer.AtMostOnce, "totals-amo", "group-amo", "", "",
				Expect{Say: "expect.processed", Fact: FactProcessed, Want: "O-3"}),
			{
				Title: "l6a.amo.read.title", Say: "l6a.amo.read.say",
				Do:      ReadRecords{Topic: "totals-amo", Isolation: inspect.ReadUncommitted, AtLeast: 2},
				Command: fmt.Sprintf(cmdConsume, "totals-amo", inspect.ReadUncommitted),
				Expect: []Expect{
					{Say: "expect.countO2", Fact: FactCount, Arg: totalO2, Want: "0"},
					{Say: "expect.records", Fact: FactRecords, Want: "0: " + totalO1 + " · 1: " + totalO3},
				},
			},
			run("l6a.alo.crash.title", "l6a.alo.crash.say", producer.Plain, "totals-alo", "group-alo", "", "O-2", crashed),
			run("l6a.alo.restart.title", "l6a.alo.restart.say", producer.Plain, "totals-alo", "group-alo", "", "",
				Expect{Say: "expect.processed", Fact: FactProcessed, Want: "O-2, O-3"}),
			consume("l6a.alo.read.title", "l6a.alo.read.say", "totals-alo", inspect.ReadCommitted,
				Expect{Say: "expect.countO2", Fact: FactCount, Arg: totalO2, Want: "2"},
				Expect{Say: "expect.total", Fact: FactTotal, Want: "4"},
			),
			run("l6a.eos.crash.title", "l6a.eos.crash.say", producer.Transactional, "totals-eos", "group-eos", "totals-eos-app", "O-2", crashed),
			run("l6a.eos.restart.title", "l6a.eos.restart.say", producer.Transactional, "totals-eos", "group-eos", "totals-eos-app", "",
				Expect{Say: "expect.processed", Fact: FactProcessed, Want: "O-2, O-3"}),
			consume("l6a.eos.read.title", "l6a.eos.read.say", "totals-eos", inspect.ReadCommitted,
				Expect{Say: "expect.countO2", Fact: FactCount, Arg: totalO2, Want: "1"},
				Expect{Say: "expect.total", Fact: FactTotal, Want: "3"},
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

// zombieFencing is lesson 6b: a second producer with the same
// transactional.id fences the first.
func zombieFencing() Lesson {
	return Lesson{
		ID: "6b", Seed: "003", Title: "l6b.title", Summary: "l6b.summary", Focus: "payments",
		Steps: []Step{
			seedTopics("l6b.create.say", "payments"),
			{
				Title: "l6b.begin1.title", Say: "l6b.begin1.say",
				Do:      Begin{Process: "app-1", TransactionalID: "payments-app"},
				Command: "# app-1\n" + pyInit,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: FactProducerID, Want: "yes"}},
			},
			{
				Title: "l6b.send1.title", Say: "l6b.send1.say",
				Do:      Send{Process: "app-1", TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-1 paid by app-1"}},
				Command: "# app-1\n" + pySend("P-1 paid by app-1"),
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: FactOffsets, Want: "0"}},
			},
			{
				Title: "l6b.begin2.title", Say: "l6b.begin2.say",
				Do:      Begin{Process: "app-2", TransactionalID: "payments-app"},
				Command: "# app-2, a second process with the same transactional.id\n" + pyInit,
				Expect: []Expect{
					{Say: "expect.fencedPrevious", Fact: FactFencedPrevious, Want: "yes"},
					{Say: "expect.sameProducerId", Fact: FactSameProducerID, Want: "yes"},
				},
			},
			{
				Title: "l6b.zombie.title", Say: "l6b.zombie.say",
				Do:      Send{Process: "app-1", TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-2 paid by app-1"}},
				Command: "# app-1, the zombie\n" + pySend("P-2 paid by app-1"),
				Expect: []Expect{
					{Say: "expect.fenced", Fact: FactFenced, Want: "yes"},
					{Say: "expect.error", Fact: FactError, Want: "INVALID_PRODUCER_EPOCH"},
				},
			},
			{
				Title: "l6b.send2.title", Say: "l6b.send2.say",
				Do:      Send{Process: "app-2", TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-2 paid by app-2"}},
				Command: "# app-2\n" + pySend("P-2 paid by app-2"),
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: FactOffsets, Want: "2"}},
			},
			{
				Title: "l6b.commit.title", Say: "l6b.commit.say",
				Do:      End{Process: "app-2", TransactionalID: "payments-app", Commit: true},
				Command: "# app-2\n" + pyCommit,
				Expect:  []Expect{{Say: "expect.ended", Fact: FactEnded, Want: "committed"}},
			},
			{
				Title: "l6b.log.title", Say: "l6b.log.say",
				Do:      ReadLog{Topic: "payments"},
				Command: fmt.Sprintf(cmdDumpLog, "payments"),
				Expect: []Expect{
					{Say: "expect.shape", Fact: FactShape, Want: "0:aborted 1:ABORT 2:committed 3:COMMIT"},
					{Say: "expect.copies", Fact: FactCount, Arg: "P-2 paid by app-1", Want: "0"},
				},
			},
			consume("l6b.read.title", "l6b.read.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "2: P-2 paid by app-2"},
			),
		},
	}
}

// hangingTransactionHoldsLSO is lesson 6c: an open transaction pins the
// last stable offset until it ends.
func hangingTransactionHoldsLSO() Lesson {
	dump := fmt.Sprintf(cmdDumpLog, "payments")
	return Lesson{
		ID: "6c", Seed: "003", Title: "l6c.title", Summary: "l6c.summary", Focus: "payments",
		Steps: []Step{
			seedTopics("l6c.create.say", "payments"),
			{
				Title: "l6c.begin.title", Say: "l6c.begin.say",
				Do:      Begin{TransactionalID: "payments-app"},
				Command: pyInit,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: FactProducerID, Want: "yes"}},
			},
			{
				Title: "l6c.send.title", Say: "l6c.send.say",
				Do:      Send{TransactionalID: "payments-app", Topic: "payments", Values: []string{"P-1 pending"}},
				Command: pySend("P-1 pending"),
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: FactOffsets, Want: "0"}},
			},
			{
				Title: "l6c.plain.title", Say: "l6c.plain.say",
				Do:      Produce{Topic: "payments", Values: []string{"P-2 paid", "P-3 paid"}, Acks: producer.AcksAll},
				Command: "printf 'P-2 paid\\nP-3 paid\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {payments}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "1, 2"}},
			},
			{
				Title: "l6c.log1.title", Say: "l6c.log1.say",
				Do:      ReadLog{Topic: "payments"},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.lso", Fact: FactLSO, Want: "0"},
					{Say: "expect.hw", Fact: FactHW, Want: "3"},
					{Say: "expect.open", Fact: FactOpen, Want: "0"},
				},
			},
			consume("l6c.rc1.title", "l6c.rc1.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.total", Fact: FactTotal, Want: "0"},
			),
			consume("l6c.ru.title", "l6c.ru.say", "payments", inspect.ReadUncommitted,
				Expect{Say: "expect.offsets", Fact: FactOffsets, Want: "0, 1, 2"},
			),
			{
				Title: "l6c.abort.title", Say: "l6c.abort.say",
				Do:      End{TransactionalID: "payments-app"},
				Command: pyAbort,
				Expect:  []Expect{{Say: "expect.ended", Fact: FactEnded, Want: "aborted"}},
			},
			{
				Title: "l6c.log2.title", Say: "l6c.log2.say",
				Do:      ReadLog{Topic: "payments"},
				Command: dump,
				Expect: []Expect{
					{Say: "expect.markers", Fact: FactMarkers, Want: "3 ABORT"},
					{Say: "expect.lso", Fact: FactLSO, Want: "4"},
					{Say: "expect.hw", Fact: FactHW, Want: "4"},
				},
			},
			consume("l6c.rc2.title", "l6c.rc2.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "1: P-2 paid · 2: P-3 paid"},
			),
		},
	}
}

// orderingByKey is lesson 6d: records with the same key keep their order
// in one partition.
func orderingByKey() Lesson {
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
				{Say: "expect.onePartition", Fact: FactPartitions, Want: "1"},
				{Say: "expect.inOrder", Fact: FactInOrder, Want: "yes"},
			},
		}
	}
	read := func(title, say Msg, key string, want string) Step {
		return Step{
			Title: title, Say: say,
			Do:      ReadRecords{Topic: "user-events", PartitionOfKey: key, Isolation: inspect.ReadCommitted},
			Command: "kafka-console-consumer.sh --bootstrap-server {bootstrap} --topic {user-events} --partition <" + key + "'s partition> --offset earliest --formatter-property print.key=true --formatter-property print.offset=true --timeout-ms 10000",
			Expect:  []Expect{{Say: "expect.keyOrder", Fact: FactKeyOrder, Arg: key, Want: want}},
		}
	}
	return Lesson{
		ID: "6d", Seed: "003", Title: "l6d.title", Summary: "l6d.summary",
		Steps: []Step{
			{
				Title: "create.title", Say: "l6d.create.say",
				Do:      CreateTopics{Topics: []TopicSpec{{Name: "user-events", Partitions: 3}}},
				Command: "kafka-topics.sh --bootstrap-server {bootstrap} --create --topic {user-events} --partitions 3",
				Expect:  []Expect{{Say: "expect.created", Fact: FactCreated, Want: "1"}},
			},
			keyed("l6d.user1.title", "l6d.user1.say", "user-1", "user-1 login", "user-1 add-to-cart", "user-1 pay"),
			keyed("l6d.user2.title", "l6d.user2.say", "user-2", "user-2 login", "user-2 pay"),
			read("l6d.read1.title", "l6d.read1.say", "user-1", "user-1 login, user-1 add-to-cart, user-1 pay"),
			read("l6d.read2.title", "l6d.read2.say", "user-2", "user-2 login, user-2 pay"),
		},
	}
}
