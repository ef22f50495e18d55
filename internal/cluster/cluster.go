// Package cluster connects Offset Lab to Kafka: either an embedded,
// in-process Kafka-protocol broker (franz-go's kfake, persisted under a data
// directory) or a real cluster named by its bootstrap brokers.
//
// A Cluster hands out kgo client options so that every other package talks
// to the same brokers the same way; it owns one shared client for metadata
// and admin requests. Close releases the shared client and, in embedded
// mode, flushes the broker's state to disk and stops it.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Mode says which kind of broker a Cluster talks to.
type Mode string

const (
	// Embedded is the in-process kfake broker.
	Embedded Mode = "embedded"
	// External is a real Kafka cluster reached over the network.
	External Mode = "external"
)

// Cluster is a connection to the brokers the dashboard inspects and drives.
type Cluster struct {
	mode    Mode
	brokers []string
	// auth are the client options of a secured cluster (SASL, client
	// id), dial how to reach a broker (TLS); both empty for plaintext.
	auth     []kgo.Opt
	dial     func(ctx context.Context, network, host string) (net.Conn, error)
	security Security
	fake     *kfake.Cluster
	port     *guardListener // the embedded broker's guarded Kafka port
	budget   *dataBudget    // the embedded broker's data budget (budget.go)
	dataDir  string         // the embedded broker's data directory; empty in memory
	topics   TopicLimits    // the embedded broker's caps; zero for a real cluster
	closing  sync.Once
	client   *kgo.Client
	admin    *kadm.Client
	// rights is the client that asks what the dashboard's user may do
	// (rights.go), made on first use and closed with the Cluster.
	rightsMu sync.Mutex
	rights   *kgo.Client
}

// EmbeddedConfig configures the embedded broker.
type EmbeddedConfig struct {
	// KafkaAddr is the host:port where the broker accepts Kafka clients.
	// Port 0 picks a free port; Brokers reports the bound address.
	KafkaAddr string
	// Listener, when set, is the Kafka port already bound (cmd/server
	// binds its ports before loading anything, so that a port in use
	// fails at once); KafkaAddr is then ignored. StartEmbedded takes it
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

// closeListener closes a Listener given to StartEmbedded, if any.
func closeListener(ln net.Listener) {
	if ln != nil {
		ln.Close()
	}
}

// StartEmbedded starts an in-process Kafka-protocol broker listening on
// cfg.KafkaAddr and reloads any state persisted under cfg.DataDir. The
// Kafka port is guarded (guard.go): a client can close its own connection
// by misbehaving, never the process, and what it can make the broker hold
// is bounded by cfg.Limits.
// The caller must Close the returned Cluster to flush state to disk.
func StartEmbedded(cfg EmbeddedConfig) (*Cluster, error) {
	addr := cfg.KafkaAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	limits, err := cfg.Limits.withDefaults()
	if err != nil {
		closeListener(cfg.Listener)
		return nil, err
	}
	topicLimits, err := cfg.Topics.withDefaults()
	if err != nil {
		closeListener(cfg.Listener)
		return nil, err
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
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.StorageHook(budget.hooks()),
		kfake.ListenFn(listen),
		kfake.ClusterID("offset-lab-embedded"),
		kfake.DefaultNumPartitions(1),
		kfake.AllowAutoTopicCreation(),
		kfake.TopicLimits(topicLimits.MaxTopics, topicLimits.MaxPartitions),
		// Kafka's own defaults, so lessons show the timeouts a real
		// broker would apply.
		kfake.BrokerConfigs(map[string]string{
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
		}),
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
			return nil, err
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
			return nil, err
		}
	}
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		closeListener(cfg.Listener) // a second Close of it only errs
		if !unclean && cfg.DataDir != "" {
			unmarkRunning(cfg.DataDir)
		}
		return nil, fmt.Errorf("cluster: start embedded broker: %w", err)
	}
	api, err := guard.learnAPIRanges(10 * time.Second)
	if err != nil {
		fake.Close()
		if !unclean && cfg.DataDir != "" {
			unmarkRunning(cfg.DataDir)
		}
		return nil, fmt.Errorf("cluster: start embedded broker: %w", err)
	}
	// The students' topic shares count with the dashboard's own client,
	// which exists only once the broker serves: until then they let
	// requests through (the broker's caps still hold).
	var counter atomic.Pointer[Cluster]
	guard.shares = &studentShares{limits: topicLimits, partitions: func(ctx context.Context) (map[string]int, error) {
		if c := counter.Load(); c != nil {
			return c.topicPartitions(ctx)
		}
		return nil, errors.New("cluster: not serving yet")
	}}
	if cfg.Students != nil {
		guard.producerIDs, guard.superuser = newUserRates(producerIDBurst, producerIDEvery), cfg.Students.Admin
	}
	guard.start(api)
	c, err := newCluster(&Cluster{mode: Embedded, brokers: fake.ListenAddrs(), auth: auth, security: cfg.Students.security()})
	if err != nil {
		fake.Close()
		return nil, err
	}
	c.fake, c.port, c.budget, c.dataDir, c.topics = fake, guard, budget, cfg.DataDir, topicLimits
	counter.Store(c)
	if unclean {
		log := cfg.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		ctx, cancel := context.WithTimeout(context.Background(), recoverTimeout)
		defer cancel()
		if _, err := abortOrphanedTransactions(ctx, c, log); err != nil {
			c.Close()
			return nil, fmt.Errorf("cluster: recover %s after an unclean shutdown: %w", cfg.DataDir, err)
		}
	}
	return c, nil
}

