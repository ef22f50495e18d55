// Package embedded is the embedded broker's home: franz-go's kfake (the
// pinned, patched copy in third_party/kfake) started in-process and
// persisted under a data directory, with everything Offset Lab adds around
// it to make it a Kafka a class can share —
//
//   - the Kafka port guard (guard*.go): every client connection framed,
//     refused what would crash or swamp the broker, bounded in bytes,
//     time and connections, the students' producer ids rate-limited
//     (and capped inside kfake, students.go);
//   - the answers rewritten to match Apache Kafka (compat.go; each one in
//     docs/divergences.md);
//   - the data budget on kfake's storage hook (budget.go) and the caps on
//     topics and partitions with the students' shares (topic_limits.go);
//   - recovery at start after an unclean shutdown (recover.go);
//   - a classroom's SASL and ACLs on the broker and its super user
//     (students.go).
//
// Start returns a *cluster.Cluster, which administers the broker through
// the Kafka protocol like any other cluster and reaches what only the
// broker knows (its budget, a share group's state) through the
// cluster.EmbeddedBroker this package hands it. This package imports
// internal/cluster, never the reverse; record batches are read with
// internal/batch, the decoder internal/inspect uses too.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// Config configures the embedded broker.
type Config struct {
	// KafkaAddr is the host:port where the broker accepts Kafka clients.
	// Port 0 picks a free port; Brokers reports the bound address.
	KafkaAddr string
	// Listener, when set, is the Kafka port already bound (cmd/server
	// binds its ports before loading anything, so that a port in use
	// fails at once); KafkaAddr is then ignored. Start takes it
	// over and closes it with the cluster, or on failure.
	Listener net.Listener
	// DataDir is where the broker persists topics, records, markers,
	// group offsets and producer state. Empty means in memory only.
	DataDir string
	// Logger receives the broker's warnings and errors, and the Kafka
	// port's refusals (rate-limited); nil discards them.
	Logger *slog.Logger
	// Limits bounds what Kafka clients can make the broker hold: request
	// size, queued request bytes, request and idle timeouts, connections.
	// Zero fields take Apache Kafka's defaults (see PortLimits).
	Limits PortLimits
	// Budget bounds what the broker stores (see DataBudget); zero
	// fields take its defaults.
	Budget DataBudget
	// Topics caps the topics and partitions the broker holds; zero
	// fields take the defaults (see TopicLimits).
	Topics TopicLimits
	// AdvertisedHost is the host the broker names in Metadata answers,
	// with the port it bound: what clients on other machines must reach
	// (a classroom's students dial the join URL's host). Empty advertises
	// the bound address.
	AdvertisedHost string
	// Students, when set, makes the Kafka port a classroom's: every client
	// authenticates with SASL and is held to ACLs (students.go), and the
	// dashboard's own clients authenticate as Students.Admin, a super user.
	Students *StudentAuth
}

// closeListener closes a Listener given to Start, if any.
func closeListener(ln net.Listener) {
	if ln != nil {
		ln.Close()
	}
}

// Start starts an in-process Kafka-protocol broker listening on
// cfg.KafkaAddr and reloads any state persisted under cfg.DataDir. The
// Kafka port is guarded (guard.go): a client can close its own connection
// by misbehaving, never the process, and what it can make the broker hold
// is bounded by cfg.Limits. After an unclean shutdown it ends the
// transactions the crash left open before it returns (recover.go).
//
// The returned Cluster owns the broker: the caller must Close it, which
// persists the broker's state, stops it and marks the data directory as
// cleanly shut down. On failure nothing is left running, and a
// cfg.Listener is closed.
func Start(cfg Config) (*cluster.Cluster, error) {
	c, _, err := start(cfg)
	return c, err
}

