package e2e

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/kafkaconfig"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// connectWith connects to the secure cluster as a properties file says,
// the way the server's --command-config does.
func connectWith(t *testing.T, file string) (*cluster.Cluster, *kafkaconfig.Config) {
	t.Helper()
	cfg, err := kafkaconfig.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Describe()
	c, err := cluster.ConnectExternal(cluster.ExternalConfig{
		Brokers: cfg.BootstrapServers(), Auth: cfg.AuthOpts(), Dial: cfg.Dialer(),
		Security: cluster.Security{Protocol: d.SecurityProtocol, Mechanism: d.SASLMechanism, User: d.User},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, cfg
}

// TestHandsOnSecureCluster: on real Kafka with SASL_SSL, SCRAM-SHA-512 and
// ACLs, a class whose dashboard runs as the admin makes each student's
// SCRAM user and prefix ACLs itself (AlterUserScramCredentials,
// CreateAcls): a student logs in, creates and writes their own topic and
// is graded ✓, and is refused another's topic and transactional id. A
// dashboard running as the read-only user cannot: its students get their
// names only (managed false).
func TestHandsOnSecureCluster(t *testing.T) {
	t.Parallel()
	dir := startSecure(t)
	kafka, adminCfg := connectWith(t, filepath.Join(dir, "admin.properties"))
	sec := kafka.Security()
	class := exercises.NewClass(exercises.ClassConfig{Users: kafka, Bootstrap: kafka.Brokers(), SecurityProtocol: sec.Protocol, Mechanism: sec.Mechanism})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	suffix := randomSuffix(t)[:6]
	ann, err := class.Join(ctx, "ann"+suffix)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := class.Join(ctx, "bob"+suffix)
	if err != nil {
		t.Fatal(err)
	}
	if !ann.Kafka.Managed || ann.Kafka.SASLMechanism != "SCRAM-SHA-512" || ann.Kafka.SecurityProtocol != "SASL_SSL" {
		t.Fatalf("a managed student on the secure cluster: %+v", ann.Kafka)
	}
	// The dashboard set ann's quotas (AlterClientQuotas on her user).
	annUser := ann.Kafka.Username
	quotas, err := kafka.Admin().DescribeClientQuotas(ctx, true, []kadm.DescribeClientQuotaComponent{{Type: "user", MatchName: &annUser}})
	want := map[string]float64{"producer_byte_rate": cluster.StudentProduceBytesPerSecond, "consumer_byte_rate": cluster.StudentFetchBytesPerSecond, "controller_mutation_rate": cluster.StudentMutationsPerSecond}
	got := map[string]float64{}
	for _, q := range quotas {
		for _, v := range q.Values {
			got[v.Key] = v.Value
		}
	}
	if err != nil || !ann.Kafka.Quotas || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ann's quotas: %v %v (quotas %v), want %v", got, err, ann.Kafka.Quotas, want)
	}
	student := func(s exercises.Student, opts ...kgo.Opt) *kgo.Client {
		base := []kgo.Opt{kgo.SeedBrokers(kafka.Brokers()...), kgo.DialTLSConfig(adminCfg.TLSConfig()),
			kgo.SASL(scram.Auth{User: s.Kafka.Username, Pass: s.Kafka.Password}.AsSha512Mechanism())}
		cl, err := kgo.NewClient(append(base, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	ex, _ := exercises.Find("commit")
	annNames, bobNames := ex.NamesFor(ann.Name), ex.NamesFor(bob.Name)
	for _, s := range []exercises.Student{ann, bob} {
		n := ex.NamesFor(s.Name)
		if _, err := kadm.NewClient(student(s)).CreateTopic(ctx, 1, 1, nil, n.Topic); err != nil {
			t.Fatalf("%s creates %s: %v", s.Name, n.Topic, err)
		}
	}
	txn := student(ann, kgo.TransactionalID(annNames.TransactionalID))
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produceAll(t, txn, annNames.Topic, "a", "b", "c")
	if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	l := lab.New(lab.Config{Cluster: kafka})
	t.Cleanup(l.Close)
	if err := waitGraded(ctx, l, ex, ann.Name, "committed=ok readCommitted=ok"); err != nil {
		t.Error(err)
	}

	err = student(ann).ProduceSync(ctx, &kgo.Record{Topic: bobNames.Topic, Value: []byte("not mine")}).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("ann writing bob's topic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	foreign := student(ann, kgo.TransactionalID(bobNames.TransactionalID))
	err = foreign.BeginTransaction()
	if err == nil {
		err = foreign.ProduceSync(ctx, &kgo.Record{Topic: annNames.Topic, Value: []byte("x")}).FirstErr()
	}
	if !errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
		t.Errorf("ann using bob's transactional id: %v, want TRANSACTIONAL_ID_AUTHORIZATION_FAILED", err)
	}

	// The namespace rule in the ACLs the dashboard made: names a lesson
	// makes after ann joined, starting with ann's name, stay out of
	// her reach (under ACLs on "<name>-" she owned them).
	lessonTopic := ann.Name + "-totals-tx-1a2b"
	if _, err := kafka.CreateTopic(ctx, cluster.TopicSpec{Name: lessonTopic, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	if err := kafka.Client().ProduceSync(ctx, &kgo.Record{Topic: lessonTopic, Value: []byte("lesson's")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, f := range attackNames(ctx, student(ann), annNames.Topic, []string{lessonTopic}, []string{lessonTopic, ann.Name + "-totals-app-1a2b"}) {
		t.Errorf("ann on a lesson's names: not refused: %s", f)
	}

	reader, _ := connectWith(t, filepath.Join(dir, "reader.properties"))
	readerClass := exercises.NewClass(exercises.ClassConfig{Users: reader, Bootstrap: reader.Brokers(), SecurityProtocol: "SASL_SSL", Mechanism: "SCRAM-SHA-512"})
	carol, err := readerClass.Join(ctx, "carol"+suffix)
	if err != nil {
		t.Fatalf("join on a dashboard that may not make users: %v", err)
	}
	if carol.Kafka.Managed || carol.Kafka.Quotas || carol.Kafka.Password != "" || carol.Kafka.Topic != cluster.StudentPrefix(carol.Name) {
		t.Errorf("an unmanaged student: %+v", carol.Kafka)
	}
}

// waitGraded grades a student until the verdicts read want or ctx ends.
func waitGraded(ctx context.Context, b exercises.Broker, ex exercises.Exercise, student, want string) error {
	var got string
	err := wait.Until(ctx, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		got = apiVerdicts(exercises.Grade(ctx, b, ex, student, 0))
		return got == want, nil
	})
	if err != nil {
		return fmt.Errorf("%s of %s: %s, want %s (%w)", ex.ID, student, got, want, err)
	}
	return nil
}

// apiVerdicts is r as "key=ok" or "key=hint" per check.
func apiVerdicts(r exercises.Result) string {
	out := ""
	for i, c := range r.Checks {
		if i > 0 {
			out += " "
		}
		v := "ok"
		if !c.OK {
			v = strings.TrimPrefix(c.Hint.Key, "exercise.hint.")
		}
		out += c.Key + "=" + v
	}
	return out
}
