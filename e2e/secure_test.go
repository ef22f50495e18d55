package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/kafkaconfig"
	"github.com/offsetlab/offsetlab/internal/testenv"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// startSecure returns the directory of the package's one secure cluster
// (`offsetlab-kafka start secure`: a single Apache Kafka 4.3.1 node with
// SASL_SSL, SCRAM-SHA-512 and PLAIN, and ACLs), started by the first test
// that asks and stopped by TestMain when every test is done. The tests
// sharing it keep to their own topics, groups, transactional ids and users
// (each named with randomSuffix), so one cluster serves them all: a JVM
// apiece would start six brokers at once on a two-core machine. It skips
// (fails under CI=true) when java or the Kafka jars are missing.
func startSecure(t *testing.T) string {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	if _, err := exec.LookPath("java"); err != nil {
		testenv.MissingSetup(t, "secure Kafka tests skipped: java is not installed (Java 17+ runs the brokers)")
	}
	if _, err := runHarness(t, "fetch"); err != nil {
		testenv.MissingSetup(t, "secure Kafka tests skipped: the Apache Kafka 4.3.1 jars are missing and `go run ./cmd/offsetlab-kafka fetch` failed (%v)", err)
	}
	secure.once.Do(func() {
		dir, err := os.MkdirTemp("", "offsetlab-secure-")
		if err != nil {
			secure.err = err
			return
		}
		begin := time.Now()
		if _, err := runHarness(t, "start", "secure", dir); err != nil {
			secure.err = fmt.Errorf("offsetlab-kafka start secure %s: %w", dir, err)
			os.RemoveAll(dir)
			return
		}
		secure.dir = dir
		t.Logf("secure cluster up in %v", time.Since(begin).Round(time.Millisecond))
	})
	if secure.err != nil {
		t.Fatal(secure.err)
	}
	return secure.dir
}

// secure is the package's one secure cluster, once started.
var secure struct {
	once sync.Once
	dir  string
	err  error
}

// stopSecure stops the secure cluster if a test started it and removes its
// directory.
func stopSecure() {
	if secure.dir == "" {
		return
	}
	cmd := exec.Command(kafkaRunner.bin, "stop", secure.dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "offsetlab-kafka stop %s: %v\n", secure.dir, err)
	}
	os.RemoveAll(secure.dir)
}