// start is Start, which also returns the broker, for tests.
func start(cfg Config) (*cluster.Cluster, *broker, error) {
	addr := cfg.KafkaAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	limits, err := cfg.Limits.withDefaults()
	if err != nil {
		closeListener(cfg.Listener)
		return nil, nil, err
	}
	topicLimits, err := cfg.Topics.withDefaults()
	if err != nil {
		closeListener(cfg.Listener)
		return nil, nil, err
	}
	var guard *guardListener
	listen := func(network, _ string) (net.Listener, error) {
		ln := cfg.Listener
		if ln == nil {
			var err error
			if ln, err = net.Listen(network, addr); err != nil {
				return nil, fmt.Errorf("embedded broker cannot listen on %s: %w", addr, err)
			}
		}
		guard = newGuardListener(ln, limits, cfg.Logger)
		if cfg.AdvertisedHost != "" {
			guard.advertise = advertisedAddr(ln.Addr(), cfg.AdvertisedHost)
		}
		return guard, nil
	}
	budget := newDataBudget(cfg.Budget.withDefaults(), newThrottledLog(cfg.Logger, logEvery))
	// Kafka's own defaults, so lessons show the timeouts a real broker
	// would apply; a classroom's producer ids expire sooner
	// (students.go).
	brokerConfigs := map[string]string{
		"transaction.max.timeout.ms": "900000",
		// The cleaner and retention pass every second, as on the
		// lab's real brokers (single.properties), so that lessons 7
		// and 8 see them act within seconds.
		"log.cleaner.backoff.ms": "1000",
		// Lesson 9: a share group may lock records for a second
		// (single.properties), and an expired lock is noticed
		// within 200 ms (Kafka times each lock on its own).
		"group.share.min.record.lock.duration.ms": "1000",
		"share.record.lock.sweep.interval.ms":     "200",
	}
	if cfg.Students != nil {
		maps.Copy(brokerConfigs, cfg.Students.brokerConfigs())
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.StorageHook(budget.hooks()),
		kfake.ListenFn(listen),
		kfake.ClusterID("offset-lab-embedded"),
		kfake.DefaultNumPartitions(1),
		kfake.AllowAutoTopicCreation(),
		kfake.TopicLimits(topicLimits.MaxTopics, topicLimits.MaxPartitions),
		kfake.BrokerConfigs(brokerConfigs),
	}
	if cfg.Logger != nil {
		opts = append(opts, kfake.WithLogger(slogLogger{cfg.Logger}))
	}
	var auth []kgo.Opt
	if cfg.Students != nil {
		opts = append(opts, cfg.Students.brokerOpts()...)
		auth = cfg.Students.clientOpts()
	}
	if cfg.DataDir != "" {
		fixed, err := PrivateDataDir(cfg.DataDir)
		if err != nil {
			closeListener(cfg.Listener)
			return nil, nil, err
		}
		if len(fixed) > 0 && cfg.Logger != nil {
			cfg.Logger.Warn("data dir: made private what an older run left readable by others", "paths", fixed)
		}
		opts = append(opts, kfake.DataDir(cfg.DataDir))
	}
	unclean := false
	if cfg.DataDir != "" {
		if unclean, err = markRunning(cfg.DataDir); err != nil {
			closeListener(cfg.Listener)
			return nil, nil, err
		}
	}
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		closeListener(cfg.Listener) // a second Close of it only errs
		if !unclean && cfg.DataDir != "" {
			unmarkRunning(cfg.DataDir)
		}
		return nil, nil, fmt.Errorf("embedded: start the broker: %w", err)
	}
	// The students' shares of the data budget start from what their
	// topics store, before the port accepts anyone (guard.start).
	fake.EachTopicStorage(budget.seed)
	api, err := guard.learnAPIRanges(10 * time.Second)
	if err != nil {
		fake.Close()
		if !unclean && cfg.DataDir != "" {
			unmarkRunning(cfg.DataDir)
		}
		return nil, nil, fmt.Errorf("embedded: start the broker: %w", err)
	}
	// The students' topic shares count with the dashboard's own client,
	// which exists only once the broker serves: until then they let
	// requests through (the broker's caps still hold).
	b := &broker{fake: fake, port: guard, budget: budget, dataDir: cfg.DataDir, topics: topicLimits}
	guard.shares = &studentShares{limits: topicLimits, partitions: b.topicPartitions}
	if cfg.Students != nil {
		guard.producerIDs, guard.superuser = newUserRates(producerIDBurst, producerIDEvery), cfg.Students.Admin
		b.maxProducerIDs = cfg.Students.maxProducerIDs()
	}
	guard.start(api)
	c, err := cluster.OnEmbedded(cluster.EmbeddedConfig{Brokers: fake.ListenAddrs(), Auth: auth, Security: cfg.Students.security(), Broker: b})
	if err != nil {
		fake.Close()
		return nil, nil, err
	}
	b.cluster.Store(c)
	if unclean {
		log := cfg.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		ctx, cancel := context.WithTimeout(context.Background(), recoverTimeout)
		defer cancel()
		if _, err := abortOrphanedTransactions(ctx, c, fake, log); err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("embedded: recover %s after an unclean shutdown: %w", cfg.DataDir, err)
		}
	}
	return c, b, nil
}

// broker is the running kfake broker with what Offset Lab keeps beside it:
// the cluster.EmbeddedBroker a Cluster of it asks.
type broker struct {
	fake    *kfake.Cluster
	port    *guardListener // the guarded Kafka port
	budget  *dataBudget    // the data budget (budget.go)
	dataDir string         // empty in memory
	topics  TopicLimits
	// maxProducerIDs is each classroom student's cap on producer ids
	// (StudentAuth.MaxProducerIDs); zero without a classroom.
	maxProducerIDs int
	// cluster is the Cluster of this broker, whose client counts the
	// students' topics; nil until the broker serves, when the counts let
	// requests through (the broker's caps still hold).
	cluster atomic.Pointer[cluster.Cluster]
}

// Close persists the broker's state, stops it and marks its data
// directory as cleanly shut down.
func (b *broker) Close() {
	b.fake.Close()
	if b.dataDir != "" {
		unmarkRunning(b.dataDir)
	}
}

// Budget is the data budget and what the stored data costs now.
func (b *broker) Budget() cluster.BudgetStatus { return b.budget.status(b.fake.StorageUsage()) }

// TopicCaps are the broker's caps on topics and partitions.
func (b *broker) TopicCaps() (maxTopics, maxPartitions int) {
	return b.topics.MaxTopics, b.topics.MaxPartitions
}

// topicPartitions is every topic with its partition count, from one
// metadata request of the Cluster's client.
func (b *broker) topicPartitions(ctx context.Context) (map[string]int, error) {
	c := b.cluster.Load()
	if c == nil {
		return nil, errors.New("embedded: not serving yet")
	}
	return c.TopicPartitions(ctx)
}

// slogLogger adapts slog to kfake's logger, passing on warnings and errors.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Logf(level kfake.LogLevel, msg string, args ...any) {
	switch level {
	case kfake.LogLevelError:
		s.l.Error("embedded broker: " + fmt.Sprintf(msg, args...))
	case kfake.LogLevelWarn:
		s.l.Warn("embedded broker: " + fmt.Sprintf(msg, args...))
	}
}
