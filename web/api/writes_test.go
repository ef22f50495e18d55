package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// fakeWriter produces, runs the processor and steps transactions,
// recording each call; it writes every produce to partition 0.
type fakeWriter struct {
	calls
	err error
}

func (f *fakeWriter) Produce(_ context.Context, req producer.Request) (*producer.Outcome, error) {
	f.add("Produce %s values=%d acks=%s fault=%s", req.Topic, len(req.Values), req.Profile.Acks, req.Fault)
	return &producer.Outcome{Results: []producer.Result{{Partition: 0}}}, f.err
}

func (f *fakeWriter) RunProcessor(_ context.Context, cfg producer.RunConfig) (*producer.RunResult, error) {
	f.add("RunProcessor %s %s->%s crashAt=%s", cfg.Mode, cfg.Input, cfg.Output, cfg.CrashAt)
	return &producer.RunResult{}, f.err
}

func (f *fakeWriter) Transaction(_ context.Context, id string) (cluster.TransactionInfo, error) {
	f.add("Transaction %s", id)
	return cluster.TransactionInfo{TransactionalID: id, State: "Ongoing"}, f.err
}

func (f *fakeWriter) Transactions(_ context.Context, states ...string) ([]cluster.TransactionSummary, error) {
	f.add("Transactions %v", states)
	return []cluster.TransactionSummary{}, f.err
}

func (f *fakeWriter) Begin(_ context.Context, process, id string, timeout time.Duration) (producer.SessionState, error) {
	f.add("Begin %s %s %v", process, id, timeout)
	return producer.SessionState{TransactionalID: id, InTransaction: true}, f.err
}

func (f *fakeWriter) Send(_ context.Context, process, id string, req producer.Request) (producer.SessionState, error) {
	f.add("Send %s %s %s values=%d", process, id, req.Topic, len(req.Values))
	return producer.SessionState{TransactionalID: id, InTransaction: true}, f.err
}

func (f *fakeWriter) End(_ context.Context, process, id string, commit bool) (producer.SessionState, error) {
	f.add("End %s %s commit=%t", process, id, commit)
	return producer.SessionState{TransactionalID: id}, f.err
}

func (f *fakeWriter) Crash(_ context.Context, process, id string) (producer.SessionState, error) {
	f.add("Crash %s %s", process, id)
	return producer.SessionState{TransactionalID: id, Crashed: true}, f.err
}

func (f *fakeWriter) AbortTransaction(_ context.Context, topic string, partition int32, start int64) (cluster.AbortedTransaction, error) {
	f.add("AbortTransaction %s %d %d", topic, partition, start)
	return cluster.AbortedTransaction{Topic: topic, Partition: partition, StartOffset: start}, f.err
}

func (f *fakeWriter) ForceTerminateTransaction(_ context.Context, id string) (cluster.TerminatedTransaction, error) {
	f.add("ForceTerminateTransaction %s", id)
	return cluster.TerminatedTransaction{TransactionalID: id}, f.err
}

// writes is a server whose writing resources are f.
func writes(f *fakeWriter) *Server {
	return New(Deps{Produce: f, Processor: f, Transactions: f}, nil, Options{})
}

