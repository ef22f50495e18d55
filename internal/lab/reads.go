package lab

import (
	"context"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// ClusterStatus is what the dashboard says about the brokers.
type ClusterStatus struct {
	Mode    cluster.Mode `json:"mode"`
	Brokers []string     `json:"brokers"`
	// KafkaAddr is where Kafka clients should connect.
	KafkaAddr string `json:"kafkaAddr"`
	Reachable bool   `json:"reachable"`
	// Error is why the brokers do not answer, in English; ErrorCode
	// and ErrorArgs name its catalogue sentence for the viewer's
	// language (the broker's or the network's own words, if any, are its
	// "detail").
	Error     string       `json:"error,omitempty"`
	ErrorCode string       `json:"errorCode,omitempty"`
	ErrorArgs catalog.Args `json:"errorArgs,omitempty"`
	// ReadOnly is true when the server refuses to change the cluster
	// (one it did not start, without --allow-writes).
	ReadOnly bool `json:"readOnly"`
	// Security is how a secured cluster is reached (protocol, SASL
	// mechanism, user, certificate subjects), never a secret.
	Security *cluster.Security `json:"security,omitempty"`
	// Budget is the embedded broker's data budget: what the stored
	// data costs, the budget, each other host's share, and whether it
	// is full. Absent for a real cluster.
	Budget *cluster.BudgetStatus `json:"budget,omitempty"`
	// SchemaRegistry is the Schema Registry whose schemas decode the
	// values (the embedded one beside the embedded broker, or
	// --schema-registry); absent without one.
	SchemaRegistry *SchemaRegistry `json:"schemaRegistry,omitempty"`
}

// SchemaRegistry names the registry values are decoded with.
type SchemaRegistry struct {
	URL string `json:"url"`
}

// Status reports the brokers and whether one answers now.
func (l *Lab) Status(ctx context.Context) ClusterStatus {
	brokers := l.cluster.Brokers()
	s := ClusterStatus{Mode: l.cluster.Mode(), Brokers: brokers, KafkaAddr: strings.Join(brokers, ","), Reachable: true, ReadOnly: l.readOnly}
	if sec := l.cluster.Security(); sec.Protocol != "" {
		s.Security = &sec
	}
	if b, ok := l.cluster.Budget(); ok {
		s.Budget = &b
	}
	if l.schemaRegistry != "" {
		s.SchemaRegistry = &SchemaRegistry{URL: l.schemaRegistry}
	}
	if err := l.cluster.Ping(ctx); err != nil {
		p := problem.As(err)
		if p.Kind == problem.Internal {
			l.log.Error("cluster status", "err", err)
		}
		s.Reachable, s.Error, s.ErrorCode, s.ErrorArgs = false, p.Error(), p.Message.Key, p.Message.Args
	}
	return s
}

// notAllowed names the operation and resource of an authorization
// failure, with the user the server connects as (see problem.NotAllowed).
func (l *Lab) notAllowed(err error, operation, resource, name string) error {
	if err == nil {
		return nil
	}
	return problem.NotAllowed(err, l.cluster.Security().User, operation, resource, name)
}

// Topics lists the topics with their partitions' placement and pointers.
func (l *Lab) Topics(ctx context.Context) ([]cluster.TopicInfo, error) {
	topics, err := l.cluster.Topics(ctx)
	if topics == nil && err == nil {
		topics = []cluster.TopicInfo{}
	}
	return topics, l.notAllowed(err, "DESCRIBE", "topics", "*")
}

// Topic describes one topic.
func (l *Lab) Topic(ctx context.Context, name string) (cluster.TopicInfo, error) {
	t, err := l.cluster.Topic(ctx, name)
	return t, l.notAllowed(err, "DESCRIBE", "topic", name)
}

// CreateTopic creates a topic after checking its name and configurations
// as Kafka would (see cluster.CreateTopic).
func (l *Lab) CreateTopic(ctx context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error) {
	if err := l.writes(spec.Name); err != nil {
		return cluster.TopicInfo{}, err
	}
	t, err := l.cluster.CreateTopic(ctx, spec)
	if err == nil {
		l.record(ctx, spec.Name, toRecord(t, nil))
	}
	return t, l.notAllowed(err, "CREATE", "topic", spec.Name)
}

// partition checks that topic has partition p and returns the topic.
func (l *Lab) partition(ctx context.Context, topic string, p int32) (cluster.TopicInfo, error) {
	t, err := l.cluster.Topic(ctx, topic)
	if err != nil {
		return t, err
	}
	if p < 0 || int(p) >= len(t.Partitions) {
		return t, problem.UnknownPartition(topic, len(t.Partitions), p)
	}
	return t, nil
}

// Log reads a window of a partition offset by offset (see
// inspect.Inspector.ReadLog); from < 0 starts at the log start.
func (l *Lab) Log(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	log, err := l.inspector.ReadLog(ctx, topic, partition, from, limit)
	if err == nil {
		l.dateDeletions(topic, partition, log)
	}
	return log, l.notAllowed(err, "READ", "topic", topic)
}

// dateDeletions tells each gap below the log start when the log start
// moved past it, from the partition's recorded history (read only when
// the window reaches below the log start).
func (l *Lab) dateDeletions(topic string, partition int32, log *inspect.Log) {
	if len(log.Entries) == 0 || log.Entries[0].Offset >= log.LogStartOffset {
		return
	}
	h, err := l.hub.History(topic, partition, 0)
	if err != nil {
		return
	}
	moves := h.LogStartMoves()
	for i := range log.Entries {
		e := &log.Entries[i]
		if e.Kind == inspect.KindGap && e.Reason == inspect.GapBeforeLogStart {
			e.Deleted = live.MoveOf(moves, e.Offset)
		}
	}
}

// Records is what a consumer at isolation level iso receives from offset
// from (see inspect.Inspector.ReadRecords).
func (l *Lab) Records(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) ([]inspect.Record, error) {
	recs, err := l.inspector.ReadRecords(ctx, topic, partition, iso, from, limit)
	if recs == nil && err == nil {
		recs = []inspect.Record{}
	}
	return recs, l.notAllowed(err, "READ", "topic", topic)
}

// RecordsPage is Records that says when the answer's byte budget ended it
// early (see inspect.Inspector.ReadRecordsPage).
func (l *Lab) RecordsPage(ctx context.Context, topic string, partition int32, iso inspect.Isolation, from int64, limit int) (*inspect.RecordsPage, error) {
	page, err := l.inspector.ReadRecordsPage(ctx, topic, partition, iso, from, limit)
	return page, l.notAllowed(err, "READ", "topic", topic)
}

// Pointers are a partition's log start offset, LSO and high watermark.
func (l *Lab) Pointers(ctx context.Context, topic string, partition int32) (inspect.Pointers, error) {
	p, err := l.inspector.Pointers(ctx, topic, partition)
	return p, l.notAllowed(err, "DESCRIBE", "topic", topic)
}

// Watch subscribes to a partition's live view: a snapshot, then entries,
// pointer moves, group offsets and narration. The caller closes the
// subscription. A partition that does not exist is refused, and so is one
// more partition than the hub polls at once, or than viewer's share (see
// live.Viewer).
func (l *Lab) Watch(ctx context.Context, topic string, partition int32, viewer live.Viewer) (*live.Subscription, error) {
	if _, err := l.partition(ctx, topic, partition); err != nil {
		return nil, err
	}
	return l.hub.SubscribeAs(topic, partition, viewer)
}

// Group describes a consumer group: state, committed offsets and lag.
func (l *Lab) Group(ctx context.Context, name string) (cluster.GroupInfo, error) {
	g, err := l.cluster.Group(ctx, name)
	return g, l.notAllowed(err, "DESCRIBE", "group", name)
}

// Transaction describes a transactional.id at its coordinator.
func (l *Lab) Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error) {
	t, err := l.cluster.Transaction(ctx, id)
	return t, l.notAllowed(err, "DESCRIBE", "transactional id", id)
}

// MaxEvents is how many recent events Events returns at most.
const MaxEvents = 200

// Events is the recent narration of the whole cluster, oldest first (at
// most MaxEvents).
func (l *Lab) Events(n int) []live.Event {
	if n <= 0 || n > MaxEvents {
		n = MaxEvents
	}
	return l.hub.Recent(n)
}

// aliasScanBytes bounds the batch headers ProducerAliases reads when
// nobody watches the partition (4 MiB): a student's partition is small,
// and the grader asks every few seconds.
const aliasScanBytes = 4 << 20

// ProducerAliases names topic/partition's producers by producer id as
// its partition page does (P1, P2 …, live.Hub.ProducerAliases): the
// running feed's names while someone watches it, else the ones a new
// feed would give, read from at most aliasScanBytes of batch headers.
// A producer without a name is not in the map.
func (l *Lab) ProducerAliases(ctx context.Context, topic string, partition int32) (map[int64]string, error) {
	list, err := l.hub.ProducerAliases(ctx, topic, partition, aliasScanBytes)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(list))
	for _, a := range list {
		out[a.ProducerID] = a.Alias
	}
	return out, nil
}
