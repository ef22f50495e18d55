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
)

// apiError is an error with the status and sentence the client sees.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(msg string) error { return &apiError{status: http.StatusBadRequest, msg: msg} }

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

// writeError answers with {"error": sentence}. Client errors carry the
// domain's sentence; broker failures are logged in full and summarised.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	msg := err.Error()
	switch status {
	case http.StatusServiceUnavailable:
		s.log.Warn("broker unavailable", "path", r.URL.Path, "err", err)
		msg = "The Kafka broker is not reachable right now; the dashboard keeps trying. (" + err.Error() + ")"
	case http.StatusBadGateway:
		s.log.Error("request failed", "path", r.URL.Path, "err", err)
		msg = "Kafka answered with an error: " + err.Error()
	}
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		slog.Default().Debug("write response", "err", err)
	}
}
