package lessons

// Lessons 6e–6g: seed 003, multi-topic atomicity, consumer-side
// idempotence, the transaction timeout.

import (
	"fmt"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// atomicWritesToTwoTopics is lesson 6e: an order and its stock change in one
// transaction, or a crash between them.
func atomicWritesToTwoTopics() Lesson {
	send := func(title, say Msg, process, topic, value, want string) Step {
		return Step{
			Title: title, Say: say,
			Do:      Send{Process: process, TransactionalID: "order-service", Topic: topic, Values: []string{value}},
			Command: "# " + process + "\n" + `producer.produce("{` + topic + `}", value=b"` + value + `"); producer.flush()`,
			Expect:  []Expect{{Say: "expect.writtenAt", Fact: FactOffsets, Want: want}},
		}
	}
	initTxn := `producer = Producer({"bootstrap.servers": "{bootstrap}", "transactional.id": "{order-service}"})` + "\n" + `producer.init_transactions(); producer.begin_transaction()`
	return Lesson{
		ID: "6e", Seed: "003", Title: "l6e.title", Summary: "l6e.summary", Focus: "orders",
		Steps: []Step{
			seedTopics("l6e.create.say", "orders", "inventory"),
			{
				Title: "l6e.plain.title", Say: "l6e.plain.say",
				Do:      Produce{Topic: "orders", Values: []string{"O-7 created"}, Acks: producer.AcksAll},
				Command: "echo 'O-7 created' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {orders}\n# the process dies before: echo 'I-7 reserved for O-7' | kafka-console-producer.sh ... --topic {inventory}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "0"}},
			},
			consume("l6e.inventory1.title", "l6e.inventory1.say", "inventory", inspect.ReadCommitted,
				Expect{Say: "expect.total", Fact: FactTotal, Want: "0"},
			),
			{
				Title: "l6e.begin.title", Say: "l6e.begin.say",
				Do:      Begin{Process: "app-1", TransactionalID: "order-service"},
				Command: "# app-1\n" + initTxn,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: FactProducerID, Want: "yes"}},
			},
			send("l6e.send1.title", "l6e.send1.say", "app-1", "orders", "O-8 created", "1"),
			{
				Title: "l6e.crash.title", Say: "l6e.crash.say",
				Do:      Crash{Process: "app-1", TransactionalID: "order-service"},
				Command: "kill -9 <pid of app-1>",
				Expect:  []Expect{{Say: "expect.crashed", Fact: FactCrashed, Want: "yes"}},
			},
			consume("l6e.orders1.title", "l6e.orders1.say", "orders", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "0: O-7 created"},
			),
			{
				Title: "l6e.restart.title", Say: "l6e.restart.say",
				Do:      Begin{Process: "app-2", TransactionalID: "order-service"},
				Command: "# app-2, the restarted service\n" + initTxn,
				Expect:  []Expect{{Say: "expect.fencedPrevious", Fact: FactFencedPrevious, Want: "yes"}},
			},
			send("l6e.send2.title", "l6e.send2.say", "app-2", "orders", "O-8 created", "3"),
			send("l6e.send3.title", "l6e.send3.say", "app-2", "inventory", "I-8 reserved for O-8", "0"),
			{
				Title: "l6e.commit.title", Say: "l6e.commit.say",
				Do:      End{Process: "app-2", TransactionalID: "order-service", Commit: true},
				Command: "# app-2\n" + pyCommit,
				Expect:  []Expect{{Say: "expect.ended", Fact: FactEnded, Want: "committed"}},
			},
			consume("l6e.orders2.title", "l6e.orders2.say", "orders", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "0: O-7 created · 3: O-8 created"},
			),
			consume("l6e.inventory2.title", "l6e.inventory2.say", "inventory", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "0: I-8 reserved for O-8"},
			),
		},
	}
}

