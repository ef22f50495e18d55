package web

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/internal/uikey"
)

// apiError is an error with the status and sentence the client sees, and
// optionally the catalogue key of that sentence and its placeholders'
// values (see internal/uikey).
type apiError struct {
	status int
	msg    string
	key    string
	args   map[string]string
}

func (e *apiError) Error() string { return e.msg }

// MessageKey names the catalogue sentence (see internal/uikey).
func (e *apiError) MessageKey() (string, map[string]string) { return e.key, e.args }

func badRequest(msg, key string, kv ...string) error {
	return &apiError{status: http.StatusBadRequest, msg: msg, key: key, args: kvArgs(kv)}
}

// keyedError is an apiError of any status with a catalogue key.
func keyedError(status int, msg, key string, kv ...string) error {
	return &apiError{status: status, msg: msg, key: key, args: kvArgs(kv)}
}

func kvArgs(kv []string) map[string]string {
	if len(kv) == 0 {
		return nil
	}
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// errorBody is the API's error answer: the English sentence, as the API
// contract promises, and, when the sentence is in the UI catalogue
// (web/static/i18n, "error." keys), its key and placeholders' values, so
// the page can show it in the viewer's language.
type errorBody struct {
	Error string            `json:"error"`
	Code  string            `json:"code,omitempty"`
	Args  map[string]string `json:"args,omitempty"`
}

// writeErrorBody answers status with the sentence msg, keyed.
func writeErrorBody(w http.ResponseWriter, status int, msg, key string, kv ...string) {
	writeJSON(w, status, errorBody{Error: msg, Code: key, Args: kvArgs(kv)})
}

// messageKey is the catalogue key and args err names, if any.
func messageKey(err error) (string, map[string]string) {
	var k uikey.Keyed
	if errors.As(err, &k) {
		return k.MessageKey()
	}
	return "", nil
}

// statusOf maps domain errors to HTTP statuses, in one place.
func statusOf(err error) int {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae.status
	case errors.Is(err, cluster.ErrInvalid), errors.Is(err, producer.ErrInvalidConfig):
		return http.StatusBadRequest
	case errors.Is(err, cluster.ErrUnknownTopic), errors.Is(err, inspect.ErrUnknownTopic),
		errors.Is(err, inspect.ErrUnknownPartition),
		errors.Is(err, cluster.ErrUnknownGroup), errors.Is(err, cluster.ErrUnknownTransaction),
		errors.Is(err, lessons.ErrUnknownLesson), errors.Is(err, lessons.ErrUnknownRun):
		return http.StatusNotFound
	case errors.Is(err, cluster.ErrTopicExists), errors.Is(err, producer.ErrNoSession), errors.Is(err, producer.ErrSessionState),
		errors.Is(err, producer.ErrFenced),
		errors.Is(err, lessons.ErrUnavailable), errors.Is(err, lessons.ErrBusy), errors.Is(err, lessons.ErrOver):
		return http.StatusConflict
	case cluster.IsUnavailable(err):
		return http.StatusServiceUnavailable
	default:
		return http.StatusBadGateway
	}
}

// writeError answers with {"error": sentence}, plus "code" and "args"
// when the error names its sentence in the UI catalogue. Client errors
// carry the domain's sentence; broker failures are logged in full and
// summarised.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	msg := err.Error()
	key, args := messageKey(err)
	switch status {
	case http.StatusServiceUnavailable:
		s.log.Warn("broker unavailable", "path", r.URL.Path, "err", err)
		msg = "The Kafka broker is not reachable right now; the dashboard keeps trying. (" + err.Error() + ")"
		key, args = "error.brokerUnavailable", map[string]string{"detail": err.Error()}
	case http.StatusBadGateway:
		s.log.Error("request failed", "path", r.URL.Path, "err", err)
		msg = "Kafka answered with an error: " + err.Error()
		key, args = "error.kafka", map[string]string{"detail": err.Error()}
	}
	writeJSON(w, status, errorBody{Error: msg, Code: key, Args: args})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		slog.Default().Debug("write response", "err", err)
	}
}
