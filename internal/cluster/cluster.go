// Package cluster administers the cluster Offset Lab shows, whichever it
// is — the embedded broker (internal/embedded starts it and hands it over
// with OnEmbedded) or a real cluster named by its bootstrap brokers — through
// the Kafka protocol alone: topics, groups, transactions, topic configs,
// students' users and ACLs. It never imports kfake (TestNoKfake): what it
// reports of the embedded broker beyond the protocol, it asks through the
// EmbeddedBroker interface.
//
// A Cluster hands out kgo client options so that every other package talks
// to the same brokers the same way; it owns one shared client for metadata
// and admin requests. Close releases the shared client and, in embedded
// mode, closes the broker, which flushes its state to disk and stops it.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Mode says which kind of broker a Cluster talks to.
type Mode string

const (
	// Embedded is the in-process broker internal/embedded starts.
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
	broker   EmbeddedBroker // the embedded broker (internal/embedded); nil for a real cluster
	closing  sync.Once
	client   *kgo.Client
	admin    *kadm.Client
	// rights is the client that asks what the dashboard's user may do
	// (rights.go), made on first use and closed with the Cluster.
	rightsMu sync.Mutex
	rights   *kgo.Client
	// groupSnapshot is every group's committed offsets, read once for
	// all the partitions watched (PartitionGroups).
	groupSnapshot sharedSnapshot[groupOffsetsByPartition]
	// shareSnapshot is which share groups have a start offset on each
	// partition, read once for all the partitions watched (ShareGroupsOn).
	shareSnapshot sharedSnapshot[shareGroupsByPartition]
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
		if c.broker != nil {
			c.broker.Close()
		}
	})
}
