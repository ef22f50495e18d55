package localkafka

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

func TestReaderACLs(t *testing.T) {
	t.Parallel()
	acls, err := readerACLs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acls {
		got = append(got, a.Resource.String()+" "+a.Name+" "+a.Operation.String())
	}
	want := "TOPIC * DESCRIBE, TOPIC * READ, TOPIC * DESCRIBE_CONFIGS, GROUP * DESCRIBE, GROUP * READ, TRANSACTIONAL_ID * DESCRIBE"
	if strings.Join(got, ", ") != want {
		t.Errorf("reader ACLs:\n got  %s\n want %s", strings.Join(got, ", "), want)
	}
}

// scramClient logs in to c as user with SCRAM-SHA-512 over TLS.
func scramClient(t *testing.T, c *Cluster, user, password string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	tlsCfg, err := c.clientTLS()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Brokers()...), kgo.DialTLSConfig(tlsCfg),
		kgo.SASL(scram.Auth{User: user, Pass: password}.AsSha512Mechanism())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestSecureShape: the secure node serves only SASL_SSL; its files are
// private; admin (SCRAM) creates a topic and writes; reader reads but may
// not write; a restart in the same directory keeps users and ACLs.
func TestSecureShape(t *testing.T) {
	cfg := realKafka(t)
	cfg.Shape = Secure
	c := startCluster(t, cfg)
	for name, mode := range map[string]os.FileMode{".": 0o700, "secrets": 0o700, "ca.pem": 0o644, "admin.properties": 0o600,
		"reader.properties": 0o600, "reader-plain.properties": 0o600, "reader.librdkafka.properties": 0o600,
		"secrets/passwords.env": 0o600, "secrets/server.p12": 0o600, "secrets/broker_jaas.conf": 0o600} {
		st, err := os.Stat(filepath.Join(c.Dir(), name))
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v, %v; want mode %v", name, st.Mode().Perm(), err, mode)
		}
	}
	topic := "secure-kept"
	admin := scramClient(t, c, adminUser, c.secrets.Admin, kgo.DefaultProduceTopic(topic))
	if _, err := kadm.NewClient(admin).CreateTopic(t.Context(), 1, 1, nil, topic); err != nil {
		t.Fatalf("admin creates a topic: %v", err)
	}
	if err := admin.ProduceSync(t.Context(), kgo.StringRecord("v")).FirstErr(); err != nil {
		t.Fatalf("admin writes: %v", err)
	}
	reader := scramClient(t, c, readerUser, c.secrets.Reader, kgo.DefaultProduceTopic(topic), kgo.DisableIdempotentWrite(), kgo.RecordRetries(1))
	if err := reader.ProduceSync(t.Context(), kgo.StringRecord("forbidden")).FirstErr(); !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("reader writes: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	ends, err := kadm.NewClient(reader).ListEndOffsets(t.Context(), topic)
	if o, _ := ends.Lookup(topic, 0); err != nil || o.Err != nil || o.Offset != 1 {
		t.Fatalf("reader lists the end offset: %+v, %v; want 1", o, err)
	}
	plaintext, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DialTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer plaintext.Close()
	if err := plaintext.Ping(t.Context()); err == nil {
		t.Error("a plaintext client without a login was answered")
	}
	plaintext.Close()

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = startCluster(t, cfg)
	reader = scramClient(t, c, readerUser, c.secrets.Reader)
	if _, err := kadm.NewClient(reader).ListEndOffsets(t.Context(), topic); err != nil {
		t.Fatalf("reader after a restart: %v", err)
	}
}
