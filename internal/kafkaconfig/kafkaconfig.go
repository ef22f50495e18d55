// Package kafkaconfig reads a Kafka client properties file — the file
// kafka-*.sh --command-config takes, or the one kcat -F and confluent-kafka
// are given — and turns it into what a franz-go client needs to reach that
// cluster: bootstrap servers, TLS and SASL. That is its one job; it opens
// no connection itself.
//
// Both spellings are read: Java's (security.protocol, sasl.mechanism,
// sasl.jaas.config with PlainLoginModule or ScramLoginModule,
// ssl.truststore.* and ssl.keystore.* as PEM or PKCS12, inline PEM in
// ssl.truststore.certificates, ssl.keystore.certificate.chain and
// ssl.keystore.key, ssl.endpoint.identification.algorithm) and
// librdkafka's (sasl.mechanisms, sasl.username, sasl.password,
// ssl.ca.location, ssl.ca.pem, ssl.certificate.location, ssl.key.location,
// ssl.key.pem, ssl.key.password, ssl.keystore.location as PKCS12,
// enable.ssl.certificate.verification, and "none" for
// ssl.endpoint.identification.algorithm). The file's syntax is that of
// java.util.Properties. Relative paths resolve against the working
// directory, as Kafka's tools and librdkafka resolve them.
//
// What is refused, at Load and all at once for the keys: unknown keys
// (typos), keys Offset Lab cannot honour (Java callback and engine
// classes, OpenSSL engines, CRLs), SASL mechanisms other than PLAIN,
// SCRAM-SHA-256 and SCRAM-SHA-512, JKS and JCEKS stores (with the keytool
// command that converts them), settings that the chosen security.protocol
// would not use, and two spellings of one setting that disagree. Common
// producer, consumer and client tuning keys (acks, group.id,
// request.timeout.ms, linger.ms, …) are accepted and not applied, since
// Offset Lab chooses those per action; Describe lists them. client.id is
// applied.
//
// Every error wraps ErrInvalid, is an *problem.Error naming the file, line and key,
// and carries a catalogue key (internal/uikey). No error, Describe or
// String ever contains a password, a private key or a JAAS line.
package kafkaconfig

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Security protocols, as security.protocol spells them.
const (
	Plaintext     = "PLAINTEXT"
	SSL           = "SSL"
	SASLPlaintext = "SASL_PLAINTEXT"
	SASLSSL       = "SASL_SSL"
)

// SASL mechanisms Offset Lab speaks, as sasl.mechanism spells them.
const (
	MechanismPlain       = "PLAIN"
	MechanismSCRAMSHA256 = "SCRAM-SHA-256"
	MechanismSCRAMSHA512 = "SCRAM-SHA-512"
)

// The login modules of sasl.jaas.config.
const (
	plainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule"
	scramLoginModule = "org.apache.kafka.common.security.scram.ScramLoginModule"
)

// dialTimeout is kgo's default dial timeout, kept for DialContext.
const dialTimeout = 10 * time.Second

// Config is a loaded properties file: how to reach and authenticate to
// one cluster. It is immutable and safe for concurrent use. Printing it
// (fmt, slog) shows Describe, never a secret.
type Config struct {
	file      string
	brokers   []string
	clientID  string
	protocol  string
	mechanism string
	user      string
	secret    *credentials // behind a pointer so that %+v of a Config prints an address
	tls       *tls.Config  // nil without TLS
	desc      Description
	// registryURL and registryUser are the Schema Registry's address and
	// basic-auth user (schema.registry.url, basic.auth.user.info or
	// schema.registry.basic.auth.user.info); its password is in secret.
	registryURL, registryUser string
}

// credentials hold what must never be printed.
type credentials struct {
	password         string
	registryPassword string
	tokenAuth        bool // SCRAM with a delegation token (tokenauth=true)
}

// String is Describe's summary; it never shows a secret.
func (*credentials) String() string { return "[redacted]" }

// Description says how a Config connects, with nothing secret in it: what
// the dashboard may show and log.
type Description struct {
	// File is the properties file as given to Load.
	File string `json:"file"`
	// SecurityProtocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
	SecurityProtocol string `json:"securityProtocol"`
	// SASLMechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; empty
	// without SASL.
	SASLMechanism string `json:"saslMechanism,omitempty"`
	// User is the SASL user name; empty without SASL.
	User string `json:"user,omitempty"`
	// TLS is true for SSL and SASL_SSL.
	TLS bool `json:"tls"`
	// ServerCAs are the subjects of the CA certificates the file trusts;
	// empty with TLS means the system's roots.
	ServerCAs []string `json:"serverCAs,omitempty"`
	// ClientCertificate is the subject of the certificate presented for
	// mutual TLS; empty when none.
	ClientCertificate string `json:"clientCertificate,omitempty"`
	// HostnameVerification is false when the file turns the server name
	// check off (ssl.endpoint.identification.algorithm empty or none).
	HostnameVerification bool `json:"hostnameVerification"`
	// CertificateVerification is false when the file turns certificate
	// checks off (enable.ssl.certificate.verification=false).
	CertificateVerification bool `json:"certificateVerification"`
	// IgnoredKeys are the keys the file sets that Offset Lab accepts but
	// does not apply, sorted.
	IgnoredKeys []string `json:"ignoredKeys,omitempty"`
}

