package lessons

// Lessons 1–3: seed 000, "Does Kafka exactly-once really process once?"

import (
	"fmt"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// crashBeforeOffsetCommit is lesson 1: the processor dies after writing a
// total and before committing its input offset, without a transaction.
func crashBeforeOffsetCommit() Lesson {
	return Lesson{
		ID: "1", Seed: "000", Title: "l1.title", Summary: "l1.summary", Focus: "order-totals",
		Steps: []Step{
			seedTopics("l1.create.say", "orders", "order-totals"),
			seedOrders(),
			{
				Title: "l1.crash.title", Say: "l1.crash.say",
				Do:      RunProcessor{Mode: producer.Plain, Input: "orders", Output: "order-totals", Group: "totals-plain", CrashAt: "O-2"},
				Command: "python processor.py plain {order-totals} O-2   # input {orders}, group {totals-plain}",
				Expect: []Expect{
					{Say: "expect.crashed", Fact: FactCrashed, Want: "yes"},
					{Say: "expect.processed", Fact: FactProcessed, Want: "O-1, O-2"},
				},
			},
			groupStep("group.title", "l1.group1.say", "totals-plain", "1", "3", "2"),
			{
				Title: "restart.title", Say: "l1.restart.say",
				Do:      RunProcessor{Mode: producer.Plain, Input: "orders", Output: "order-totals", Group: "totals-plain"},
				Command: "python processor.py plain {order-totals}   # input {orders}, group {totals-plain}",
				Expect:  []Expect{{Say: "expect.processed", Fact: FactProcessed, Want: "O-2, O-3"}},
			},
			consume("l1.read.title", "l1.read.say", "order-totals", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "0: " + totalO1 + " · 1: " + totalO2 + " · 2: " + totalO2 + " · 3: " + totalO3},
				Expect{Say: "expect.countO2", Fact: FactCount, Arg: totalO2, Want: "2"},
			),
			groupStep("group.end.title", "l1.group2.say", "totals-plain", "3", "3", "0"),
		},
	}
}

// crashAndRestart are lesson 2's two processor runs, shared by lesson 3.
func crashAndRestart(crashSay, restartSay Msg) []Step {
	return []Step{
		txProcessor("l2.crash.title", crashSay, "order-totals-tx", "totals-tx", "order-totals-app", "O-2",
			Expect{Say: "expect.crashed", Fact: FactCrashed, Want: "yes"},
			Expect{Say: "expect.processed", Fact: FactProcessed, Want: "O-1, O-2"},
		),
		txProcessor("l2.restart.title", restartSay, "order-totals-tx", "totals-tx", "order-totals-app", "",
			Expect{Say: "expect.processed", Fact: FactProcessed, Want: "O-2, O-3"},
			Expect{Say: "expect.retried", Fact: FactRetried, Want: "yes"},
		),
	}
}

// crashInsideTransaction is lesson 2: the same crash inside a transaction,
// and the restart that fences the dead producer.
func crashInsideTransaction() Lesson {
	runs := crashAndRestart("l2.crash.say", "l2.restart.say")
	return Lesson{
		ID: "2", Seed: "000", Title: "l2.title", Summary: "l2.summary", Focus: "order-totals-tx",
		Steps: []Step{
			seedTopics("l2.create.say", "orders", "order-totals-tx"),
			seedOrders(),
			runs[0],
			{
				Title: "txn.title", Say: "l2.txn1.say",
				Do:      DescribeTransaction{TransactionalID: "order-totals-app"},
				Command: fmt.Sprintf(cmdTransaction, "order-totals-app"),
				Expect: []Expect{
					{Say: "expect.txnState", Fact: FactState, Want: "Ongoing"},
					{Say: "expect.listsOutput", Fact: FactLists, Arg: "order-totals-tx", Want: "yes"},
					{Say: "expect.offsetsPartition", Fact: FactOffsetsPartition, Want: "yes"},
				},
			},
			groupStep("l2.group1.title", "l2.group1.say", "totals-tx", "1", "3", "2"),
			runs[1],
			{
				Title: "txn.again.title", Say: "l2.txn2.say",
				Do:      DescribeTransaction{TransactionalID: "order-totals-app"},
				Command: fmt.Sprintf(cmdTransaction, "order-totals-app"),
				Expect: []Expect{
					{Say: "expect.txnState", Fact: FactState, Want: "CompleteCommit"},
					{Say: "expect.epochBumped", Fact: FactEpochBumped, Want: "yes"},
				},
			},
			consume("l2.read.title", "l2.read.say", "order-totals-tx", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "0: " + totalO1 + " · 4: " + totalO2 + " · 6: " + totalO3},
				Expect{Say: "expect.countO2", Fact: FactCount, Arg: totalO2, Want: "1"},
			),
			groupStep("group.end.title", "l2.group2.say", "totals-tx", "3", "3", "0"),
		},
	}
}

// abortedRecordsAndMarkers is lesson 3: lesson 2 read with read_uncommitted
// and offset by offset — the aborted write and the markers' offsets.
func abortedRecordsAndMarkers() Lesson {
	steps := []Step{
		seedTopics("l3.create.say", "orders", "order-totals-tx"),
		seedOrders(),
	}
	steps = append(steps, crashAndRestart("l3.crash.say", "l3.restart.say")...)
	steps = append(steps,
		consume("l3.ru.title", "l3.ru.say", "order-totals-tx", inspect.ReadUncommitted,
			Expect{Say: "expect.offsets", Fact: FactOffsets, Want: "0, 2, 4, 6"},
			Expect{Say: "expect.countO2", Fact: FactCount, Arg: totalO2, Want: "2"},
		),
		Step{
			Title: "l3.log.title", Say: "l3.log.say",
			Do:      ReadLog{Topic: "order-totals-tx"},
			Command: fmt.Sprintf(cmdDumpLog, "order-totals-tx"),
			Expect: []Expect{
				{Say: "expect.markers", Fact: FactMarkers, Want: "1 COMMIT, 3 ABORT, 5 COMMIT, 7 COMMIT"},
				{Say: "expect.aborted", Fact: FactAborted, Want: "2"},
				{Say: "expect.lso", Fact: FactLSO, Want: "8"},
				{Say: "expect.hw", Fact: FactHW, Want: "8"},
				{Say: "expect.rcVisible", Fact: FactReadCommitted, Want: "0, 4, 6"},
				{Say: "expect.ruVisible", Fact: FactReadUncommitted, Want: "0, 2, 4, 6"},
			},
		},
		consume("l3.rc.title", "l3.rc.say", "order-totals-tx", inspect.ReadCommitted,
			Expect{Say: "expect.offsets", Fact: FactOffsets, Want: "0, 4, 6"},
			Expect{Say: "expect.total", Fact: FactTotal, Want: "3"},
		),
	)
	return Lesson{ID: "3", Seed: "000", Title: "l3.title", Summary: "l3.summary", Focus: "order-totals-tx", Steps: steps}
}
