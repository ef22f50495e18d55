package api

import (
	"context"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// PartitionsLab is what a partition's reads call: its window, what a
// consumer receives, its recorded story and the explorer's scans;
// *lab.Lab is one.
type PartitionsLab interface {
	Log(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error)
	RecordsPage(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) (*inspect.RecordsPage, error)
	History(ctx context.Context, topic string, partition int32, from int) (live.History, error)
	Map(ctx context.Context, topic string, partition int32, req inspect.MapRequest) (*inspect.PartitionMap, error)
	Jump(ctx context.Context, topic string, partition int32, req inspect.JumpRequest) (*inspect.JumpResult, error)
	Search(ctx context.Context, topic string, partition int32, req inspect.SearchRequest) (*inspect.SearchResult, error)
	OffsetForTime(ctx context.Context, topic string, partition int32, ms int64) (inspect.TimestampOffset, error)
}

// GetLog is GET /api/topics/{topic}/partitions/{p}/log?from=&limit=: the
// partition offset by offset.
func (s *Server) GetLog(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, limit, err := paramsOf(r).window()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	l, err := s.deps.Partitions.Log(r.Context(), topic, partition, from, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, l)
}

// GetRecords is GET /api/topics/{topic}/partitions/{p}/records: what a
// consumer at the isolation level receives.
func (s *Server) GetRecords(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p := paramsOf(r)
	iso, err := p.isolation("isolation")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, limit, err := p.window()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, err := s.deps.Partitions.RecordsPage(r.Context(), topic, partition, iso, from, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	answer := map[string]any{"topic": topic, "partition": partition, "isolation": iso, "records": page.Records}
	if page.Truncated {
		answer["truncated"], answer["next"] = true, page.Next
	}
	httpx.WriteJSON(w, http.StatusOK, answer)
}

// GetHistory is GET …/history?from=N: the partition's recorded story from
// step N on (all of it without from), for the page's replay.
func (s *Server) GetHistory(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, err := paramsOf(r).number("from", 0) // a step of the story, not an offset
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h, err := s.deps.Partitions.History(r.Context(), topic, partition, from)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, h)
}

// GetMap is GET …/map?from=&to=&buckets=N.
func (s *Server) GetMap(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p := paramsOf(r)
	from, to, err := p.offsetRange()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	buckets, err := p.number("buckets", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.deps.Partitions.Map(r.Context(), topic, partition, inspect.MapRequest{From: from, To: to, Buckets: buckets})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, m)
}

// GetJump is GET …/jump?kind=&from=&to=&backward=true: the next (or
// previous) offset of a kind (an inspect.JumpKind: plain, committed,
// aborted, open, marker, commitMarker, abortMarker, gap, gapCompacted,
// gapBeforeLogStart, gapUnknown or tombstone); an unknown kind is a 400
// with error.jumpKindUnknown.
func (s *Server) GetJump(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p := paramsOf(r)
	from, to, err := p.offsetRange()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	j, err := s.deps.Partitions.Jump(r.Context(), topic, partition, inspect.JumpRequest{
		Kind: inspect.JumpKind(p.text("kind")), From: from, To: to, Backward: p.flag("backward"),
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, j)
}

// GetSearch is GET …/search?q=&in=key|value|header&path=&match=&from=&to=&limit=.
func (s *Server) GetSearch(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
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
	res, err := s.deps.Partitions.Search(r.Context(), topic, partition, inspect.SearchRequest{
		Query: p.text("q"), In: p.text("in"), Path: p.text("path"), Match: p.text("match"), From: from, To: to, Limit: limit,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, res)
}

// GetOffsetForTime is GET …/offset?timestamp=MS.
func (s *Server) GetOffsetForTime(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ms, err := paramsOf(r).timestamp("timestamp")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	o, err := s.deps.Partitions.OffsetForTime(r.Context(), topic, partition, ms)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, o)
}