// secureClient loads a properties file and connects a client as it says.
func secureClient(t *testing.T, file string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cfg, err := kafkaconfig.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]kgo.Opt{kgo.SeedBrokers(cfg.BootstrapServers()...)}, cfg.Opts()...)
	cl, err := kgo.NewClient(append(all, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// readCommitted consumes topic from the start at read_committed until want
// records arrived or the deadline passed; it returns the values.
func readCommitted(t *testing.T, file, topic string, want int) []string {
	t.Helper()
	cl := secureClient(t, file, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []string
	for len(got) < want {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s read %q from %s, want %d records", filepath.Base(file), got, topic, want)
		}
		if errs := fetches.Errors(); len(errs) > 0 {
			t.Fatalf("%s fetch %s: %v", filepath.Base(file), topic, errs[0].Err)
		}
		fetches.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	return got
}

// withLine writes a copy of the properties file src into dir with the
// lines matching re replaced by line.
func withLine(t *testing.T, src, re, line string) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(re).ReplaceAllLiteralString(string(raw), line)
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// password returns NAME_PASSWORD from the secure cluster's secrets/passwords.env.
func password(t *testing.T, dir, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "secrets", "passwords.env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, name+"_PASSWORD="); ok {
			return v
		}
	}
	t.Fatalf("no %s_PASSWORD in passwords.env", name)
	return ""
}

// otherCA writes the certificate of a CA the broker's certificate does not
// chain to.
func otherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not the cluster's CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSecureCluster runs the secure shape against kafkaconfig: the admin
// creates a topic and writes transactions with admin.properties; the
// reader reads them with every properties file the runner wrote
// (SCRAM, PLAIN, librdkafka's spelling) and is refused writes; a wrong
// password and a wrong CA fail clearly; confluent-kafka reads the same
// records from the librdkafka file.
func TestSecureCluster(t *testing.T) {
	t.Parallel()
	dir := startSecure(t)
	admin := filepath.Join(dir, "admin.properties")
	topic := "secure-orders-" + randomSuffix(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// the admin creates the topic and commits, aborts and commits
	adm := kadm.NewClient(secureClient(t, admin))
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatalf("admin creates %s: %v", topic, err)
	}
	producer := secureClient(t, admin, kgo.TransactionalID("secure-tx-"+randomSuffix(t)), kgo.DefaultProduceTopic(topic))
	for _, txn := range []struct {
		values []string
		commit kgo.TransactionEndTry
	}{{[]string{"O-1", "O-2"}, kgo.TryCommit}, {[]string{"O-3"}, kgo.TryAbort}, {[]string{"O-4"}, kgo.TryCommit}} {
		if err := producer.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, v := range txn.values {
			if err := producer.ProduceSync(ctx, kgo.StringRecord(v)).FirstErr(); err != nil {
				t.Fatalf("admin produces %s: %v", v, err)
			}
		}
		if err := producer.EndTransaction(ctx, txn.commit); err != nil {
			t.Fatalf("admin ends the transaction: %v", err)
		}
	}
	want := []string{"O-1", "O-2", "O-4"}
	if got := readCommitted(t, admin, topic, len(want)); !slices.Equal(got, want) {
		t.Fatalf("admin reads %q, want %q", got, want)
	}

	t.Run("reader reads with every file the runner wrote", func(t *testing.T) {
		for _, f := range []string{"reader.properties", "reader-plain.properties", "reader.librdkafka.properties"} {
			if got := readCommitted(t, filepath.Join(dir, f), topic, len(want)); !slices.Equal(got, want) {
				t.Errorf("%s reads %q, want %q", f, got, want)
			}
		}
	})

	t.Run("reader may not write", func(t *testing.T) {
		reader := secureClient(t, filepath.Join(dir, "reader.properties"), kgo.DefaultProduceTopic(topic),
			kgo.DisableIdempotentWrite(), kgo.RecordRetries(1))
		err := reader.ProduceSync(ctx, kgo.StringRecord("forbidden")).FirstErr()
		if !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("reader produces: %v, want TOPIC_AUTHORIZATION_FAILED", err)
		}
		_, err = kadm.NewClient(reader).CreateTopic(ctx, 1, 1, nil, topic+"-new")
		if !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Fatalf("reader creates a topic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
		}
	})

	t.Run("wrong password", func(t *testing.T) {
		for _, tc := range []struct{ file, re, line string }{
			{"reader.properties", `(?m)^sasl\.jaas\.config=.*$`,
				`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="reader" password="not-the-password";`},
			{"reader.librdkafka.properties", `(?m)^sasl\.password=.*$`, "sasl.password=not-the-password"},
		} {
			cl := secureClient(t, withLine(t, filepath.Join(dir, tc.file), tc.re, tc.line))
			err := cl.Ping(ctx)
			if !errors.Is(err, kerr.SaslAuthenticationFailed) {
				t.Fatalf("%s with a wrong password: %v, want SASL_AUTHENTICATION_FAILED", tc.file, err)
			}
			if strings.Contains(err.Error(), "not-the-password") || strings.Contains(err.Error(), password(t, dir, "READER")) {
				t.Errorf("the error shows a password: %v", err)
			}
		}
	})

	t.Run("wrong CA", func(t *testing.T) {
		cl := secureClient(t, withLine(t, filepath.Join(dir, "reader.properties"), `(?m)^ssl\.truststore\.location=.*$`,
			"ssl.truststore.location="+otherCA(t)))
		err := cl.Ping(ctx)
		var unknown x509.UnknownAuthorityError
		if !errors.As(err, &unknown) {
			t.Fatalf("reader with a CA that did not sign the broker's certificate: %v, want x509: certificate signed by unknown authority", err)
		}
	})

	t.Run("runner status", func(t *testing.T) {
		if out := harness(t, "status", dir); !strings.Contains(out, "serving") {
			t.Errorf("offsetlab-kafka status: %s", out)
		}
	})

	t.Run("confluent-kafka reads with the librdkafka file", func(t *testing.T) {
		python := pythonPath(t, "confluent-kafka check")
		got := pythonReadProperties(t, python, filepath.Join(dir, "reader.librdkafka.properties"), topic, len(want))
		if !slices.Equal(got, want) {
			t.Errorf("confluent-kafka reads %q, want %q", got, want)
		}
	})
}

// pythonReadProperties has confluent-kafka read topic at read_committed
// with the settings of a librdkafka properties file, unchanged, and
// returns the values.
func pythonReadProperties(t *testing.T, python, file, topic string, want int) []string {
	t.Helper()
	const script = `
import json, sys, time
from confluent_kafka import Consumer, TopicPartition
conf = {}
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if line and not line.startswith("#"):
        k, v = line.split("=", 1)
        conf[k.strip()] = v.strip()
conf.update({"group.id": "offsetlab-secure-check", "enable.auto.commit": False,
             "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
c = Consumer(conf)
c.assign([TopicPartition(sys.argv[2], 0, 0)])
out, deadline = [], time.time() + 30
while len(out) < int(sys.argv[3]) and time.time() < deadline:
    m = c.poll(0.5)
    if m is None:
        continue
    if m.error():
        raise SystemExit(str(m.error()))
    out.append(m.value().decode())
c.close()
print(json.dumps(out))
`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", script, file, topic, fmt.Sprint(want))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("confluent-kafka: %v\n%s", err, stderr.String())
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("confluent-kafka printed %q: %v", out, err)
	}
	return got
}