// TestWrites: each write decodes its body, refuses a bad one before the
// lab is asked, and calls its use case once.
func TestWrites(t *testing.T) {
	t.Parallel()
	handler := map[string]func(*Server) http.HandlerFunc{
		"produce":   func(s *Server) http.HandlerFunc { return s.Produce },
		"processor": func(s *Server) http.HandlerFunc { return s.RunProcessor },
		"step":      func(s *Server) http.HandlerFunc { return s.TransactionStep },
		"get":       func(s *Server) http.HandlerFunc { return s.GetTransaction },
		"list":      func(s *Server) http.HandlerFunc { return s.ListTransactions },
		"abort":     func(s *Server) http.HandlerFunc { return s.AbortTransaction },
		"terminate": func(s *Server) http.HandlerFunc { return s.TerminateTransaction },
	}
	const (
		step  = "/api/transactions/{transactionalID}/{step}"
		abort = "/api/topics/{topic}/partitions/{partition}/transactions/{start}/abort"
	)
	tests := []struct {
		name    string
		handler string
		req     request
		status  int
		call    string
		code    string
	}{
		{"produce", "produce", request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1","O-2"]}`, false, nil}, 200, "Produce orders values=2 acks=all fault=", ""},
		{"produce acks 1 as a number", "produce", request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1"],"acks":1}`, false, nil}, 200, "Produce orders values=1 acks=1 fault=", ""},
		{"produce acks 0", "produce", request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1"],"acks":"0","idempotent":false}`, false, nil}, 200, "Produce orders values=1 acks=0 fault=", ""},
		{"produce acks -1", "produce", request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1"],"acks":-1}`, false, nil}, 200, "Produce orders values=1 acks=all fault=", ""},
		{"produce acks two", "produce", request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1"],"acks":"2"}`, false, nil}, 400, "", "error.acksInvalidRaw"},
		{"produce no values", "produce", request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":[]}`, false, nil}, 400, "", "error.valuesRequired"},
		{"produce no topic", "produce", request{"POST", "/api/produce", "/api/produce", `{"values":["x"]}`, false, nil}, 400, "", "error.topicRequired"},
		{"produce a lost ack", "produce", request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1"],"fault":"lose-ack"}`, false, nil}, 200, "Produce orders values=1 acks=all fault=lose-ack", ""},
		{"processor", "processor", request{"POST", "/api/processor/runs", "/api/processor/runs", `{"mode":"tx","input":"orders","output":"totals","group":"g","transactionalId":"app","crashAt":"O-2"}`, false, nil}, 200, "RunProcessor tx orders->totals crashAt=O-2", ""},
		{"processor without a group", "processor", request{"POST", "/api/processor/runs", "/api/processor/runs", `{"mode":"plain","input":"orders","output":"totals"}`, false, nil}, 400, "", "error.processorNeedsGroup"},
		{"begin", "step", request{"POST", step, "/api/transactions/app/begin", "", false, nil}, 200, "Begin dashboard app 0s", ""},
		{"send", "step", request{"POST", step, "/api/transactions/app/send", `{"topic":"orders","values":["a","b"]}`, false, nil}, 200, "Send dashboard app orders values=2", ""},
		{"send a field it does not take", "step", request{"POST", step, "/api/transactions/app/send", `{"topic":"orders","acks":"all"}`, false, nil}, 400, "", "error.unknownField"},
		{"commit", "step", request{"POST", step, "/api/transactions/app/commit", "", false, nil}, 200, "End dashboard app commit=true", ""},
		{"abort", "step", request{"POST", step, "/api/transactions/app/abort", "", false, nil}, 200, "End dashboard app commit=false", ""},
		{"crash", "step", request{"POST", step, "/api/transactions/app/crash", "", false, nil}, 200, "Crash dashboard app", ""},
		{"an unknown step", "step", request{"POST", step, "/api/transactions/app/pause", "", false, nil}, 404, "", "error.unknownTxnStep"},
		{"get", "get", request{"GET", "/api/transactions/{transactionalID}", "/api/transactions/app", "", false, nil}, 200, "Transaction app", ""},
		{"list", "list", request{"GET", "/api/transactions", "/api/transactions", "", false, nil}, 200, "Transactions []", ""},
		{"list ongoing", "list", request{"GET", "/api/transactions", "/api/transactions?state=Ongoing", "", false, nil}, 200, "Transactions [Ongoing]", ""},
		{"abort at an offset", "abort", request{"POST", abort, "/api/topics/orders/partitions/1/transactions/4/abort", "", false, nil}, 200, "AbortTransaction orders 1 4", ""},
		{"abort at no offset", "abort", request{"POST", abort, "/api/topics/orders/partitions/1/transactions/four/abort", "", false, nil}, 400, "", "error.offsetParam"},
		{"abort in no partition", "abort", request{"POST", abort, "/api/topics/orders/partitions/x/transactions/4/abort", "", false, nil}, 400, "", "error.partitionNotNumber"},
		{"terminate", "terminate", request{"POST", "/api/transactions/{transactionalID}/terminate", "/api/transactions/app/terminate", "", false, nil}, 200, "ForceTerminateTransaction app", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeWriter{}
			a := serve(t, handler[tt.handler](writes(f)), tt.req)
			if a.status != tt.status || a.code() != tt.code || f.String() != tt.call {
				t.Errorf("got %d %q (asked %q), want %d %q (asked %q): %s", a.status, a.code(), f.String(), tt.status, tt.code, tt.call, a.body)
			}
		})
	}
	// The lab's refusal comes back with its status and sentence.
	f := &fakeWriter{err: problem.New(problem.Conflict, "error.transactionNotOngoing", "id", "app")}
	if a := post(t, writes(f).TerminateTransaction, "/t/{transactionalID}", "/t/app", ""); a.status != 409 || a.code() != "error.transactionNotOngoing" {
		t.Errorf("terminate with none ongoing: got %d %s, want 409 error.transactionNotOngoing", a.status, a.body)
	}
}

// TestFaultActionsLimited: fault actions (a faulty produce, a processor
// run, a crash, an abort, a terminate) share the role's bucket; past its
// burst they answer 429 with Retry-After and ask the lab nothing, while
// a plain produce is never limited.
func TestFaultActionsLimited(t *testing.T) {
	t.Parallel()
	f := &fakeWriter{}
	s := writes(f)
	stopped := time.Unix(1000, 0) // the buckets refill with time: hold it still
	s.faults.now = func() time.Time { return stopped }
	faulty := request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1"],"fault":"double-send"}`, false, nil}
	for i := range faultBurst {
		if a := serve(t, s.Produce, faulty); a.status != 200 {
			t.Fatalf("fault action %d of the burst: got %d %s", i+1, a.status, a.body)
		}
	}
	asked := f.String()
	for _, tt := range []struct {
		name string
		h    http.HandlerFunc
		req  request
	}{
		{"produce", s.Produce, faulty},
		{"processor", s.RunProcessor, request{"POST", "/p", "/p", `{"mode":"plain","input":"a","output":"b","group":"g"}`, false, nil}},
		{"crash", s.TransactionStep, request{"POST", "/t/{transactionalID}/{step}", "/t/app/crash", "", false, nil}},
		{"abort", s.AbortTransaction, request{"POST", "/a/{topic}/{partition}/{start}", "/a/orders/0/3", "", false, nil}},
		{"terminate", s.TerminateTransaction, request{"POST", "/t/{transactionalID}", "/t/app", "", false, nil}},
	} {
		a := serve(t, tt.h, tt.req)
		if a.status != http.StatusTooManyRequests || a.code() != "error.faultRate" || a.header.Get("Retry-After") != "1" {
			t.Errorf("%s past the burst: got %d %s (Retry-After %q), want 429 error.faultRate", tt.name, a.status, a.body, a.header.Get("Retry-After"))
		}
	}
	if got := f.String(); got != asked {
		t.Errorf("past the burst the lab was asked %q more", got[len(asked):])
	}
	if a := serve(t, s.Produce, request{"POST", "/api/produce", "/api/produce", `{"topic":"orders","values":["O-1"]}`, false, nil}); a.status != 200 {
		t.Errorf("a produce without a fault past the burst: got %d %s, want 200", a.status, a.body)
	}
	// A student's bucket is their own.
	if a := serve(t, s.Produce, request{"POST", "/api/produce", "/api/produce", faulty.body, true, nil}); a.status != 200 {
		t.Errorf("a student's first fault action: got %d %s, want 200", a.status, a.body)
	}
}
