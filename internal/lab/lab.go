// Package lab is Offset Lab's use cases: every action a teacher takes
// through the page or the API, and every action a guided lesson takes, goes
// through here — produce with chosen settings and faults, run the order
// processor, step a transaction, create a topic, stop a broker — and so do
// the reads they are checked with (a partition's log, what consumers
// receive, a group's offsets, a transaction's state).
//
// A use case validates its request against the cluster (the topic exists,
// the partition is in range, the record fits the topic), carries it out
// with the domain packages (cluster, inspect, producer), returns a
// structured outcome — records with partition and offset, orders processed,
// CONCURRENT_TRANSACTIONS retries, the producer fenced — and narrates it
// once on the live timeline as catalogue messages about the partition it
// concerns. Callers (web, lessons) never rebuild either from text.
//
// Errors are internal/problem errors. A Lab is safe for concurrent use;
// Close ends its producers and the live hub, not the cluster connection,
// which the caller owns.
package lab

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// Brokers stops and starts the brokers when the server runs them itself
// (--local-kafka); *localkafka.Cluster is one.
type Brokers interface {
	Nodes(ctx context.Context) ([]localkafka.Node, error)
	StopNode(ctx context.Context, id int) error
	StartNode(ctx context.Context, id int) error
}

// Config is what a Lab works with.
type Config struct {
	// Cluster is the connection to the brokers; the caller closes it
	// after the Lab.
	Cluster *cluster.Cluster
	// Brokers is nil unless the server runs the brokers itself: only
	// then can a broker be stopped and started.
	Brokers Brokers
	// Live tunes the live hub; Sessions bounds each process's
	// transactional producers.
	Live     live.Config
	Sessions producer.SessionLimits
	// ReadOnly refuses every use case that changes the cluster (a
	// cluster the server did not start, without --allow-writes).
	ReadOnly bool
	// Logger receives what the server's operator should know; nil
	// discards it.
	Logger *slog.Logger
	// Values decodes record values written through a Schema Registry
	// (nil: values stay bytes); SchemaRegistry is that registry's URL,
	// which GET /api/cluster and the masthead name.
	Values         inspect.ValueDecoder
	SchemaRegistry string
}

// Lab carries out the use cases over one cluster.
type Lab struct {
	cluster   *cluster.Cluster
	inspector *inspect.Inspector
	hub       *live.Hub
	producer  *producer.Producer
	processor *producer.Processor
	processes *processes
	workers   shareWorkers
	brokers   Brokers
	readOnly  bool
	log       *slog.Logger
	// schemaRegistry is the registry's URL ("" without one).
	schemaRegistry string
}

// New builds the Lab's services over cfg.Cluster.
func New(cfg Config) *Lab {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Live.Logger == nil {
		cfg.Live.Logger = log
	}
	opts := cfg.Cluster.ClientOpts()
	inspector := inspect.New(cfg.Cluster.Client(), opts...)
	inspector.Values = cfg.Values
	conn := producer.Connection{Opts: cfg.Cluster.ProducerOpts(), Dial: cfg.Cluster.Dial}
	l := &Lab{
		cluster:   cfg.Cluster,
		inspector: inspector,
		producer:  producer.New(conn),
		processor: producer.NewProcessor(conn),
		processes: newProcesses(conn, cfg.Sessions),
		brokers:   cfg.Brokers,
		readOnly:  cfg.ReadOnly,
		log:       log,

		schemaRegistry: cfg.SchemaRegistry,
	}
	// The feeds read through the lab, so that a partition the user may
	// not read says which ACL is missing, as the API does.
	l.hub = live.NewHub(feedSource{l}, cfg.Cluster, cfg.Live)
	return l
}

// feedSource is what the live feeds read: the lab's reads.
type feedSource struct{ l *Lab }

func (s feedSource) ReadLog(ctx context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	return s.l.Log(ctx, topic, partition, from, limit)
}

func (s feedSource) Pointers(ctx context.Context, topic string, partition int32) (inspect.Pointers, error) {
	return s.l.Pointers(ctx, topic, partition)
}

