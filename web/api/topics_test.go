package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// fakeTopics holds topics by name, in order; Kafka's own topics are the
// internal ones.
type fakeTopics struct {
	calls
	topics []cluster.TopicInfo
	err    error
}

func (f *fakeTopics) Topics(context.Context) ([]cluster.TopicInfo, error) {
	f.add("Topics")
	var out []cluster.TopicInfo
	for _, t := range f.topics {
		if !t.Internal {
			out = append(out, t)
		}
	}
	return out, f.err
}

func (f *fakeTopics) AllTopics(context.Context) ([]cluster.TopicInfo, error) {
	f.add("AllTopics")
	return f.topics, f.err
}

func (f *fakeTopics) Topic(_ context.Context, name string) (cluster.TopicInfo, error) {
	f.add("Topic %s", name)
	for _, t := range f.topics {
		if t.Name == name {
			return t, nil
		}
	}
	return cluster.TopicInfo{}, problem.New(problem.NotFound, "error.unknownTopic", "topic", name)
}

func (f *fakeTopics) TopicDetail(_ context.Context, name string) (lab.TopicDetail, error) {
	f.add("TopicDetail %s", name)
	t, err := f.Topic(context.Background(), name)
	return lab.TopicDetail{TopicInfo: t}, err
}

func (f *fakeTopics) CreateTopic(_ context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error) {
	f.add("CreateTopic %s %d", spec.Name, spec.Partitions)
	return cluster.TopicInfo{Name: spec.Name, Partitions: make([]cluster.PartitionInfo, spec.Partitions)}, f.err
}

func (f *fakeTopics) DeleteTopic(_ context.Context, name string) error {
	f.add("DeleteTopic %s", name)
	return f.err
}

func threeTopics() []cluster.TopicInfo {
	return []cluster.TopicInfo{{Name: "__consumer_offsets", Internal: true}, {Name: "a"}, {Name: "b"}, {Name: "c"}}
}

// TestListTopics: the list, a page of it with the offset of the next
// page (null at the end), Kafka's own topics only when asked.
func TestListTopics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query  string
		status int
		names  string // the topics answered, then total and next
		call   string
		code   string
	}{
		{"", 200, `[a b c] 3 <nil>`, "Topics", ""},
		{"?limit=2", 200, `[a b] 3 2`, "Topics", ""},
		{"?offset=2&limit=2", 200, `[c] 3 <nil>`, "Topics", ""},
		{"?offset=9", 200, `[] 3 <nil>`, "Topics", ""},
		{"?limit=0", 200, `[] 3 0`, "Topics", ""},
		{"?internal=true&limit=1", 200, `[__consumer_offsets] 4 1`, "AllTopics", ""},
		{"?offset=-1", 400, "", "Topics", "error.numberParam"},
		{"?limit=x", 400, "", "Topics", "error.numberParam"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			f := &fakeTopics{topics: threeTopics()}
			a := get(t, New(Deps{Topics: f}, nil, Options{}).ListTopics, "/api/topics", "/api/topics"+tt.query)
			if a.status != tt.status || a.code() != tt.code || f.String() != tt.call {
				t.Fatalf("got %d %q (asked %q), want %d %q (asked %q): %s", a.status, a.code(), f.String(), tt.status, tt.code, tt.call, a.body)
			}
			if tt.status != 200 {
				return
			}
			var got struct {
				Topics []struct{ Name string }
				Total  int
				Next   *int
			}
			decode(t, a.body, &got)
			names := []string{}
			for _, t := range got.Topics {
				names = append(names, t.Name)
			}
			next := "<nil>"
			if got.Next != nil {
				next = itoa(*got.Next)
			}
			if s := sprint(names) + " " + itoa(got.Total) + " " + next; s != tt.names {
				t.Errorf("got %s, want %s", s, tt.names)
			}
		})
	}
	f := &fakeTopics{err: problem.New(problem.Unavailable, "error.brokerUnavailable")}
	if a := get(t, New(Deps{Topics: f}, nil, Options{}).ListTopics, "/api/topics", "/api/topics"); a.status != 503 {
		t.Errorf("brokers unreachable: got %d %s, want 503", a.status, a.body)
	}
}

// TestTopicHandlers: one topic (brief or in detail), creating one (the
// teacher's last write), deleting one only when its name is repeated.
func TestTopicHandlers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		req    request
		status int
		call   string
		code   string
	}{
		{"detail", request{method: "GET", pattern: "/api/topics/{topic}", target: "/api/topics/a"}, 200, "TopicDetail a\nTopic a", ""},
		{"brief", request{method: "GET", pattern: "/api/topics/{topic}", target: "/api/topics/a?brief=true"}, 200, "Topic a", ""},
		{"unknown", request{method: "GET", pattern: "/api/topics/{topic}", target: "/api/topics/zz?brief=true"}, 404, "Topic zz", "error.unknownTopic"},
		{"unknown in detail", request{method: "GET", pattern: "/api/topics/{topic}", target: "/api/topics/zz"}, 404, "TopicDetail zz\nTopic zz", "error.unknownTopic"},
		{"create", request{method: "POST", pattern: "/api/topics", target: "/api/topics", body: `{"name":"d","partitions":2}`}, 201, "CreateTopic d 2", ""},
		{"create with a field it does not take", request{method: "POST", pattern: "/api/topics", target: "/api/topics", body: `{"name":"d","colour":"red"}`}, 400, "", "error.unknownField"},
		{"delete", request{method: "DELETE", pattern: "/api/topics/{topic}", target: "/api/topics/a?confirm=a"}, 204, "DeleteTopic a", ""},
		{"delete unconfirmed", request{method: "DELETE", pattern: "/api/topics/{topic}", target: "/api/topics/a"}, 400, "", "error.deleteConfirm"},
		{"delete another's name", request{method: "DELETE", pattern: "/api/topics/{topic}", target: "/api/topics/a?confirm=b"}, 400, "", "error.deleteConfirm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeTopics{topics: threeTopics()}
			s := New(Deps{Topics: f}, nil, Options{})
			h := map[string]http.HandlerFunc{"GET": s.GetTopic, "POST": s.CreateTopic, "DELETE": s.DeleteTopic}[tt.req.method]
			a := serve(t, h, tt.req)
			if a.status != tt.status || a.code() != tt.code || f.String() != tt.call {
				t.Errorf("got %d %q (asked %q), want %d %q (asked %q): %s", a.status, a.code(), f.String(), tt.status, tt.code, tt.call, a.body)
			}
		})
	}
	// A topic the teacher creates is what / opens next.
	s := New(Deps{Topics: &fakeTopics{}}, nil, Options{})
	post(t, s.CreateTopic, "/api/topics", "/api/topics", `{"name":"fresh","partitions":1}`)
	if topic, partition, ok := s.TeacherWrote(); topic != "fresh" || partition != 0 || !ok {
		t.Errorf("TeacherWrote() = %q, %d, %t; want fresh, 0, true", topic, partition, ok)
	}
}
