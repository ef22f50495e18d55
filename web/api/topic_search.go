package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// TopicSearchLab is what the topic-wide search and seek call; *lab.Lab is
// one.
type TopicSearchLab interface {
	SearchTopic(ctx context.Context, topic string, req lab.TopicSearchRequest) (*lab.TopicSearchResult, error)
	TopicOffsetsForTime(ctx context.Context, topic string, ms int64, workers func() (func(), bool)) ([]lab.PartitionTimeOffset, error)
}

// ndjson is the media type of a streamed answer: one JSON object a line.
const ndjson = "application/x-ndjson"

// GetTopicSearch is GET /api/topics/{t}/search?q=&in=&path=&match=&from=&to=&limit=&next=:
// the partition's search over every partition of the topic, several at
// once as the scan limits allow, each match with its partition. With
// Accept: application/x-ndjson the answer is streamed: {"progress":…}
// lines as partitions move on, then {"result":…} (or {"error":…}); a
// client that closes the connection stops the search.
func (s *Server) GetTopicSearch(w http.ResponseWriter, r *http.Request) {
	topic := httpx.PathParam(r, "topic")
	p := paramsOf(r)
	from, to, err := p.offsetRange()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	limit, err := p.number("limit", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	resume, err := lab.ParseResume(q.Get("next"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req := lab.TopicSearchRequest{
		SearchRequest: inspect.SearchRequest{Query: q.Get("q"), In: q.Get("in"), Path: q.Get("path"), Match: q.Get("match"), From: from, To: to, Limit: limit},
		Resume:        resume,
		Workers:       s.scanWorkers(r),
	}
	if !strings.Contains(r.Header.Get("Accept"), ndjson) {
		res, err := s.deps.TopicSearch.SearchTopic(r.Context(), topic, req)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, res)
		return
	}
	line := streamLines(w)
	req.Progress = func(p lab.TopicSearchProgress) { line(map[string]any{"progress": p}) }
	res, err := s.deps.TopicSearch.SearchTopic(r.Context(), topic, req)
	if err != nil {
		if r.Context().Err() != nil {
			return // stopped: nobody to tell
		}
		p := problem.As(err)
		if p.Kind == problem.Kafka || p.Kind == problem.Internal || p.Kind == problem.Unavailable {
			s.log.Warn("topic search failed", "path", r.URL.Path, "err", err)
		}
		line(map[string]any{"error": map[string]any{"error": p.Error(), "code": p.Message.Key, "args": p.Message.Args, "status": httpx.StatusOf(p.Kind)}})
		return
	}
	line(map[string]any{"result": res})
}

// GetTopicOffsetsForTime is GET /api/topics/{t}/offsets?timestamp=MS:
// every partition's first offset at or after the time, as a consumer
// seeking by time finds it.
func (s *Server) GetTopicOffsetsForTime(w http.ResponseWriter, r *http.Request) {
	ms, err := paramsOf(r).timestamp("timestamp")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	offsets, err := s.deps.TopicSearch.TopicOffsetsForTime(r.Context(), httpx.PathParam(r, "topic"), ms, s.scanWorkers(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"timestamp": ms, "partitions": offsets})
}

// scanWorkers lends r more scan turns when the router gave the API a
// way to (Options.ScanWorkers), else none.
func (s *Server) scanWorkers(r *http.Request) func() (func(), bool) {
	if s.access.ScanWorkers == nil {
		return nil
	}
	return s.access.ScanWorkers(r)
}

// lineTimeout is how long a client has to read each line of a streamed
// answer: the deadline moves on with every line, so a long search that
// keeps telling its progress is not cut, a client that stopped reading is.
const lineTimeout = 20 * time.Second

// streamLines starts a streamed answer and returns the function that
// writes one line of it and flushes, one writer at a time.
func streamLines(w http.ResponseWriter) func(v any) {
	w.Header().Set("Content-Type", ndjson+"; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = rc.SetWriteDeadline(time.Now().Add(lineTimeout))
		if enc.Encode(v) == nil {
			_ = rc.Flush()
		}
	}
}
