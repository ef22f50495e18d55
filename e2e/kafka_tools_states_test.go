package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// stateFacts are what kafka-transactions, describe-producers and the
// console consumer showed of the coordinator's states, an idempotent
// producer and a compacted topic on one broker, for comparing brokers.
type stateFacts struct {
	// transactions: "CompleteCommit start=yes duration=yes partitions=" as
	// describe prints it after a commit, then after an abort, each
	// followed by list's state.
	transactions []string
	// idempotent is describe-producers' row for an idempotent producer,
	// its producer id left out and its last timestamp as "batch max" when
	// it is the batch's max timestamp (each run writes its own).
	idempotent map[string]string
	// compacted are the offsets the console consumer received from lesson
	// 7's compacted topic, by isolation level.
	compacted map[string][]int64
}

// checkStates runs kafka-transactions describe and list after a commit and
// after an abort, describe-producers for an idempotent producer, and the
// console consumer at both isolation levels over the compacted topic lesson
// 7 leaves, each compared with what the dashboard says of the same broker.
func checkStates(t *testing.T, tools javaTools, a *app, server []string) stateFacts {
	bootstrap := server[1]
	facts := stateFacts{compacted: map[string][]int64{}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// A transaction committed, then one aborted.
	topic, id := a.name("tools-states"), a.name("tools-states-app")
	a.do("POST", "/api/topics", map[string]any{"name": topic, "partitions": 1}, http.StatusCreated, nil)
	tx, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.TransactionalID(id), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for _, end := range []struct {
		how   kgo.TransactionEndTry
		state string
	}{{kgo.TryCommit, "CompleteCommit"}, {kgo.TryAbort, "CompleteAbort"}} {
		if err := tx.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := tx.ProduceSync(ctx, kgo.StringRecord(end.state)).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := tx.EndTransaction(ctx, end.how); err != nil {
			t.Fatal(err)
		}
		if got := a.settledTransaction(id); got.State != end.state {
			t.Errorf("the dashboard says %s after %s, want %s", got.State, end.state, end.state)
		}
		runs := tools.runAll(t,
			call(transactionsTool, append(server, "describe", "--transactional-id", id)...),
			call(transactionsTool, append(server, "list")...))
		row := describedTransaction(t, runs[0].stdout)
		seen := fmt.Sprintf("%s start=%s duration=%s partitions=%s", row["TransactionState"],
			yesNo(row["TransactionStartTimeMs"] != "None"), yesNo(row["TransactionDurationMs"] != "None"), row["TopicPartitions"])
		if want := end.state + " start=yes duration=yes partitions="; seen != want {
			t.Errorf("kafka-transactions describe after %s: %q, want %q:\n%s", end.state, seen, want, runs[0].stdout)
		}
		listed := "not listed"
		for _, r := range table(t, runs[1].stdout, "TransactionalId") {
			if r["TransactionalId"] == id {
				listed = r["TransactionState"]
			}
		}
		if listed != end.state {
			t.Errorf("kafka-transactions list after %s: %s", end.state, listed)
		}
		facts.transactions = append(facts.transactions, seen, "list "+listed)
	}

	// An idempotent producer: one batch of three records, an hour old.
	idemTopic := a.name("tools-idempotent")
	a.do("POST", "/api/topics", map[string]any{"name": idemTopic, "partitions": 1}, http.StatusCreated, nil)
	idem, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(idemTopic))
	if err != nil {
		t.Fatal(err)
	}
	defer idem.Close()
	stamp := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	recs := []*kgo.Record{{Value: []byte("a"), Timestamp: stamp}, {Value: []byte("b"), Timestamp: stamp}, {Value: []byte("c"), Timestamp: stamp.Add(time.Second)}}
	if err := idem.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	pid, _, err := idem.ProducerID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	described := tools.run(t, "", transactionsTool, append(server, "describe-producers", "--topic", idemTopic, "--partition", "0")...)
	rows := table(t, described.stdout, "ProducerId")
	if len(rows) != 1 || rows[0]["ProducerId"] != fmt.Sprint(pid) {
		t.Fatalf("describe-producers of an idempotent producer %d: %v\n%s", pid, rows, described.stdout)
	}
	facts.idempotent = rows[0]
	delete(facts.idempotent, "ProducerId")
	want := map[string]string{"ProducerEpoch": "0", "LatestCoordinatorEpoch": "-1", "LastSequence": "2",
		"LastTimestamp": fmt.Sprint(stamp.Add(time.Second).UnixMilli()), "CurrentTransactionStartOffset": "None"}
	for k, v := range want {
		if facts.idempotent[k] != v {
			t.Errorf("describe-producers %s: %q, want %q (%v)", k, facts.idempotent[k], v, facts.idempotent)
		}
	}
	if facts.idempotent["LastTimestamp"] == want["LastTimestamp"] {
		facts.idempotent["LastTimestamp"] = "batch max"
	}

	// Lesson 7's compacted topic, after its two cleaner passes, read by
	// the console consumer at both isolation levels.
	st := a.runLesson("7", true)
	if st.Status != "finished" || len(st.Topics) != 1 {
		t.Fatalf("lesson 7 ended %s with topics %v (%s)", st.Status, st.Topics, st.Error)
	}
	prices := st.Topics[0]
	isolations := []string{"read_committed", "read_uncommitted"}
	var calls []toolCall
	dash := map[string][]int64{}
	for _, iso := range isolations {
		dash[iso] = a.recordOffsets(prices, iso)
		calls = append(calls, call(consoleConsumer, append(server, "--topic", prices, "--from-beginning", "--isolation-level", iso,
			"--formatter-property", "print.offset=true", "--formatter-property", "print.key=true",
			"--max-messages", fmt.Sprint(len(dash[iso])), "--timeout-ms", "30000")...))
	}
	for i, run := range tools.runAll(t, calls...) {
		iso := isolations[i]
		got := printedOffsets(run.stdout)
		facts.compacted[iso] = got
		if !slices.Equal(got, dash[iso]) || !slices.Equal(got, []int64{0, 5, 7, 8}) {
			t.Errorf("console consumer at %s of the compacted topic: offsets %v, the dashboard %v, lesson 7 says 0, 5, 7, 8:\n%s", iso, got, dash[iso], run.stdout)
		}
	}
	return facts
}

// describedTransaction is kafka-transactions describe's one row; its last
// column, TopicPartitions, may be empty (a transaction that ended).
func describedTransaction(t *testing.T, out string) map[string]string {
	t.Helper()
	var header []string
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case fields[0] == "CoordinatorId":
			header = fields
		case header != nil && (len(fields) == len(header) || len(fields) == len(header)-1 && header[len(header)-1] == "TopicPartitions"):
			row := map[string]string{"TopicPartitions": ""}
			for i, f := range fields {
				row[header[i]] = f
			}
			return row
		}
	}
	t.Fatalf("kafka-transactions describe printed no row:\n%s", out)
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