// String is a one-line summary such as
// "SASL_SSL, SCRAM-SHA-512 as reader, TLS trusting CN=ca".
func (d Description) String() string {
	s := d.SecurityProtocol
	if d.SASLMechanism != "" {
		s += ", " + d.SASLMechanism + " as " + d.User
	}
	if d.TLS {
		switch {
		case !d.CertificateVerification:
			s += ", TLS without certificate verification"
		case len(d.ServerCAs) == 0:
			s += ", TLS trusting the system's CAs"
		case len(d.ServerCAs) > 3:
			s += fmt.Sprintf(", TLS trusting %s and %d more CAs", strings.Join(d.ServerCAs[:3], "; "), len(d.ServerCAs)-3)
		default:
			s += ", TLS trusting " + strings.Join(d.ServerCAs, "; ")
		}
		if d.CertificateVerification && !d.HostnameVerification {
			s += " without host name verification"
		}
		if d.ClientCertificate != "" {
			s += ", client certificate " + d.ClientCertificate
		}
	}
	if len(d.IgnoredKeys) > 0 {
		s += " (ignored: " + strings.Join(d.IgnoredKeys, ", ") + ")"
	}
	return s
}

// BootstrapServers returns the host:port list of bootstrap.servers (or
// librdkafka's metadata.broker.list); nil when the file sets none.
func (c *Config) BootstrapServers() []string { return slices.Clone(c.brokers) }

// Describe says how c connects, without secrets.
func (c *Config) Describe() Description {
	d := c.desc
	d.ServerCAs = slices.Clone(d.ServerCAs)
	d.IgnoredKeys = slices.Clone(d.IgnoredKeys)
	return d
}

// SchemaRegistry is the Schema Registry the file names (schema.registry.url,
// "" when none) and the basic-auth user and password for it
// (basic.auth.user.info or schema.registry.basic.auth.user.info, "user:password").
func (c *Config) SchemaRegistry() (url, user, password string) {
	return c.registryURL, c.registryUser, c.secret.registryPassword
}

// String is Describe's summary.
func (c *Config) String() string { return c.desc.String() }

// GoString is Describe's summary too, so that %#v shows no secret.
func (c *Config) GoString() string { return "kafkaconfig.Config{" + c.desc.String() + "}" }

// LogValue logs the Description.
func (c *Config) LogValue() slog.Value { return slog.AnyValue(c.Describe()) }

// TLSConfig returns a copy of the TLS settings, or nil without TLS.
// ServerName is empty: DialContext sets it per broker.
func (c *Config) TLSConfig() *tls.Config {
	if c.tls == nil {
		return nil
	}
	return c.tls.Clone()
}

// Opts returns the kgo options that make a client connect as the file
// says: client.id, a dialer that speaks TLS when the protocol is SSL or
// SASL_SSL (kgo.Dialer(c.DialContext)), and the SASL mechanism. It does not
// set the seed brokers (see BootstrapServers). A client that needs its own
// kgo.Dialer, say one that injects faults into Kafka frames, passes it
// after these options and dials through c.DialContext itself, so that it
// wraps the decrypted connection.
func (c *Config) Opts() []kgo.Opt {
	opts := c.AuthOpts()
	if d := c.Dialer(); d != nil {
		opts = append(opts, kgo.Dialer(d))
	}
	return opts
}

// AuthOpts are Opts without the dialer: the client id and the SASL
// mechanism. A client that dials through a layer of its own (Offset Lab's
// fault injection) uses these and Dialer.
func (c *Config) AuthOpts() []kgo.Opt {
	var opts []kgo.Opt
	if c.clientID != "" {
		opts = append(opts, kgo.ClientID(c.clientID))
	}
	if m := c.saslMechanism(); m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	return opts
}

// Dialer is DialContext when the file asks for TLS, else nil (plain TCP).
func (c *Config) Dialer() func(ctx context.Context, network, host string) (net.Conn, error) {
	if c.tls == nil {
		return nil
	}
	return c.DialContext
}

func (c *Config) saslMechanism() sasl.Mechanism {
	if c.mechanism == "" {
		return nil
	}
	switch c.mechanism {
	case MechanismPlain:
		return plain.Auth{User: c.user, Pass: c.secret.password}.AsMechanism()
	case MechanismSCRAMSHA256:
		return scram.Auth{User: c.user, Pass: c.secret.password, IsToken: c.secret.tokenAuth}.AsSha256Mechanism()
	default:
		return scram.Auth{User: c.user, Pass: c.secret.password, IsToken: c.secret.tokenAuth}.AsSha512Mechanism()
	}
}

// DialContext connects to host ("host:port") and, when the file asks for
// TLS, completes the TLS handshake with the host's name as ServerName; it
// has the signature kgo.Dialer takes. The dial times out after 10 s, as
// kgo's own dialer does.
func (c *Config) DialContext(ctx context.Context, network, host string) (net.Conn, error) {
	d := &net.Dialer{Timeout: dialTimeout}
	if c.tls == nil {
		return d.DialContext(ctx, network, host)
	}
	cfg := c.tls.Clone()
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		return nil, fmt.Errorf("kafkaconfig: dial %s: %w", host, err)
	}
	cfg.ServerName = name
	return (&tls.Dialer{NetDialer: d, Config: cfg}).DialContext(ctx, network, host)
}
