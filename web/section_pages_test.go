package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// sectionLab is the part of the lab the section pages read, over fixed
// answers: topics "orders", "keys" (3 partitions), "payments" (a hanging
// transaction holds its LSO at 0), Kafka's __consumer_offsets; a group
// committed before a trailing COMMIT; an ongoing transaction.
type sectionLab struct {
	httpx.Lab // nil: the pages must not call anything else
	down      bool
	readOnly  bool
	// security is the connection the pages print; denied makes the
	// rights of the commands that end a transaction refused.
	security cluster.Security
	denied   bool
	// moreOngoing adds that many ongoing transactions after payments-app.
	moreOngoing int
}

var errDown = problem.BrokerUnreachable(errors.New("dial tcp: connection refused"))

func (l *sectionLab) Mode() cluster.Mode         { return cluster.Embedded }
func (l *sectionLab) Brokers() []string          { return []string{"127.0.0.1:9092"} }
func (l *sectionLab) ReadOnly() bool             { return l.readOnly }
func (l *sectionLab) Security() cluster.Security { return l.security }
func (l *sectionLab) SchemaRegistry() string     { return "" }

func (l *sectionLab) AbortRight(context.Context) cluster.Right {
	return l.right(cluster.Right{Operation: "ALTER", Resource: "cluster", Name: "kafka-cluster"}, "CLUSTER_AUTHORIZATION_FAILED")
}

func (l *sectionLab) TerminateRight(_ context.Context, id, _ string, _ int32) cluster.Right {
	return l.right(cluster.Right{Operation: "WRITE", Resource: "transactional-id", Name: id}, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED")
}

func (l *sectionLab) right(r cluster.Right, code string) cluster.Right {
	r.Known = true
	if l.denied {
		r.Denied, r.Error = true, code
	}
	return r
}

func (l *sectionLab) AllTopics(ctx context.Context) ([]cluster.TopicInfo, error) {
	if l.down {
		return nil, errDown
	}
	return []cluster.TopicInfo{
		{Name: "__consumer_offsets", Internal: true, Partitions: []cluster.PartitionInfo{{Leader: 1, Replicas: []int32{1}, ISR: []int32{1}, HighWatermark: 40, LastStableOffset: 40}}},
		{Name: "keys", Partitions: []cluster.PartitionInfo{
			{Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2}, HighWatermark: 3, LastStableOffset: 3},
			{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}},
			{Partition: 2, Leader: 3, Replicas: []int32{3, 1, 2}, ISR: []int32{3, 1, 2}, HighWatermark: 5, LastStableOffset: 5},
		}},
		{Name: "orders", Partitions: []cluster.PartitionInfo{{Leader: 1, Replicas: []int32{1}, ISR: []int32{1}, HighWatermark: 3, LastStableOffset: 3}}},
		{Name: "payments", Partitions: []cluster.PartitionInfo{{Leader: 1, Replicas: []int32{1}, ISR: []int32{1}, HighWatermark: 3, LastStableOffset: 0}}},
	}, nil
}

func (l *sectionLab) Topics(ctx context.Context) ([]cluster.TopicInfo, error) {
	all, err := l.AllTopics(ctx)
	return slices.DeleteFunc(all, func(t cluster.TopicInfo) bool { return t.Internal }), err
}

func (l *sectionLab) Topic(ctx context.Context, name string) (cluster.TopicInfo, error) {
	all, err := l.AllTopics(ctx)
	if err != nil {
		return cluster.TopicInfo{}, err
	}
	for _, t := range all {
		if t.Name == name {
			return t, nil
		}
	}
	return cluster.TopicInfo{}, problem.UnknownTopic(name)
}

