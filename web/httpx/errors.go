package httpx

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// statusOf is the one table from a problem's kind to an HTTP status.
var statusOf = map[problem.Kind]int{
	problem.Invalid:     http.StatusBadRequest,
	problem.NotFound:    http.StatusNotFound,
	problem.Conflict:    http.StatusConflict,
	problem.Forbidden:   http.StatusForbidden,
	problem.TooLarge:    http.StatusRequestEntityTooLarge,
	problem.Unsupported: http.StatusUnsupportedMediaType,
	problem.TooFast:     http.StatusTooManyRequests,
	problem.Busy:        http.StatusServiceUnavailable,
	problem.Full:        http.StatusInsufficientStorage,
	problem.Unavailable: http.StatusServiceUnavailable,
	problem.Kafka:       http.StatusBadGateway,
	problem.Internal:    http.StatusInternalServerError,
}

// StatusOf is the HTTP status of a problem's kind; 500 for a kind the
// table does not know.
func StatusOf(kind problem.Kind) int {
	if status, ok := statusOf[kind]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// ErrorBody is the API's error answer: the English sentence in "error", as
// the API contract promises, and its catalogue key and placeholders'
// values in "code" and "args", so the page can show it in the viewer's
// language. A hint, when there is one, says how to get there another way.
type ErrorBody struct {
	Error    string       `json:"error"`
	Code     string       `json:"code,omitempty"`
	Args     catalog.Args `json:"args,omitempty"`
	Hint     string       `json:"hint,omitempty"`
	HintCode string       `json:"hintCode,omitempty"`
	HintArgs catalog.Args `json:"hintArgs,omitempty"`
}

// WriteError answers with the error's status and sentence. Failures of the
// brokers and of the server itself are logged in full for the operator.
func WriteError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	p := problem.As(err)
	status := StatusOf(p.Kind)
	switch p.Kind {
	case problem.Unavailable:
		log.Warn("broker unavailable", "path", r.URL.Path, "err", err)
	case problem.Kafka, problem.Internal:
		log.Error("request failed", "path", r.URL.Path, "err", err)
	}
	if p.Kind == problem.Busy || p.Kind == problem.TooFast {
		w.Header().Set("Retry-After", "2")
	}
	WriteProblem(w, status, p)
}

// WriteProblem answers status with p's sentence.
func WriteProblem(w http.ResponseWriter, status int, p *problem.Error) {
	body := ErrorBody{Error: p.Error(), Code: p.Message.Key, Args: p.Message.Args}
	if !p.Hint.IsZero() {
		body.Hint, body.HintCode, body.HintArgs = p.Hint.String(), p.Hint.Key, p.Hint.Args
	}
	WriteJSON(w, status, body)
}

// Refuse answers the error of kind with the catalogue sentence key, for the
// refusals of the web layer itself (middleware, limits).
func Refuse(w http.ResponseWriter, kind problem.Kind, key string, kv ...string) {
	WriteProblem(w, StatusOf(kind), problem.New(kind, key, kv...))
}

// WriteJSON answers status with v as JSON, uncached.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // a client that left cannot be told
}
