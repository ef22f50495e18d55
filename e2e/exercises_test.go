package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/offsetlab/offsetlab/internal/cluster"
	embeddedbroker "github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
	"github.com/offsetlab/offsetlab/web"
)

// handsOn is Offset Lab in classroom mode with a class and its grader.
type handsOn struct {
	t      *testing.T
	kafka  *cluster.Cluster
	url    string
	srv    *web.Server
	kind   brokerKind
	suffix string
}

// startHandsOn serves a hands-on class over kind's broker: on the
// embedded broker a classroom's Kafka port (SASL, ACLs, a user per
// student), on real Kafka the plaintext cluster with names only.
func startHandsOn(t *testing.T, kind brokerKind) *handsOn {
	t.Helper()
	var kafka *cluster.Cluster
	cfg := exercises.ClassConfig{SharedTopics: []string{"orders"}}
	if kind == embedded {
		var err error
		kafka, err = embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: "127.0.0.1:0", Students: &embeddedbroker.StudentAuth{Admin: "offsetlab-admin", AdminPassword: "e2e-admin"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(kafka.Close)
		cfg.Users, cfg.SecurityProtocol = kafka, "SASL_PLAINTEXT"
	} else {
		kafka = connectKafka(t, kind)
	}
	cfg.Bootstrap = kafka.Brokers()
	deps := serverDeps(t, kafka, nil, t.TempDir())
	grader := exercises.NewGrader(deps.Lab.(exercises.Broker), exercises.NewClass(cfg), exercises.GraderConfig{Interval: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { grader.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	deps.Exercises = grader

	ts := httptest.NewUnstartedServer(nil)
	srv := web.New(deps, testLogger(), web.WithAccess(web.Access{Classroom: true, ListenAddr: ts.Listener.Addr().String()}))
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return &handsOn{t: t, kafka: kafka, url: ts.URL, srv: srv, kind: kind, suffix: randomSuffix(t)[:6]}
}

// writeOrders is the teacher writing the shared orders topic (made if
// missing), one record per key.
func (h *handsOn) writeOrders(keys ...string) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := h.kafka.Topic(ctx, "orders"); err != nil {
		if _, err := h.kafka.CreateTopic(ctx, cluster.TopicSpec{Name: "orders", Partitions: 1}); err != nil {
			h.t.Fatal(err)
		}
	}
	var recs []*kgo.Record
	for _, k := range keys {
		recs = append(recs, &kgo.Record{Topic: "orders", Key: []byte(k), Value: []byte("order " + k)})
	}
	if err := h.kafka.Client().ProduceSync(ctx, recs...).FirstErr(); err != nil {
		h.t.Fatal(err)
	}
}

// joined is a student who joined, with their browser.
type joined struct {
	browser *client
	Name    string             `json:"name"`
	Kafka   exercises.Identity `json:"kafka"`
}

// join makes a browser join the class as name+suffix.
func (h *handsOn) join(name string) *joined {
	h.t.Helper()
	c := &classroom{app: &app{t: h.t, url: h.url}}
	browser := c.student()
	status, body := browser.post("/api/classroom/students", fmt.Sprintf(`{"name":%q}`, name+h.suffix))
	if status != http.StatusCreated {
		h.t.Fatalf("join %s: %d %s", name, status, body)
	}
	j := &joined{browser: browser}
	if err := json.Unmarshal([]byte(body), j); err != nil {
		h.t.Fatal(err)
	}
	return j
}

// results is a result as the API sends it.
type apiResults struct {
	Version  int64 `json:"version"`
	Students []struct {
		Name   string `json:"name"`
		Done   bool   `json:"done"`
		Checks []struct {
			Key      string `json:"key"`
			OK       bool   `json:"ok"`
			HintCode string `json:"hintCode"`
			Hint     string `json:"hint"`
		} `json:"checks"`
	} `json:"students"`
}

// verdicts of the only student in r, as "key=ok" or "key=hint".
func (r apiResults) verdicts() string {
	if len(r.Students) != 1 {
		return fmt.Sprintf("%d students", len(r.Students))
	}
	var parts []string
	for _, c := range r.Students[0].Checks {
		v := "ok"
		if !c.OK {
			v = strings.TrimPrefix(c.HintCode, "exercise.hint.")
		}
		parts = append(parts, c.Key+"="+v)
	}
	return strings.Join(parts, " ")
}

// awaitVerdicts long-polls the student's own results until they read
// want, for at most 45 s.
func (j *joined) awaitVerdicts(t *testing.T, exercise, want string) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	var last apiResults
	after := int64(0)
	for time.Now().Before(deadline) {
		status, body, _ := j.browser.get(fmt.Sprintf("/api/exercises/%s/results?after=%d", exercise, after))
		if status != http.StatusOK {
			t.Fatalf("results of %s: %d %s", j.Name, status, body)
		}
		last = apiResults{}
		if err := json.Unmarshal([]byte(body), &last); err != nil {
			t.Fatal(err)
		}
		if last.verdicts() == want {
			return
		}
		after = last.Version
	}
	t.Errorf("%s of %s: %s, want %s (%+v)", exercise, j.Name, last.verdicts(), want, last)
}

// python runs scripts/py/exercise_student.py as the student.
func (j *joined) python(t *testing.T, ex exercises.Exercise, run string, args ...string) map[string]any {
	t.Helper()
	python := pythonPath(t, "hands-on Python students")
	identity, _ := json.Marshal(map[string]any{
		"bootstrap": j.Kafka.Bootstrap, "securityProtocol": j.Kafka.SecurityProtocol, "saslMechanism": j.Kafka.SASLMechanism,
		"username": j.Kafka.Username, "password": j.Kafka.Password, "names": ex.NamesFor(j.Name),
	})
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "scripts", "py", "exercise_student.py")
	out := runStudent(t, exec.Command(python, append([]string{script, string(identity), run}, args...)...))
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("exercise_student.py %s printed %q", run, out)
	}
	return v
}