// idempotentConsumers is lesson 6f: what a replay does to an upsert, a
// decrement and a store of processed event ids.
func idempotentConsumers() Lesson {
	apply := func(title, say Msg, effect, cmd string, expect ...Expect) Step {
		return Step{
			Title: title, Say: say,
			Do:      ApplyPayments{Topic: "payments", Effect: effect},
			Command: cmd,
			Expect:  append([]Expect{{Say: "expect.deliveries", Fact: FactDeliveries, Want: "4"}}, expect...),
		}
	}
	return Lesson{
		ID: "6f", Seed: "003", Title: "l6f.title", Summary: "l6f.summary", Focus: "payments",
		Steps: []Step{
			seedTopics("l6f.create.say", "payments"),
			{
				Title: "l6f.produce.title", Say: "l6f.produce.say",
				Do:      Produce{Topic: "payments", Values: []string{"PAY-1 O-1 10000", "PAY-2 O-2 25000"}, Acks: producer.AcksAll, Idempotent: true},
				Command: "printf 'PAY-1 O-1 10000\\nPAY-2 O-2 25000\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {payments}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "0, 1"}},
			},
			apply("l6f.upsert.title", "l6f.upsert.say", EffectUpsert,
				"UPDATE orders SET status = 'PAID' WHERE order_id = :orderId;",
				Expect{Say: "expect.status", Fact: FactStatus, Arg: "O-1", Want: "PAID"},
				Expect{Say: "expect.status", Fact: FactStatus, Arg: "O-2", Want: "PAID"},
			),
			apply("l6f.decrement.title", "l6f.decrement.say", EffectDecrement,
				"UPDATE accounts SET balance = balance - :amount WHERE user_id = :userId;",
				Expect{Say: "expect.balanceTwice", Fact: FactBalance, Want: "30000"},
			),
			apply("l6f.dedupe.title", "l6f.dedupe.say", EffectDedupe,
				"if redis.exists(\"processed:\" + eventId): skip\nUPDATE accounts SET balance = balance - :amount WHERE user_id = :userId;\nredis.set(\"processed:\" + eventId, \"1\", TTL)",
				Expect{Say: "expect.skipped", Fact: FactSkipped, Want: "2"},
				Expect{Say: "expect.balanceOnce", Fact: FactBalance, Want: "65000"},
			),
		},
	}
}

// brokerAbortsOnTimeout is seed 003's cost of transactions: a transaction nobody ends is
// aborted by the broker once transaction.timeout.ms passes (Kafka checks
// every 10 s, so the abort comes 5 to 15 s after the transaction began).
func brokerAbortsOnTimeout() Lesson {
	init := `producer = Producer({"bootstrap.servers": "{bootstrap}", "transactional.id": "{slow-app}", "transaction.timeout.ms": 5000})` + "\n" + `producer.init_transactions(); producer.begin_transaction()`
	return Lesson{
		ID: "6g", Seed: "003", Title: "l6g.title", Summary: "l6g.summary", Focus: "payments",
		Steps: []Step{
			seedTopics("l6g.create.say", "payments"),
			{
				Title: "l6g.begin.title", Say: "l6g.begin.say",
				Do:      Begin{TransactionalID: "slow-app", TimeoutMs: 5000},
				Command: init,
				Expect:  []Expect{{Say: "expect.producerIdAssigned", Fact: FactProducerID, Want: "yes"}},
			},
			{
				Title: "l6g.send.title", Say: "l6g.send.say",
				Do:      Send{TransactionalID: "slow-app", Topic: "payments", Values: []string{"P-1 pending"}},
				Command: `producer.produce("{payments}", value="P-1 pending"); producer.flush()` + "\n# ... and the application hangs: no commit, no abort",
				Expect:  []Expect{{Say: "expect.writtenAt", Fact: FactOffsets, Want: "0"}},
			},
			{
				Title: "l6g.plain.title", Say: "l6g.plain.say",
				Do:      Produce{Topic: "payments", Values: []string{"P-2 paid", "P-3 paid"}, Acks: producer.AcksAll},
				Command: "printf 'P-2 paid\\nP-3 paid\\n' | kafka-console-producer.sh --bootstrap-server {bootstrap} --topic {payments}",
				Expect:  []Expect{{Say: "expect.orders.offsets", Fact: FactOffsets, Want: "1, 2"}},
			},
			consume("l6g.rc1.title", "l6g.rc1.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.total", Fact: FactTotal, Want: "0"},
			),
			{
				Title: "l6g.wait.title", Say: "l6g.wait.say",
				Do:      AwaitBrokerAbort{Topic: "payments", Within: 45 * time.Second},
				Command: fmt.Sprintf(cmdDumpLog, "payments"),
				Expect: []Expect{
					{Say: "expect.aborted", Fact: FactAborted, Want: "0"},
					{Say: "expect.markers", Fact: FactMarkers, Want: "3 ABORT"},
					{Say: "expect.lso", Fact: FactLSO, Want: "4"},
					{Say: "expect.hw", Fact: FactHW, Want: "4"},
				},
			},
			consume("l6g.rc2.title", "l6g.rc2.say", "payments", inspect.ReadCommitted,
				Expect{Say: "expect.records", Fact: FactRecords, Want: "1: P-2 paid · 2: P-3 paid"},
			),
			{
				Title: "txn.title", Say: "l6g.txn.say",
				Do:      DescribeTransaction{TransactionalID: "slow-app"},
				Command: fmt.Sprintf(cmdTransaction, "slow-app"),
				Expect: []Expect{
					{Say: "expect.txnState", Fact: FactState, Want: "CompleteAbort"},
					{Say: "expect.timeoutMs", Fact: FactTimeoutMs, Want: "5000"},
				},
			},
		},
	}
}
