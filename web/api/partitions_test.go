package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// fakePartitions answers a partition's reads with what it is given,
// recording each call's arguments.
type fakePartitions struct {
	calls
	err     error // every call's answer when set
	records *inspect.RecordsPage
}

func (f *fakePartitions) Log(_ context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	f.add("Log %s %d from=%d limit=%d", topic, partition, from, limit)
	return &inspect.Log{Topic: topic, Partition: partition, Entries: []inspect.Entry{}}, f.err
}

func (f *fakePartitions) RecordsPage(_ context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) (*inspect.RecordsPage, error) {
	f.add("RecordsPage %s %d %s from=%d limit=%d", topic, partition, iso, from, limit)
	if f.records != nil {
		return f.records, f.err
	}
	return &inspect.RecordsPage{Records: []inspect.Record{}}, f.err
}

func (f *fakePartitions) History(_ context.Context, topic string, partition int32, from int) (live.History, error) {
	f.add("History %s %d from=%d", topic, partition, from)
	return live.History{Topic: topic, Partition: partition, Steps: []live.Step{}}, f.err
}

func (f *fakePartitions) Map(_ context.Context, topic string, partition int32, req inspect.MapRequest) (*inspect.PartitionMap, error) {
	f.add("Map %s %d from=%d to=%d buckets=%d", topic, partition, req.From, req.To, req.Buckets)
	return &inspect.PartitionMap{Topic: topic, Partition: partition}, f.err
}

func (f *fakePartitions) Jump(_ context.Context, topic string, partition int32, req inspect.JumpRequest) (*inspect.JumpResult, error) {
	f.add("Jump %s %d kind=%s from=%d to=%d backward=%t", topic, partition, req.Kind, req.From, req.To, req.Backward)
	return &inspect.JumpResult{Kind: req.Kind}, f.err
}

func (f *fakePartitions) Search(_ context.Context, topic string, partition int32, req inspect.SearchRequest) (*inspect.SearchResult, error) {
	f.add("Search %s %d q=%s in=%s path=%s match=%s from=%d to=%d limit=%d", topic, partition, req.Query, req.In, req.Path, req.Match, req.From, req.To, req.Limit)
	return &inspect.SearchResult{Topic: topic, Partition: partition}, f.err
}

func (f *fakePartitions) OffsetForTime(_ context.Context, topic string, partition int32, ms int64) (inspect.TimestampOffset, error) {
	f.add("OffsetForTime %s %d %d", topic, partition, ms)
	return inspect.TimestampOffset{Offset: 7, Timestamp: ms}, f.err
}