// pythonKilled runs the Python student expecting it to kill itself with
// SIGKILL, as kill -9 would.
func (j *joined) pythonKilled(t *testing.T, ex exercises.Exercise, run string, args ...string) {
	t.Helper()
	python := pythonPath(t, "hands-on Python students")
	identity, _ := json.Marshal(map[string]any{
		"bootstrap": j.Kafka.Bootstrap, "securityProtocol": j.Kafka.SecurityProtocol, "saslMechanism": j.Kafka.SASLMechanism,
		"username": j.Kafka.Username, "password": j.Kafka.Password, "names": ex.NamesFor(j.Name),
	})
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "scripts", "py", "exercise_student.py")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, append([]string{script, string(identity), run}, args...)...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("the processor was to kill itself: %v\n%s", err, out)
	}
}

// java runs testdata/ExerciseStudent.java, compiled against Kafka's own
// Java client, as the student.
func (j *joined) java(t *testing.T, classes string, ex exercises.Exercise, run string) string {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	n := ex.NamesFor(j.Name)
	libs := localkafka.DefaultLibs(os.Getenv, repoRoot(t))
	cmd := exec.Command("java", "-cp", classes+string(os.PathListSeparator)+filepath.Join(libs, "*"), "ExerciseStudent",
		j.Kafka.Bootstrap, j.Kafka.SecurityProtocol, j.Kafka.SASLMechanism, j.Kafka.Username, j.Kafka.Password,
		n.Topic, n.TransactionalID, n.Group, run)
	return strings.TrimSpace(string(runStudent(t, cmd)))
}

