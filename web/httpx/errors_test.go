package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// TestErrorCodes: the API's error answers keep the English sentence in
// "error" and name it in the UI catalogue as "code" with "args", for
// representative errors of the producer, the transaction steps, the
// cluster and the web layer. The English catalogue sentence, filled in,
// is the "error" sentence itself; the Korean one exists and is filled.
func TestErrorCodes(t *testing.T) {
	t.Parallel()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	yes := true
	_, unknownTopic := c.Topic(ctx, "no-such-topic")
	sessions := producer.NewSessions(producer.Connection{Opts: c.ClientOpts()}, producer.SessionLimits{})
	t.Cleanup(sessions.Close)
	_, noSession := sessions.Send(ctx, "errors-tx", producer.Request{Topic: "t", Values: producer.Values("v")})
	if _, err := sessions.Begin(ctx, "errors-tx"); err != nil {
		t.Fatal(err)
	}
	if _, err := sessions.End(ctx, "errors-tx", false); err != nil {
		t.Fatal(err)
	}
	_, sendBeforeBegin := sessions.Send(ctx, "errors-tx", producer.Request{Topic: "t", Values: producer.Values("v")})

	log := slog.New(slog.DiscardHandler)
	for _, tt := range []struct {
		name   string
		err    error
		status int
		code   string
		args   map[string]string
	}{
		{"invalid acks", producer.Profile{Acks: "2"}.Validate(), http.StatusBadRequest, "error.acksInvalid", map[string]string{"acks": "2"}},
		{"idempotence with acks=1", producer.Profile{Acks: producer.AcksLeader, Idempotent: &yes}.Validate(), http.StatusBadRequest, "error.idempotenceNeedsAcksAll", map[string]string{"acks": "1"}},
		{"unknown topic", unknownTopic, http.StatusNotFound, "error.unknownTopic", map[string]string{"topic": "no-such-topic"}},
		{"send without a session", noSession, http.StatusConflict, "error.sessionMissing", map[string]string{"id": "errors-tx"}},
		{"send before begin", sendBeforeBegin, http.StatusConflict, "error.txnSendBeforeBegin", nil},
		{"web bad request", problem.New(problem.Invalid, "error.brokerIdNotNumber", "id", "x"), http.StatusBadRequest, "error.brokerIdNotNumber", map[string]string{"id": "x"}},
		{"broker unreachable", problem.BrokerUnreachable(errors.New("dial tcp 127.0.0.1:1: connection refused")), http.StatusServiceUnavailable, "error.brokerUnavailable", map[string]string{"detail": "dial tcp 127.0.0.1:1: connection refused"}},
		{"a plain network error is the broker unreachable", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, http.StatusServiceUnavailable, "error.brokerUnavailable", map[string]string{"detail": "dial tcp: connection refused"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatal("no error")
			}
			rec := httptest.NewRecorder()
			WriteError(log, rec, httptest.NewRequest(http.MethodPost, "/api/test", nil), tt.err)
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			var body struct {
				Error string            `json:"error"`
				Code  string            `json:"code"`
				Args  map[string]string `json:"args"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Code != tt.code {
				t.Errorf("code %q, want %q (body %s)", body.Code, tt.code, rec.Body)
			}
			if len(body.Args) != len(tt.args) {
				t.Errorf("args %v, want %v", body.Args, tt.args)
			}
			for k, v := range tt.args {
				if body.Args[k] != v {
					t.Errorf("args[%q] = %q, want %q", k, body.Args[k], v)
				}
			}
			if body.Error != tt.err.Error() && tt.status < 500 {
				t.Errorf("error %q, want the domain's sentence %q", body.Error, tt.err.Error())
			}
			if !catalog.Has(body.Code) {
				t.Fatalf("code %q is not in the catalogue", body.Code)
			}
			if got := catalog.Text(catalog.English, body.Code, body.Args); got != body.Error {
				t.Errorf("en.json's %q filled in is\n%q, the API's sentence is\n%q", body.Code, got, body.Error)
			}
			if got := catalog.Text(catalog.Korean, body.Code, body.Args); strings.Contains(got, "{") || got == body.Error {
				t.Errorf("ko.json's %q filled in is %q", body.Code, got)
			}
		})
	}
}