// TestPartitionReads: each read passes the path's partition and its
// query parameters to the lab, refusing a malformed one with its kind's
// sentence before the lab is asked.
func TestPartitionReads(t *testing.T) {
	t.Parallel()
	const base = "/api/topics/orders/partitions/0"
	s := func(f *fakePartitions) *Server { return New(Deps{Partitions: f}, nil, Options{}) }
	tests := []struct {
		route  string // the route after …/partitions/{partition}
		target string // the path and query after base
		status int
		call   string // what the lab was asked; "" for nothing
		code   string // the refusal's key
	}{
		{"/log", "/log", 200, fmt.Sprintf("Log orders 0 from=-1 limit=%d", inspect.DefaultLimit), ""},
		{"/log", "/log?from=5&limit=10", 200, "Log orders 0 from=5 limit=10", ""},
		{"/log", "/log?limit=99999999", 200, fmt.Sprintf("Log orders 0 from=-1 limit=%d", inspect.MaxLimit), ""},
		{"/log", "/log?from=-3", 400, "", "error.offsetParam"},
		{"/log", "/log?limit=0", 400, "", "error.countParam"},
		{"/records", "/records", 200, fmt.Sprintf("RecordsPage orders 0 read_committed from=-1 limit=%d", inspect.DefaultLimit), ""},
		{"/records", "/records?isolation=read_uncommitted&from=2&limit=3", 200, "RecordsPage orders 0 read_uncommitted from=2 limit=3", ""},
		{"/records", "/records?isolation=dirty", 400, "", "error.isolationInvalid"},
		{"/records", "/records?from=x", 400, "", "error.offsetParam"},
		{"/history", "/history", 200, "History orders 0 from=0", ""},
		{"/history", "/history?from=12", 200, "History orders 0 from=12", ""},
		{"/history", "/history?from=-1", 400, "", "error.numberParam"},
		{"/map", "/map?from=10&to=20&buckets=4", 200, "Map orders 0 from=10 to=20 buckets=4", ""},
		{"/map", "/map", 200, "Map orders 0 from=-1 to=-1 buckets=0", ""},
		{"/map", "/map?buckets=many", 400, "", "error.numberParam"},
		{"/map", "/map?to=-9", 400, "", "error.offsetParam"},
		{"/jump", "/jump?kind=abortMarker&from=3&backward=true", 200, "Jump orders 0 kind=abortMarker from=3 to=-1 backward=true", ""},
		{"/jump", "/jump?kind=gap&from=y", 400, "", "error.offsetParam"},
		{"/jump", "/jump?kind=tombstone&to=9&backward=true", 200, "Jump orders 0 kind=tombstone from=-1 to=9 backward=true", ""},
		{"/search", "/search?q=O-2&in=value&path=order.id&match=exact&from=1&to=9&limit=5", 200, "Search orders 0 q=O-2 in=value path=order.id match=exact from=1 to=9 limit=5", ""},
		{"/search", "/search?q=x&limit=-1", 400, "", "error.numberParam"},
		{"/search", "/search?q=x&from=z", 400, "", "error.offsetParam"},
		{"/offset", "/offset?timestamp=1700000000000", 200, "OffsetForTime orders 0 1700000000000", ""},
		{"/offset", "/offset?timestamp=soon", 400, "", "error.timestampParam"},
		{"/offset", "/offset", 400, "", "error.timestampParam"},
	}
	handlers := map[string]func(*Server) http.HandlerFunc{
		"/log": func(s *Server) http.HandlerFunc { return s.GetLog }, "/records": func(s *Server) http.HandlerFunc { return s.GetRecords },
		"/history": func(s *Server) http.HandlerFunc { return s.GetHistory }, "/map": func(s *Server) http.HandlerFunc { return s.GetMap },
		"/jump": func(s *Server) http.HandlerFunc { return s.GetJump }, "/search": func(s *Server) http.HandlerFunc { return s.GetSearch },
		"/offset": func(s *Server) http.HandlerFunc { return s.GetOffsetForTime },
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			f := &fakePartitions{}
			h := handlers[tt.route](s(f))
			a := get(t, h, "/api/topics/{topic}/partitions/{partition}"+tt.route, base+tt.target)
			if a.status != tt.status || a.code() != tt.code {
				t.Errorf("got %d %q, want %d %q (%s)", a.status, a.code(), tt.status, tt.code, a.body)
			}
			if got := f.String(); got != tt.call {
				t.Errorf("the lab was asked %q, want %q", got, tt.call)
			}
		})
	}
	// Every read refuses a partition that is not a number, asking nothing.
	for route, h := range handlers {
		f := &fakePartitions{}
		a := get(t, h(s(f)), "/api/topics/{topic}/partitions/{partition}"+route, "/api/topics/orders/partitions/first"+route+"?timestamp=1")
		if a.status != 400 || a.code() != "error.partitionNotNumber" || f.String() != "" {
			t.Errorf("%s of partition first: got %d %q and %q asked, want 400 error.partitionNotNumber and nothing asked", route, a.status, a.code(), f.String())
		}
	}
	// And answers the lab's refusal with its status and sentence.
	for route, h := range handlers {
		f := &fakePartitions{err: problem.New(problem.NotFound, "error.unknownTopic", "topic", "orders")}
		a := get(t, h(s(f)), "/api/topics/{topic}/partitions/{partition}"+route, base+route+"?timestamp=1")
		if a.status != 404 || a.code() != "error.unknownTopic" {
			t.Errorf("%s of an unknown topic: got %d %q, want 404 error.unknownTopic", route, a.status, a.code())
		}
	}
}

// TestGetRecordsAnswer: the records answer names the partition and the
// isolation level, and says truncated and next only when the budget cut
// the window.
func TestGetRecordsAnswer(t *testing.T) {
	t.Parallel()
	next := int64(40)
	tests := []struct {
		name string
		page inspect.RecordsPage
		want string
	}{
		{"whole", inspect.RecordsPage{Records: []inspect.Record{}},
			`{"isolation":"read_committed","partition":2,"records":[],"topic":"orders"}`},
		{"cut", inspect.RecordsPage{Records: []inspect.Record{}, Truncated: true, Next: &next},
			`{"isolation":"read_committed","next":40,"partition":2,"records":[],"topic":"orders","truncated":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakePartitions{records: &tt.page}
			a := get(t, New(Deps{Partitions: f}, nil, Options{}).GetRecords, "/p/{topic}/{partition}", "/p/orders/2")
			if got := a.body; a.status != 200 || got != tt.want {
				t.Errorf("got %d %s, want 200 %s", a.status, got, tt.want)
			}
		})
	}
}