// franz is a franz-go client logged in as the student.
func (j *joined) franz(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	base := []kgo.Opt{kgo.SeedBrokers(strings.Split(j.Kafka.Bootstrap, ",")...), kgo.AllowAutoTopicCreation()}
	if j.Kafka.Username != "" {
		base = append(base, kgo.SASL(scram.Auth{User: j.Kafka.Username, Pass: j.Kafka.Password}.AsSha256Mechanism()))
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// runStudent runs a student's program for at most two minutes.
func runStudent(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", strings.Join(cmd.Args[:min(3, len(cmd.Args))], " "), err, out, stderr.String())
	}
	return out
}

// compileJavaStudent compiles the Java student against kafka-clients, or
// skips (fails under CI=true) without javac or the jars.
func compileJavaStudent(t *testing.T) string {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	if _, err := exec.LookPath("javac"); err != nil {
		testenv.MissingSetup(t, "hands-on Java students skipped: javac is not installed")
	}
	libs := localkafka.DefaultLibs(os.Getenv, repoRoot(t))
	jar := filepath.Join(libs, "kafka-clients-"+localkafka.KafkaVersion+".jar")
	if _, err := os.Stat(jar); err != nil {
		testenv.MissingSetup(t, "hands-on Java students skipped: %s is missing (go run ./cmd/offsetlab-kafka fetch)", jar)
	}
	classes := t.TempDir()
	runStudent(t, exec.Command("javac", "-d", classes, "-cp", jar, filepath.Join(repoRoot(t), "e2e", "testdata", "ExerciseStudent.java")))
	return classes
}

// TestHandsOnStudents: students join a class over the API and do the
// exercises with clients nobody here wrote — confluent-kafka (Python),
// Kafka's Java client, franz-go — some right, some wrong, on the embedded
// broker's classroom port and on real Kafka. Each sees only their own
// results, each verdict (and the hint naming the cause) is asserted, and
// the teacher's CSV holds every student.
func TestHandsOnStudents(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			h := startHandsOn(t, kind)
			classes := compileJavaStudent(t)
			teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
			py, jv, gopher := h.join("py"), h.join("java"), h.join("go")
			if kind == embedded && (!py.Kafka.Managed || py.Kafka.Password == "" || py.Kafka.SecurityProtocol != "SASL_PLAINTEXT") {
				t.Fatalf("a classroom student's identity: %+v", py.Kafka)
			}
			steps := []struct {
				exercise string
				student  *joined
				run      func(ex exercises.Exercise)
				want     string
			}{
				{"idempotent", py, func(ex exercises.Exercise) { py.python(t, ex, "idempotent") }, "producerId=ok sequences=ok noDuplicate=ok"},
				{"idempotent", jv, func(ex exercises.Exercise) {
					cl := jv.franz(t, kgo.DisableIdempotentWrite())
					produceAll(t, cl, ex.NamesFor(jv.Name).Topic, "r0", "r1", "r1", "r2", "r3")
				}, "producerId=noProducerId sequences=noProducerId noDuplicate=duplicate"},
				{"commit", py, func(ex exercises.Exercise) { py.python(t, ex, "commit") }, "committed=ok readCommitted=ok"},
				{"commit", jv, func(ex exercises.Exercise) { jv.java(t, classes, ex, "commit-aborted") }, "committed=abortMarker readCommitted=receivesFew"},
				{"commit", gopher, func(ex exercises.Exercise) {
					produceAll(t, gopher.franz(t), ex.NamesFor(gopher.Name).Topic, "a", "b", "c")
				}, "committed=notTransactional readCommitted=ok"},
				{"abort", py, func(ex exercises.Exercise) { py.python(t, ex, "abort") }, "committedFirst=ok abortedSecond=ok readCommitted=ok"},
				{"abort", gopher, func(ex exercises.Exercise) {
					n := ex.NamesFor(gopher.Name)
					cl := gopher.franz(t, kgo.TransactionalID(n.TransactionalID))
					commitTwice(t, cl, n.Topic)
				}, "committedFirst=ok abortedSecond=commitMarker readCommitted=noAbortedRecords"},
				{"read-committed", jv, func(ex exercises.Exercise) { jv.java(t, classes, ex, "read-committed") }, "committed=ok groupPastMarker=ok"},
				{"read-committed", py, func(ex exercises.Exercise) { py.python(t, ex, "read-committed") }, "committed=ok groupPastMarker=ok"},
				{"exactly-once", py, func(ex exercises.Exercise) {
					h.writeOrders("O-1-"+h.suffix, "O-2-"+h.suffix, "O-3-"+h.suffix, "O-4-"+h.suffix)
					py.pythonKilled(t, ex, "process", "2")
					py.python(t, ex, "process")
				}, "killedAborted=ok eachOrderOnce=ok groupAtEnd=ok"},
				{"zombie", jv, func(ex exercises.Exercise) {
					if got := jv.java(t, classes, ex, "zombie"); got != `{"late":"fenced"}` {
						t.Errorf("the Java zombie's late write: %s", got)
					}
				}, "fenced=ok noZombieWrite=ok"},
				{"zombie", py, func(ex exercises.Exercise) { py.python(t, ex, "commit") }, "fenced=noFencedAbort noZombieWrite=oneEpoch"},
			}
			current := ""
			for _, s := range steps {
				ex, _ := exercises.Find(s.exercise)
				if s.exercise != current {
					if status, body := teacher.post("/api/exercises/"+s.exercise+"/start", ""); status != http.StatusOK {
						t.Fatalf("start %s: %d %s", s.exercise, status, body)
					}
					current = s.exercise
				}
				s.run(ex)
				s.student.awaitVerdicts(t, s.exercise, s.want)
			}
			status, csv, _ := teacher.get("/api/exercises/zombie/results.csv")
			if status != http.StatusOK || !strings.Contains(csv, "name,done,fenced,noZombieWrite\n") || !strings.Contains(csv, jv.Name+",1,1,1\n") || strings.Count(csv, "\n") != 4 {
				t.Errorf("the teacher's CSV: %d %q", status, csv)
			}
			if status, _, _ := py.browser.get("/api/exercises/zombie/results.csv"); status != http.StatusForbidden {
				t.Errorf("a student's CSV download: %d, want 403", status)
			}
			if status, _ := py.browser.post("/api/exercises/commit/start", ""); status != http.StatusForbidden {
				t.Errorf("a student starting an exercise: %d, want 403", status)
			}
			if kind == embedded {
				// Another's topic and another's transactional id are refused.
				ex, _ := exercises.Find("commit")
				other := ex.NamesFor(jv.Name)
				if got := py.python(t, ex, "foreign-topic", other.Topic)["error"]; got != "TOPIC_AUTHORIZATION_FAILED" {
					t.Errorf("py writing java's topic: %v, want TOPIC_AUTHORIZATION_FAILED", got)
				}
				if got := py.python(t, ex, "foreign-txn", other.TransactionalID)["error"]; got != "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" {
					t.Errorf("py using java's transactional id: %v, want TRANSACTIONAL_ID_AUTHORIZATION_FAILED", got)
				}
			}
		})
	}
}

// produceAll writes values to topic with cl.
func produceAll(t *testing.T, cl *kgo.Client, topic string, values ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for _, v := range values {
		recs = append(recs, &kgo.Record{Topic: topic, Value: []byte(v)})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}

// commitTwice commits two transactions, the abort exercise done wrong.
func commitTwice(t *testing.T, cl *kgo.Client, topic string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, v := range []string{"first", "second"} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		produceAll(t, cl, topic, v)
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
	}
}
