package lab_test

import (
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// TestHeldLSO: an open transaction of "refund-worker-7" at offset 3 with
// two records after it holds the LSO: HeldLSO names it (id, producer,
// age, timeout) and counts the 2 records waiting; the force-termination
// through its coordinator narrates, frees the LSO and leaves the id
// Empty; a second one is a conflict; the producer that held it is fenced;
// a read-only lab refuses the abort.
func TestHeldLSO(t *testing.T) {
	t.Parallel()
	l := newLab(t, false)
	ctx := testContext(t)
	createTopic(t, ctx, l, "refunds")
	plain := func(values ...string) {
		t.Helper()
		if _, err := l.Produce(ctx, producer.Request{Topic: "refunds", Values: producer.Values(values...)}); err != nil {
			t.Fatal(err)
		}
	}
	plain("r0", "r1", "r2")
	if h, err := l.HeldLSO(ctx, "refunds", 0); err != nil || h.Held || h.Holder != nil || h.LastStableOffset != 3 {
		t.Fatalf("HeldLSO before the transaction: %+v, %v; want nothing held at LSO 3", h, err)
	}
	const id = "refund-worker-7"
	if _, err := l.Begin(ctx, lab.DashboardProcess, id, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Send(ctx, lab.DashboardProcess, id, producer.Request{Topic: "refunds", Values: producer.Values("pending")}); err != nil {
		t.Fatal(err)
	}
	plain("r4", "r5")

	h, err := l.HeldLSO(ctx, "refunds", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Held || h.LastStableOffset != 3 || h.HighWatermark != 6 || h.Waiting != 2 || !h.WaitingComplete {
		t.Fatalf("HeldLSO: %+v, want held at 3 (HW 6) with 2 waiting", h)
	}
	if x := h.Holder; x == nil || x.TransactionalID != id || x.StartOffset != 3 || x.State != "Ongoing" || x.TimeoutMs != 30_000 || x.StartTimestamp <= 0 || x.ProducerID < 0 {
		t.Fatalf("HeldLSO holder: %+v, want %s Ongoing from 3 with a 30 s timeout", h.Holder, id)
	}

	events := narratedSince(t, l, func() {
		ended, err := l.ForceTerminateTransaction(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ended.State != "Empty" || ended.ProducerID != h.Holder.ProducerID || ended.NewProducerEpoch <= ended.ProducerEpoch {
			t.Errorf("ForceTerminateTransaction: %+v, want %s Empty with a raised epoch", ended, id)
		}
	})
	wantKeys(t, events, "narration.forceTerminate")
	if h, err := l.HeldLSO(ctx, "refunds", 0); err != nil || h.Held || h.Holder != nil || h.LastStableOffset != h.HighWatermark {
		t.Errorf("HeldLSO after the abort: %+v, %v; want nothing held", h, err)
	}
	_, err = l.ForceTerminateTransaction(ctx, id)
	wantProblem(t, err, problem.Conflict, "error.transactionNotOngoing")
	if st, _ := l.Send(ctx, lab.DashboardProcess, id, producer.Request{Topic: "refunds", Values: producer.Values("late")}); !st.Fenced {
		t.Errorf("the fenced producer's next send: %+v, want it fenced", st)
	}
	_, err = newLab(t, true).ForceTerminateTransaction(ctx, id)
	wantProblem(t, err, problem.Forbidden, "error.readOnly")
}