// Writers numbers the feed's producers from the log start (live.WriterSource).
func (s feedSource) Writers(ctx context.Context, topic string, partition int32, from, to, maxBytes int64) (*inspect.PartitionWriters, error) {
	w, err := s.l.inspector.Writers(ctx, topic, partition, from, to, maxBytes)
	return w, s.l.notAllowed(err, "READ", "topic", topic)
}

// Close ends every process's producers (aborting open transactions) and
// stops the live hub.
func (l *Lab) Close() {
	l.processes.closeAll()
	l.workers.closeAll()
	l.hub.Close()
}

// Mode is whether the brokers are the embedded one or a real cluster.
func (l *Lab) Mode() cluster.Mode { return l.cluster.Mode() }

// Brokers are the bootstrap addresses, as Kafka clients should use them.
func (l *Lab) Brokers() []string { return l.cluster.Brokers() }

// Logger is where the lab tells the server's operator what a viewer is
// not shown (an internal error's own text, say).
func (l *Lab) Logger() *slog.Logger { return l.log }

// ReadOnly reports whether the lab refuses every change to the cluster.
func (l *Lab) ReadOnly() bool { return l.readOnly }

// roomToStore refuses a write of records when the embedded broker's data
// budget is full, with the sentence a teacher can act on, before anything
// is sent: the broker would refuse it anyway, with a Kafka error the page
// could only repeat. Ending a transaction is never refused (its marker is
// the broker's own write), so nothing is left open.
func (l *Lab) roomToStore() error {
	b, ok := l.cluster.Budget()
	if !ok || !b.Full {
		return nil
	}
	return problem.New(problem.Full, "error.budgetFull", "used", mib(b.UsedBytes), "max", mib(b.MaxBytes))
}

// mib formats n bytes in MiB with one decimal.
func mib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// writable refuses a change to a read-only cluster: the first thing every
// use case that writes does.
func (l *Lab) writable() error {
	if l.readOnly {
		return problem.New(problem.Forbidden, "error.readOnly", "brokers", strings.Join(l.cluster.Brokers(), ","))
	}
	return nil
}

// writes is writable plus the classroom's namespace rule: the lab never
// makes or writes a topic, group or transactional id whose name starts
// with cluster.StudentNamespace, which the students' ACLs cover, so no
// student ever owns a name a lesson or the teacher uses, whenever they
// joined. The one exception is WriteExerciseJobs, which fills a
// student's own job topic for an exercise and checks that it is one.
func (l *Lab) writes(names ...string) error {
	if err := l.writable(); err != nil {
		return err
	}
	for _, n := range names {
		if cluster.InStudentNamespace(n) {
			return problem.New(problem.Forbidden, "error.studentNamespace", "name", n)
		}
	}
	return nil
}

// Narrate tells the timeline msg about topic's partition (topic "" for
// the whole cluster). Use cases narrate their outcomes themselves; callers
// narrate only what is theirs to say (a lesson's step). An event about a
// partition is placed at its high watermark now (live.Event.At): a
// lesson's check comes after every record and marker its step wrote, on
// every viewer's story, whenever their cells reach the page.
func (l *Lab) Narrate(kind, topic string, partition int32, msg catalog.Message) {
	if topic != "" {
		l.narrateAt(kind, topic, partition, -1, msg)
		return
	}
	l.hub.Narrate(live.NewEvent(kind, topic, partition, msg))
}

// narrate is Narrate with the message as key and name, value pairs.
func (l *Lab) narrate(kind, topic string, partition int32, key string, kv ...string) {
	l.Narrate(kind, topic, partition, catalog.M(key, kv...))
}

// narrateAt narrates an event about no one cell of topic's partition at
// the log end offset at: the timeline tells it after the records below
// at and before those written later (see live.Event.At). at < 0 asks the
// broker for the partition's high watermark now.
func (l *Lab) narrateAt(kind, topic string, partition int32, at int64, msg catalog.Message) {
	if at < 0 {
		at = l.logEnd(topic, partition)
	}
	e := live.NewEvent(kind, topic, partition, msg)
	if at >= 0 {
		e.At = &at
	}
	l.hub.Narrate(e)
}

// logEnd is a partition's high watermark, or -1 when the broker does not
// say within a second.
func (l *Lab) logEnd(topic string, partition int32) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p, err := l.inspector.Pointers(ctx, topic, partition)
	if err != nil {
		return -1
	}
	return p.HighWatermark
}