// Security says how Offset Lab connects to a secured cluster, without a
// secret: what /api/cluster reports. It is zero for a plaintext cluster.
type Security struct {
	Protocol   string   `json:"protocol,omitempty"`
	Mechanism  string   `json:"mechanism,omitempty"`
	User       string   `json:"user,omitempty"`
	ServerCAs  []string `json:"serverCAs,omitempty"`
	ClientCert string   `json:"clientCertificate,omitempty"`
	// CommandConfig is the absolute path of the properties file the
	// dashboard connects with (--command-config), which the commands the
	// pages print pass to Kafka's tools; the path only, never its content.
	CommandConfig string `json:"commandConfig,omitempty"`
}

// ExternalConfig says how to reach a real cluster.
type ExternalConfig struct {
	Brokers []string
	// Auth are client options every client adds (SASL, client id), and
	// Dial opens a connection to a broker (TLS); both nil for plaintext.
	Auth []kgo.Opt
	Dial func(ctx context.Context, network, host string) (net.Conn, error)
	// Security describes the connection for the page, without secrets.
	Security Security
}

// ConnectExternal connects to a real Kafka cluster. It does not fail when
// the brokers are unreachable at start: requests fail later with
// problem.Unavailable errors and succeed once the brokers are back.
func ConnectExternal(cfg ExternalConfig) (*Cluster, error) {
	var clean []string
	for _, b := range cfg.Brokers {
		if b = strings.TrimSpace(b); b != "" {
			clean = append(clean, b)
		}
	}
	if len(clean) == 0 {
		return nil, errors.New("cluster: no brokers given")
	}
	return newCluster(&Cluster{mode: External, brokers: clean, auth: cfg.Auth, dial: cfg.Dial, security: cfg.Security})
}

func newCluster(c *Cluster) (*Cluster, error) {
	brokers := c.brokers
	client, err := kgo.NewClient(c.ClientOpts()...)
	if err != nil {
		return nil, fmt.Errorf("cluster: create client for %s: %w", strings.Join(brokers, ","), err)
	}
	c.client = client
	c.admin = kadm.NewClient(client)
	return c, nil
}

// Mode reports whether the cluster is embedded or external.
func (c *Cluster) Mode() Mode { return c.mode }

// Brokers returns the bootstrap addresses. For the embedded broker this is
// the address it really bound, which is also where external Kafka clients
// should connect.
func (c *Cluster) Brokers() []string { return append([]string(nil), c.brokers...) }

// ClientOpts returns the options every kgo client of this cluster starts
// from: the seed brokers, conservative timeouts so an unreachable broker
// fails a request in seconds rather than hanging a page, and, for a secured
// cluster, SASL and the TLS dialer.
func (c *Cluster) ClientOpts() []kgo.Opt {
	opts := c.ProducerOpts()
	if c.dial != nil {
		opts = append(opts, kgo.Dialer(c.dial))
	}
	return opts
}

// ProducerOpts are ClientOpts without the dialer, for the producers, which
// dial through their fault layer and then through Dial.
func (c *Cluster) ProducerOpts() []kgo.Opt {
	return append([]kgo.Opt{
		kgo.SeedBrokers(c.brokers...),
		kgo.ClientID("offset-lab"),
		kgo.DialTimeout(3 * time.Second),
		kgo.RetryTimeout(10 * time.Second),
		kgo.MetadataMinAge(250 * time.Millisecond),
	}, c.auth...)
}

// Dial opens a connection to a broker as the cluster requires (TLS for a
// secured cluster, plain TCP otherwise), for clients with a dial layer of
// their own (see ProducerOpts).
func (c *Cluster) Dial(ctx context.Context, network, host string) (net.Conn, error) {
	if c.dial != nil {
		return c.dial(ctx, network, host)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, host)
}

// Budget is the embedded broker's data budget and what its stored data
// costs now; false for a real cluster, which has none of ours.
func (c *Cluster) Budget() (BudgetStatus, bool) {
	if c.budget == nil {
		return BudgetStatus{}, false
	}
	return c.budget.status(c.fake.StorageUsage()), true
}

// Security describes how the cluster is reached, without secrets.
func (c *Cluster) Security() Security { return c.security }

// Client is the shared client for metadata, fetches and admin requests.
// It is owned by the Cluster: do not Close it.
func (c *Cluster) Client() *kgo.Client { return c.client }

// Admin is the shared admin client. It is owned by the Cluster.
func (c *Cluster) Admin() *kadm.Client { return c.admin }

// Ping checks that at least one broker answers within ctx.
func (c *Cluster) Ping(ctx context.Context) error {
	if err := c.client.Ping(ctx); err != nil {
		return problem.BrokerUnreachable(err)
	}
	return nil
}

// Close closes the shared client and, in embedded mode, persists the
// broker's state, stops it and marks its data directory as cleanly shut
// down. Calls after the first do nothing.
func (c *Cluster) Close() {
	c.closing.Do(func() {
		c.rightsMu.Lock()
		if c.rights != nil {
			c.rights.Close()
		}
		c.rightsMu.Unlock()
		c.client.Close()
		if c.fake != nil {
			c.fake.Close()
			if c.dataDir != "" {
				unmarkRunning(c.dataDir)
			}
		}
	})
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
