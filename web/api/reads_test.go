package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// fakeReader answers the cluster's, the groups', a partition's producers'
// and the brokers' reads, recording each call.
type fakeReader struct {
	calls
	err     error
	events  []live.Event
	brokers lab.BrokersStatus
}

func (f *fakeReader) Status(context.Context) lab.ClusterStatus {
	f.add("Status")
	return lab.ClusterStatus{Mode: cluster.Embedded, Brokers: []string{"127.0.0.1:9092"}, Reachable: true}
}

func (f *fakeReader) Events(n int) []live.Event {
	f.add("Events %d", n)
	return f.events
}

func (f *fakeReader) Groups(context.Context) ([]cluster.GroupSummary, error) {
	f.add("Groups")
	return []cluster.GroupSummary{{Group: "totals", State: "Empty"}}, f.err
}

func (f *fakeReader) GroupDetail(_ context.Context, name string) (cluster.GroupDetail, error) {
	f.add("GroupDetail %s", name)
	return cluster.GroupDetail{Group: name, State: "Empty"}, f.err
}

func (f *fakeReader) Producers(_ context.Context, topic string, partition int32) (cluster.PartitionProducers, error) {
	f.add("Producers %s %d", topic, partition)
	return cluster.PartitionProducers{Topic: topic, Partition: partition}, f.err
}

func (f *fakeReader) HeldLSO(_ context.Context, topic string, partition int32) (cluster.LSOHold, error) {
	f.add("HeldLSO %s %d", topic, partition)
	return cluster.LSOHold{Topic: topic, Partition: partition, LastStableOffset: 3, HighWatermark: 8}, f.err
}

func (f *fakeReader) BrokerStatus(context.Context) (lab.BrokersStatus, error) {
	f.add("BrokerStatus")
	return f.brokers, f.err
}

func (f *fakeReader) StopBroker(_ context.Context, id int) error {
	f.add("StopBroker %d", id)
	return f.err
}

func (f *fakeReader) StartBroker(_ context.Context, id int) error {
	f.add("StartBroker %d", id)
	return f.err
}

// reads is a server whose reading resources are f.
func reads(f *fakeReader) *Server {
	return New(Deps{Cluster: f, Groups: f, Producers: f, Brokers: f}, nil, Options{})
}