func (l *sectionLab) TopicDetail(ctx context.Context, name string) (lab.TopicDetail, error) {
	t, err := l.Topic(ctx, name)
	if err != nil {
		return lab.TopicDetail{}, err
	}
	d := lab.TopicDetail{TopicInfo: t}
	for _, p := range t.Partitions {
		open := 0
		if name == "payments" {
			open = 1
		}
		d.Partitions = append(d.Partitions, lab.PartitionDetail{PartitionInfo: p, OpenTransactions: open})
	}
	two, del := "2", "delete"
	d.Configs = []cluster.TopicConfig{
		{Name: "cleanup.policy", Value: &del, Source: "DEFAULT_CONFIG"},
		{Name: "min.insync.replicas", Value: &two, Source: "DYNAMIC_TOPIC_CONFIG"},
		{Name: "sasl.jaas.config", Source: "STATIC_BROKER_CONFIG", Sensitive: true},
	}
	if l.denied {
		d.Configs, d.ConfigsUnread = nil, &lab.Unread{Code: "error.notAllowed", Args: catalog.Pairs("user", "reader", "operation", "DESCRIBE_CONFIGS", "resource", "topic", "name", name, "code", "TOPIC_AUTHORIZATION_FAILED")}
	}
	return d, nil
}

func (l *sectionLab) Log(_ context.Context, topic string, partition int32, from int64, _ int) (*inspect.Log, error) {
	return &inspect.Log{Topic: topic, Partition: partition}, nil
}

func (l *sectionLab) Groups(context.Context) ([]cluster.GroupSummary, error) {
	if l.down {
		return nil, errDown
	}
	return []cluster.GroupSummary{{Group: "totals-tx", State: "Empty", ProtocolType: "consumer", Members: 0}, {Group: "a/b", State: "Stable", ProtocolType: "consumer", Members: 1}}, nil
}

func (l *sectionLab) GroupDetail(_ context.Context, name string) (cluster.GroupDetail, error) {
	if l.down {
		return cluster.GroupDetail{}, errDown
	}
	if name != "totals-tx" && name != "a/b" {
		return cluster.GroupDetail{}, problem.New(problem.NotFound, "error.unknownGroup", "group", name)
	}
	offset := func(topic string, committed, logEnd, recordLag int64) cluster.GroupOffset {
		return cluster.GroupOffset{GroupPartitionOffset: cluster.GroupPartitionOffset{Topic: topic, Committed: committed, LogEnd: logEnd, Lag: logEnd - committed}, RecordLag: recordLag}
	}
	return cluster.GroupDetail{
		Group: name, State: "Stable", ProtocolType: "consumer", Protocol: "cooperative-sticky", MemberCount: 1,
		Members: []cluster.GroupMember{{MemberID: "m-1", ClientID: "processor", Host: "/127.0.0.1",
			Assignment: []cluster.TopicPartitions{{Topic: "orders", Partitions: []int32{0}}}}},
		Offsets: []cluster.GroupOffset{
			offset("order-totals-tx", 7, 8, 0), // a trailing COMMIT
			offset("orders", 3, 3, 0),
			offset("mixed", 2, 8, 3),
		},
	}, nil
}

// kafkaTransactionStates are the states ListTransactions filters by, as
// Kafka spells them.
var kafkaTransactionStates = []string{"Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Empty", "PrepareEpochFence", "Dead"}

