package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/lessons"
)

// studentNameRule is a student's name as the class accepts it.
var studentNameRule = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{1,15}$`)

// squatters are the names a student would pick to own a lesson's names
// under a rule of ACLs on "<name>-": the first segment of each logical
// name ("order" of "order-totals-tx", "orders" of "orders").
func squatters(all []lessons.Lesson) []string {
	var out []string
	for _, l := range all {
		for _, s := range l.Steps {
			for _, n := range s.Do.Names() {
				first, _, _ := strings.Cut(n, "-")
				if studentNameRule.MatchString(first) && !slices.Contains(out, first) {
					out = append(out, first)
				}
			}
		}
	}
	return out
}

// attackNames tries, as a student's own client, everything that would
// hurt a lesson: write each topic, set its retention.ms to 1, delete its
// records, init each name as a transactional id, commit each name as a
// group (with an offset of the student's own topic, so that only the
// group decides). It returns what was not refused, as "attack name: answer".
func attackNames(ctx context.Context, student *kgo.Client, ownTopic string, topics, names []string) []string {
	var failed []string
	note := func(what, name string, err error, want *kerr.Error) {
		if !errors.Is(err, want) {
			failed = append(failed, fmt.Sprintf("%s %s: %v (want %s)", what, name, err, want.Message))
		}
	}
	adm := kadm.NewClient(student)
	for _, topic := range topics {
		err := student.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("INJECTED")}).FirstErr()
		note("produce", topic, err, kerr.TopicAuthorizationFailed)

		one := "1"
		altered, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &one}}, topic)
		if err == nil {
			for _, a := range altered {
				err = a.Err
			}
		}
		note("alter retention.ms=1", topic, err, kerr.TopicAuthorizationFailed)

		before := kadm.Offsets{}
		before.Add(kadm.Offset{Topic: topic, Partition: 0, At: 1, LeaderEpoch: -1})
		deleted, err := adm.DeleteRecords(ctx, before)
		if err == nil {
			err = deleted.Error()
		}
		note("delete records", topic, err, kerr.TopicAuthorizationFailed)
	}
	for _, name := range names {
		init := kmsg.NewPtrInitProducerIDRequest()
		init.TransactionalID = &name
		init.TransactionTimeoutMillis = 60000
		init.ProducerID, init.ProducerEpoch = -1, -1
		resp, err := init.RequestWith(ctx, student)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		note("init transactional id", name, err, kerr.TransactionalIDAuthorizationFailed)

		offsets := kadm.Offsets{}
		offsets.Add(kadm.Offset{Topic: ownTopic, Partition: 0, At: 1, LeaderEpoch: -1})
		committed, err := adm.CommitOffsets(ctx, name, offsets)
		if err == nil {
			err = committed.Error()
		}
		note("commit group", name, err, kerr.GroupAuthorizationFailed)
	}
	return failed
}

// lessonNamesOf is a lesson run's names on the broker: its topics, and
// the rest (groups and transactional ids).
type lessonNamesOf struct {
	ID     string            `json:"id"`
	Names  map[string]string `json:"names"`
	Topics []string          `json:"topics"`
}

// startedOrNamed starts a run of l as the teacher and returns its names;
// a lesson this broker cannot run (three brokers) gets the names a run
// would: each logical name with a suffix, as internal/lessons makes them.
func startedOrNamed(t *testing.T, teacher *client, l lessons.Lesson) lessonNamesOf {
	t.Helper()
	status, body := teacher.post("/api/lessons/"+l.ID+"/runs", "")
	run := lessonNamesOf{Names: map[string]string{}}
	switch status {
	case http.StatusCreated:
		if err := json.Unmarshal([]byte(body), &run); err != nil {
			t.Fatal(err)
		}
	case http.StatusConflict:
		suffix := randomSuffix(t)[:6]
		for _, s := range l.Steps {
			topics := s.Do.TopicNames()
			for _, n := range s.Do.Names() {
				run.Names[n] = n + "-" + suffix
				if slices.Contains(topics, n) && !slices.Contains(run.Topics, n+"-"+suffix) {
					run.Topics = append(run.Topics, n+"-"+suffix)
				}
			}
		}
	default:
		t.Fatalf("lesson %s: start: %d %s", l.ID, status, body)
	}
	if len(run.Names) == 0 {
		t.Fatalf("lesson %s names nothing", l.ID)
	}
	return run
}

// TestClassroomNamespaceEveryLesson: students who join a class before
// any lesson runs, under the names that start the lessons' names
// ("order", "orders", "payments", ...), own none of them afterwards. For
// every lesson of the table the teacher starts a run and its topics are
// made (one record each); then each student, over Kafka with their own
// SCRAM identity (franz-go), tries to write each topic, set retention.ms
// to 1, delete its records, init each of the lesson's names as a
// transactional id and commit each as a group: every attempt is refused
// by the broker's ACLs, and the topics keep their record and retention.
// Over HTTP the student's browser is refused every state-changing
// request on a lesson's topic, and the teacher's own actions refuse
// names in the students' namespace (which would hand them to a student).
// Red under the former rule (ACLs on "<name>-"): "order" wrote
// order-totals-tx-<suffix>.
func TestClassroomNamespaceEveryLesson(t *testing.T) {
	h := startHandsOn(t, embedded)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := lessons.Builtin()
	names := squatters(all)
	if len(names) < 4 {
		t.Fatalf("squatters %v: the lessons' names changed shape", names)
	}
	students := map[string]*kgo.Client{}
	var browser *client
	for _, name := range names {
		c := &classroom{app: &app{t: t, url: h.url}}
		b := c.student()
		status, body := b.post("/api/classroom/students", fmt.Sprintf(`{"name":%q}`, name))
		if status != http.StatusCreated {
			t.Fatalf("join %s before the lessons: %d %s", name, status, body)
		}
		j := &joined{browser: b}
		if err := json.Unmarshal([]byte(body), j); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(j.Kafka.Topic, cluster.StudentNamespace) {
			t.Errorf("%s's prefix %q is outside %q", name, j.Kafka.Topic, cluster.StudentNamespace)
		}
		cl := j.franz(t)
		produceAll(t, cl, j.Kafka.Topic+"own", "mine") // their own names still work
		students[name] = cl
		browser = b
	}
	teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
	admin := kadm.NewClient(h.kafka.Client())
	for _, l := range all {
		run := startedOrNamed(t, teacher, l)
		var others []string
		for _, n := range run.Names {
			if !slices.Contains(run.Topics, n) {
				others = append(others, n)
			}
		}
		for _, topic := range run.Topics {
			if _, err := h.kafka.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
				t.Fatalf("lesson %s: create %s: %v", l.ID, topic, err)
			}
			if err := h.kafka.Client().ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("lesson's")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range names {
			own := cluster.StudentPrefix(name) + "own"
			for _, f := range attackNames(ctx, students[name], own, run.Topics, others) {
				t.Errorf("lesson %s, student %s: not refused: %s", l.ID, name, f)
			}
		}
		for _, topic := range run.Topics {
			ends, err := admin.ListEndOffsets(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			starts, err := admin.ListStartOffsets(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			end, _ := ends.Lookup(topic, 0)
			start, _ := starts.Lookup(topic, 0)
			if end.Offset != 1 || start.Offset != 0 {
				t.Errorf("lesson %s: %s holds [%d, %d) after the students' attempts, want [0, 1)", l.ID, topic, start.Offset, end.Offset)
			}
			configs, err := admin.DescribeTopicConfigs(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			if rc, err := configs.On(topic, nil); err == nil {
				for _, c := range rc.Configs {
					if c.Key == "retention.ms" && c.MaybeValue() == "1" {
						t.Errorf("lesson %s: %s has retention.ms=1", l.ID, topic)
					}
				}
			}
		}
		if len(run.Topics) > 0 {
			for _, req := range stateChanging(t, h.srv.Handler(), run.Topics[0]) {
				if status, body, _ := browser.send(req.method, req.path, req.body, nil); status != http.StatusForbidden {
					t.Errorf("lesson %s: a student's %s %s: %d %.200s, want 403", l.ID, req.method, req.path, status, body)
				}
			}
		}
	}

	// The teacher's own actions never make or write a student's names.
	own := cluster.StudentPrefix(names[0])
	teacherTries := []struct{ path, body string }{
		{"/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, own+"later")},
		{"/api/produce", fmt.Sprintf(`{"topic":%q,"values":["from the teacher"]}`, own+"own")},
		{"/api/processor/runs", fmt.Sprintf(`{"mode":"tx","input":"orders","output":"totals","group":%q,"transactionalId":"t"}`, own+"g")},
		{"/api/transactions/" + own + "tx/begin", ""},
	}
	for _, tt := range teacherTries {
		status, body := teacher.post(tt.path, tt.body)
		if status != http.StatusForbidden || !strings.Contains(body, "student-") {
			t.Errorf("the teacher's POST %s %s: %d %.300s, want 403 naming the students' namespace", tt.path, tt.body, status, body)
		}
	}
}

// TestClassroomNamespacePython: the same rule seen from confluent-kafka,
// the Python client the exercises' starters use: a student called order,
// who joined before lesson 2 ran, is refused the lesson's topic
// (TOPIC_AUTHORIZATION_FAILED) and its transactional id
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
func TestClassroomNamespacePython(t *testing.T) {
	pythonPath(t, "the namespace rule from confluent-kafka")
	h, order, run := orderBeforeLesson2(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic, txn := run.Names["order-totals-tx"], run.Names["order-totals-app"]
	if topic == "" || txn == "" {
		t.Fatalf("lesson 2's names changed: %v", run.Names)
	}
	if _, err := h.kafka.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	ex, _ := exercises.Find("commit")
	if got := order.python(t, ex, "foreign-topic", topic)["error"]; got != "TOPIC_AUTHORIZATION_FAILED" {
		t.Errorf("confluent-kafka as order writing %s: %v, want TOPIC_AUTHORIZATION_FAILED", topic, got)
	}
	if got := order.python(t, ex, "foreign-txn", txn)["error"]; got != "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" {
		t.Errorf("confluent-kafka as order initialising %s: %v, want TRANSACTIONAL_ID_AUTHORIZATION_FAILED", txn, got)
	}
}

// TestClassroomNamespaceJavaTools: the same rule seen from Kafka's own
// tools, run with a student's SCRAM identity in a properties file as a
// student would write it. The student called order, who joined before
// lesson 2 ran, is refused writing the lesson's topic with
// kafka-console-producer and setting its retention.ms=1 with
// kafka-configs; creating a topic of 5,000 partitions in their own
// namespace with kafka-topics is refused as a policy violation. The
// lesson's topic holds the teacher's one record afterwards, its
// retention unchanged, and no such topic exists.
func TestClassroomNamespaceJavaTools(t *testing.T) {
	tools := requireJavaTools(t)
	h, order, run := orderBeforeLesson2(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := run.Names["order-totals-tx"]
	if topic == "" {
		t.Fatalf("lesson 2's names changed: %v", run.Names)
	}
	if _, err := h.kafka.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	if err := h.kafka.Client().ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("lesson's")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	k := order.Kafka
	props := filepath.Join(t.TempDir(), "order.properties")
	lines := []string{"security.protocol=" + k.SecurityProtocol, "sasl.mechanism=" + k.SASLMechanism,
		fmt.Sprintf(`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";`, k.Username, k.Password)}
	if err := os.WriteFile(props, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	many := k.Topic + "many"
	tries := []struct {
		what, stdin, class string
		args               []string
		want               string // in the tool's output
	}{
		{"kafka-console-producer into the lesson's topic", "mine\n", "org.apache.kafka.tools.ConsoleProducer",
			[]string{"--bootstrap-server", k.Bootstrap, "--producer.config", props, "--topic", topic, "--sync"}, "TopicAuthorizationException"},
		{"kafka-configs retention.ms=1 on the lesson's topic", "", "kafka.admin.ConfigCommand",
			[]string{"--bootstrap-server", k.Bootstrap, "--command-config", props, "--entity-type", "topics", "--entity-name", topic, "--alter", "--add-config", "retention.ms=1"}, "AuthorizationException"},
		{"kafka-topics of 5,000 partitions in their own namespace", "", "org.apache.kafka.tools.TopicCommand",
			[]string{"--bootstrap-server", k.Bootstrap, "--command-config", props, "--create", "--topic", many, "--partitions", "5000"}, "PolicyViolationException"},
	}
	var wg sync.WaitGroup
	for _, tt := range tries {
		wg.Go(func() {
			cmd := tools.command(ctx, tt.class, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("%s as order: want %s in its output:\n%s", tt.what, tt.want, out)
			}
		})
	}
	wg.Wait()
	admin := kadm.NewClient(h.kafka.Client())
	ends, err := admin.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := ends.Lookup(topic, 0); end.Offset != 1 {
		t.Errorf("%s ends at %d after the tools, want 1 (the teacher's record alone)", topic, end.Offset)
	}
	configs, err := admin.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := configs.On(topic, nil); err == nil {
		for _, c := range rc.Configs {
			if c.Key == "retention.ms" && c.MaybeValue() == "1" {
				t.Errorf("%s has retention.ms=1", topic)
			}
		}
	}
	if listed, err := admin.ListTopics(ctx, many); err == nil && listed.Has(many) {
		t.Errorf("%s was created", many)
	}
}

// orderBeforeLesson2 is a class on the embedded broker where a student
// called order joined before the teacher's lesson 2 named its topics
// (order-totals-tx, order-totals-app): the names a squatter would want.
func orderBeforeLesson2(t *testing.T) (*handsOn, *joined, lessonNamesOf) {
	t.Helper()
	h := startHandsOn(t, embedded)
	c := &classroom{app: &app{t: t, url: h.url}}
	b := c.student()
	status, body := b.post("/api/classroom/students", `{"name":"order"}`)
	if status != http.StatusCreated {
		t.Fatalf("join order: %d %s", status, body)
	}
	order := &joined{browser: b}
	if err := json.Unmarshal([]byte(body), order); err != nil {
		t.Fatal(err)
	}
	teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
	var lesson2 lessons.Lesson
	for _, l := range lessons.Builtin() {
		if l.ID == "2" {
			lesson2 = l
		}
	}
	run := startedOrNamed(t, teacher, lesson2)
	return h, order, run
}