// TestReads: each read asks its use case once, with the path's names,
// and answers what it read.
func TestReads(t *testing.T) {
	t.Parallel()
	handler := map[string]func(*Server) http.HandlerFunc{
		"healthz": func(s *Server) http.HandlerFunc { return s.Healthz }, "cluster": func(s *Server) http.HandlerFunc { return s.GetCluster },
		"events": func(s *Server) http.HandlerFunc { return s.GetEvents }, "groups": func(s *Server) http.HandlerFunc { return s.ListGroups },
		"group": func(s *Server) http.HandlerFunc { return s.GetGroup }, "producers": func(s *Server) http.HandlerFunc { return s.GetProducers },
		"lso": func(s *Server) http.HandlerFunc { return s.GetHeldLSO }, "brokers": func(s *Server) http.HandlerFunc { return s.GetBrokers },
	}
	const part = "/api/topics/{topic}/partitions/{partition}"
	tests := []struct {
		handler, pattern, target string
		status                   int
		call                     string
		body                     string // the answer, when the test pins it
		code                     string
	}{
		{"healthz", "/healthz", "/healthz", 200, "", `{"status":"ok"}`, ""},
		{"cluster", "/api/cluster", "/api/cluster", 200, "Status", "", ""},
		{"events", "/api/events", "/api/events", 200, "Events 200", `{"events":[]}`, ""},
		{"events", "/api/events", "/api/events?limit=5", 200, "Events 5", `{"events":[]}`, ""},
		{"events", "/api/events", "/api/events?limit=5000", 200, "Events 200", `{"events":[]}`, ""},
		{"events", "/api/events", "/api/events?limit=0", 400, "", "", "error.countParam"},
		{"groups", "/api/groups", "/api/groups", 200, "Groups", "", ""},
		{"group", "/api/groups/{group}", "/api/groups/g%2F..%2Fx", 200, "GroupDetail g/../x", "", ""},
		{"producers", part + "/producers", "/api/topics/orders/partitions/2/producers", 200, "Producers orders 2", "", ""},
		{"producers", part + "/producers", "/api/topics/orders/partitions/-2/producers", 400, "", "", "error.partitionNotNumber"},
		{"lso", part + "/lso", "/api/topics/orders/partitions/0/lso", 200, "HeldLSO orders 0", "", ""},
		{"lso", part + "/lso", "/api/topics/orders/partitions/x/lso", 400, "", "", "error.partitionNotNumber"},
		{"brokers", "/api/brokers", "/api/brokers", 200, "BrokerStatus", `{"managed":false,"nodes":null}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			f := &fakeReader{}
			a := get(t, handler[tt.handler](reads(f)), tt.pattern, tt.target)
			if a.status != tt.status || a.code() != tt.code || f.String() != tt.call {
				t.Errorf("got %d %q (asked %q), want %d %q (asked %q): %s", a.status, a.code(), f.String(), tt.status, tt.code, tt.call, a.body)
			}
			if tt.body != "" && a.body != tt.body {
				t.Errorf("got %s, want %s", a.body, tt.body)
			}
		})
	}
	// A read the brokers refuse answers with the refusal's status.
	for _, name := range []string{"groups", "group", "producers", "lso", "brokers"} {
		f := &fakeReader{err: problem.New(problem.Unavailable, "error.brokerUnavailable")}
		a := get(t, handler[name](reads(f)), "/x/{topic}/{partition}/{group}", "/x/orders/0/g")
		if a.status != 503 || a.code() != "error.brokerUnavailable" {
			t.Errorf("%s with the brokers unreachable: got %d %s, want 503", name, a.status, a.body)
		}
	}
}

// TestBrokerAction: stop and start name a node by number and answer the
// brokers after; an unknown action or a name is refused before the lab is
// asked; a cluster the server does not run says how to stop a node by
// hand.
func TestBrokerAction(t *testing.T) {
	t.Parallel()
	const route = "/api/brokers/{id}/{action}"
	tests := []struct {
		target string
		status int
		call   string
		code   string
	}{
		{"/api/brokers/2/stop", 200, "StopBroker 2\nBrokerStatus", ""},
		{"/api/brokers/2/start", 200, "StartBroker 2\nBrokerStatus", ""},
		{"/api/brokers/2/restart", 404, "", "error.brokerActionUnknown"},
		{"/api/brokers/two/stop", 400, "", "error.brokerIdNotNumber"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			f := &fakeReader{brokers: lab.BrokersStatus{Managed: true, Nodes: []localkafka.Node{{ID: 2, Address: "127.0.0.1:1"}}}}
			a := post(t, reads(f).BrokerAction, route, tt.target, "")
			if a.status != tt.status || a.code() != tt.code || f.String() != tt.call {
				t.Errorf("got %d %q (asked %q), want %d %q (asked %q): %s", a.status, a.code(), f.String(), tt.status, tt.code, tt.call, a.body)
			}
		})
	}
	f := &fakeReader{brokers: lab.BrokersStatus{Hint: catalog.M("brokers.hint.compose", "services", "kafka-2")}}
	a := get(t, reads(f).GetBrokers, "/api/brokers", "/api/brokers")
	var got brokersView
	decode(t, a.body, &got)
	if got.HintCode != "brokers.hint.compose" || got.HintArgs["services"] != "kafka-2" || got.Hint == "" {
		t.Errorf("a cluster the server does not run: got %s, want its hint with code and args", a.body)
	}
	f = &fakeReader{err: problem.New(problem.Unavailable, "error.brokerStopFailed")}
	if a := post(t, reads(f).BrokerAction, route, "/api/brokers/1/stop", ""); a.status != 503 || f.String() != "StopBroker 1" {
		t.Errorf("stopping a node the server does not run: got %d %s (asked %q), want 503 from StopBroker alone", a.status, a.body, f.String())
	}
}