func (l *sectionLab) Transactions(_ context.Context, states ...string) ([]cluster.TransactionSummary, error) {
	if l.down {
		return nil, errDown
	}
	all := []cluster.TransactionSummary{{TransactionalID: "orders-app", State: "Empty", ProducerID: 7}, {TransactionalID: "payments-app", State: "Ongoing", ProducerID: 42}}
	for i := range l.moreOngoing {
		all = append(all, cluster.TransactionSummary{TransactionalID: fmt.Sprintf("worker-%02d", i), State: "Ongoing", ProducerID: int64(100 + i)})
	}
	var out []cluster.TransactionSummary
	for _, t := range all {
		for _, s := range states {
			if !slices.Contains(kafkaTransactionStates, s) {
				return nil, problem.New(problem.Invalid, "error.transactionStateUnknown", "state", s, "states", strings.Join(kafkaTransactionStates, ", "))
			}
		}
		if len(states) == 0 || slices.Contains(states, t.State) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (l *sectionLab) Transaction(_ context.Context, id string) (cluster.TransactionInfo, error) {
	return cluster.TransactionInfo{TransactionalID: id, State: cluster.TxnOngoing, ProducerID: 42, Partitions: []string{"__consumer_offsets-3", "payments-0"}}, nil
}

func (l *sectionLab) Producers(_ context.Context, topic string, partition int32) (cluster.PartitionProducers, error) {
	p := cluster.PartitionProducers{Topic: topic, Partition: partition, Leader: 1, MaxTransactionTimeoutMs: 900000, Producers: []cluster.ProducerState{}}
	if topic == "payments" {
		p.Producers = append(p.Producers, cluster.ProducerState{ProducerID: 42, LastSequence: 2, LastTimestamp: 1, CurrentTransactionStartOffset: 0, Hanging: true})
	}
	return p, nil
}

// TestSectionPages: every section page's status and what it must (and,
// for a student or on a read-only cluster, must not) show.
func TestSectionPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		lab      sectionLab
		student  bool
		path     string
		status   int
		contains []string
		lacks    []string
	}{
		{name: "topics with partitions, pointers and delete", path: "/topics", status: http.StatusOK,
			contains: []string{`data-testid="site-nav"`, `href="/topics" data-testid="nav-topics" aria-current="page"`,
				`data-topic="keys"`, `href="/topics/keys"`, `href="/topics/keys/partitions/2"`, `<td data-label="ISR">1, 2</td>`,
				`data-testid="delete-topic" data-topic="keys"`, `data-testid="delete-dialog"`,
				`data-partition="0" data-hw="3" data-lso="0" data-open="1"`, `data-testid="lso-held"`},
			lacks: []string{`__consumer_offsets`}},
		{name: "topics with Kafka's own", path: "/topics?internal=true", status: http.StatusOK,
			contains: []string{`data-topic="__consumer_offsets"`, `data-testid="internal-badge"`, `Hide Kafka&#39;s internal topics`},
			lacks:    []string{`data-testid="delete-topic" data-topic="__consumer_offsets"`}},
		{name: "a student's topics page deletes nothing and lists none of the teacher's", student: true, path: "/topics", status: http.StatusOK,
			contains: []string{`data-role="student"`}, lacks: []string{`data-testid="delete-topic"`, `delete-dialog`, `data-topic="keys"`}},
		{name: "a read-only cluster's topics page deletes nothing", lab: sectionLab{readOnly: true}, path: "/topics", status: http.StatusOK,
			contains: []string{`data-testid="read-only"`}, lacks: []string{`data-testid="delete-topic"`, `delete-dialog`}},
		{name: "a topic side by side, with its configs", path: "/topics/keys", status: http.StatusOK,
			contains: []string{`<title>keys · Offset Lab</title>`, `data-testid="strips" data-topic="keys"`, `href="/topics/keys/partitions/1"`,
				`data-partition="2" data-log-start="0" data-lso="5" data-hw="5" data-open="0"`, `3 partitions side by side`,
				`data-name="min.insync.replicas" data-source="DYNAMIC_TOPIC_CONFIG" data-default="false"`, `set on this topic`, `hidden (sensitive)`,
				// A source reads as words, Kafka's spelling only in its title.
				`data-i18n="config.source.DEFAULT_CONFIG" title="DEFAULT_CONFIG">Kafka&#39;s default</span></td>`},
			lacks: []string{`DEFAULT_CONFIG</code>`}},
		{name: "an unknown topic is a page that says so", path: "/topics/nope", status: http.StatusNotFound,
			contains: []string{`data-testid="problem"`, `Topic &#34;nope&#34; does not exist. The topics page lists the ones that do.`}, lacks: []string{`data-testid="strips"`}},
		{name: "groups", path: "/groups", status: http.StatusOK,
			contains: []string{`data-group="totals-tx"`, `href="/groups/totals-tx"`, `href="/groups/a%2Fb"`}},
		{name: "a group with both lags and why they differ", path: "/groups/totals-tx", status: http.StatusOK,
			contains: []string{`data-testid="offset-row" data-topic="order-totals-tx" data-partition="0" data-differ="true"`,
				// What the page's script compares with /api/groups/totals-tx to know when to refresh.
				`data-committed="7" data-log-end="8" data-lag="1" data-record-lag="0" data-held-lso="" data-held-waiting="" data-held-txid=""`,
				`data-testid="offset-lag">1</td>`, `data-testid="record-lag">0</td>`, `usually the COMMIT marker that ends the last transaction`,
				`3 of the 6 offsets left hold nothing a read_committed consumer receives`, `caught up: nothing left to read`,
				`<code>processor</code>`, `href="/topics/orders"`}},
		{name: "a group whose name holds a slash", path: "/groups/a%2Fb", status: http.StatusOK, contains: []string{`data-testid="group-name">a/b</span>`}},
		{name: "an unknown group is a page that says so", path: "/groups/nope", status: http.StatusNotFound,
			contains: []string{`Consumer group &#34;nope&#34; is unknown`}, lacks: []string{`offset-table`}},
		{name: "transactions with hanging producers and abort", path: "/transactions", status: http.StatusOK,
			contains: []string{`data-testid="txn-row" data-id="payments-app" data-state="Ongoing"`, `data-testid="partition-producers" data-topic="payments" data-partition="0"`,
				`data-producer="42" data-start="0" data-hanging="true"`, `data-verdict="hanging"`,
				`<span class="word">kafka-transactions.sh</span> <span class="word">--bootstrap-server 127.0.0.1:9092</span> <span class="word">abort</span> <span class="word">--topic payments</span> <span class="word">--partition 0</span> <span class="word">--start-offset 0</span>`,
				`data-testid="abort-txn"`, `data-testid="abort-dialog"`},
			lacks: []string{`__consumer_offsets`}},
		{name: "a secured cluster's commands carry its properties file and say which right the reader lacks",
			lab: sectionLab{readOnly: true, denied: true, security: cluster.Security{Protocol: "SASL_SSL", User: "reader", CommandConfig: "/etc/kafka/reader.properties"}}, path: "/transactions", status: http.StatusOK,
			contains: []string{`<span class="word">--bootstrap-server 127.0.0.1:9092</span> <span class="word">--command-config /etc/kafka/reader.properties</span> <span class="word">abort</span>`,
				`data-testid="abort-right" data-denied="true">`, `Needs ALTER on cluster kafka-cluster, which user reader does not hold: as printed, the broker answers CLUSTER_AUTHORIZATION_FAILED.`,
				`<span class="word">--command-config /etc/kafka/reader.properties</span> <span class="word">describe-producers</span>`,
				`data-testid="describe-right" data-denied="false">`, `Needs READ on topic payments, which user reader holds.`}},
		{name: "a topic page without DESCRIBE_CONFIGS draws the strips and says why the configurations are missing", lab: sectionLab{denied: true}, path: "/topics/keys", status: http.StatusOK,
			contains: []string{`data-testid="strips"`, `data-testid="configs-problem"`, `user reader may not DESCRIBE_CONFIGS on topic keys`},
			lacks:    []string{`data-testid="config-table"`, `id="problem"`}},
		{name: "a student's transactions page aborts nothing", student: true, path: "/transactions", status: http.StatusOK,
			contains: []string{`data-testid="abort-command"`}, lacks: []string{`data-testid="abort-txn"`, `abort-dialog`}},
		{name: "a read-only cluster's transactions page aborts nothing", lab: sectionLab{readOnly: true}, path: "/transactions", status: http.StatusOK,
			contains: []string{`data-testid="abort-command"`}, lacks: []string{`data-testid="abort-txn"`, `abort-dialog`}},
		{name: "past 16 ongoing transactions the page says how many it left out", lab: sectionLab{moreOngoing: 20}, path: "/transactions", status: http.StatusOK,
			contains: []string{`data-testid="left-out-transactions" data-count="5"`, `5 more ongoing transactions are not described here (the first 16 are): choose a topic above to see its producers.`}},
		{name: "up to 16 ongoing transactions leave none out", lab: sectionLab{moreOngoing: 15}, path: "/transactions", status: http.StatusOK,
			lacks: []string{`left-out-transactions`}},
		{name: "a topic's producers", path: "/transactions?topic=keys", status: http.StatusOK,
			contains: []string{`No partition of keys holds producer state.`, `<option value="keys" selected>`}},
		{name: "a state filter", path: "/transactions?state=Empty", status: http.StatusOK,
			contains: []string{`data-id="orders-app"`, `<option value="Empty" selected>`, `data-topic="payments"`}, lacks: []string{`data-testid="txn-row" data-id="payments-app"`}},
		{name: "a state Kafka does not have", path: "/transactions?state=Finished", status: http.StatusBadRequest,
			contains: []string{`data-testid="problem"`, `Finished`, `data-testid="state-form"`}},
		{name: "producers of an unknown topic", path: "/transactions?topic=nope", status: http.StatusNotFound,
			contains: []string{`Topic &#34;nope&#34; does not exist.`, `data-testid="txn-table"`}},
		{name: "an unreachable broker shows the banner", lab: sectionLab{down: true}, path: "/groups", status: http.StatusServiceUnavailable,
			contains: []string{`data-testid="broker-banner" role="alert">`, `not reachable`}},
		{name: "the partition page has the navigation too", path: "/topics/keys/partitions/1", status: http.StatusOK,
			contains: []string{`data-testid="site-nav"`, `href="/" data-testid="nav-log" aria-current="page"`, `nav.css`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := tt.lab
			var opts []Option
			if tt.student {
				opts = append(opts, WithAccess(Access{Classroom: true}))
			}
			srv := New(Deps{Lab: &l}, nil, opts...)
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
			body := rec.Body.String()
			if rec.Code != tt.status {
				t.Fatalf("GET %s: status %d, want %d; body %.400s", tt.path, rec.Code, tt.status, body)
			}
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("GET %s: body lacks %s", tt.path, want)
				}
			}
			for _, bad := range tt.lacks {
				if strings.Contains(body, bad) {
					t.Errorf("GET %s: body has %s", tt.path, bad)
				}
			}
			checkStrictPage(t, rec, body)
		})
	}
}

// TestTopicBrief: GET /api/topics/{t}?brief=true is the placement and
// pointers alone, what the strips poll; without it, the detail.
func TestTopicBrief(t *testing.T) {
	t.Parallel()
	srv := New(Deps{Lab: &sectionLab{}}, nil)
	for _, tt := range []struct {
		path        string
		wantConfigs bool
	}{
		{"/api/topics/keys?brief=true", false},
		{"/api/topics/keys", true},
	} {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
		var got map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != http.StatusOK || err != nil {
			t.Fatalf("GET %s: %d %s", tt.path, rec.Code, rec.Body)
		}
		if _, ok := got["configs"]; ok != tt.wantConfigs {
			t.Errorf("GET %s: configs present %v, want %v: %s", tt.path, ok, tt.wantConfigs, rec.Body)
		}
		if !strings.Contains(string(got["partitions"]), `"highWatermark":5`) {
			t.Errorf("GET %s: partitions %s lack the pointers", tt.path, got["partitions"])
		}
	}
}
