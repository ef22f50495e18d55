package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestHandsOnShareConsumer: the teacher starts the share exercise; the
// server writes each student's ten jobs (the seventh the poison one) and
// grades their share groups from the share state, on the embedded
// broker's classroom port and on real Kafka. Students run franz-go share
// consumers right and wrong (the poison accepted; the poison released
// until the delivery limit archives it; nothing acknowledged), and the
// Java starter the API hands them, run as it is with Kafka's jars.
func TestHandsOnShareConsumer(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			h := startHandsOn(t, kind)
			teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
			right, accepts, releases, holds := h.join("right"), h.join("accepts"), h.join("releases"), h.join("holds")
			if status, body := teacher.post("/api/exercises/share/start", ""); status != http.StatusOK {
				t.Fatalf("start share: %d %s", status, body)
			}
			ex, _ := exercises.Find("share")
			accept := func(*kgo.Record) kgo.AckStatus { return kgo.AckAccept }
			steps := []struct {
				student *joined
				run     func()
				want    string
			}{
				{right, func() {
					right.shareConsume(t, ex, everyJob, func(r *kgo.Record) kgo.AckStatus {
						if string(r.Value) == exercises.PoisonValue {
							return kgo.AckReject
						}
						return kgo.AckAccept
					})
				}, "jobsAccepted=ok poisonRejected=ok"},
				{accepts, func() { accepts.shareConsume(t, ex, everyJob, accept) }, "jobsAccepted=ok poisonRejected=poisonAccepted"},
				{releases, func() {
					releases.shareConsume(t, ex, func(seen map[string]int) bool { return seen[exercises.PoisonValue] >= 5 }, func(r *kgo.Record) kgo.AckStatus {
						if string(r.Value) == exercises.PoisonValue {
							return kgo.AckRelease
						}
						return kgo.AckAccept
					})
				}, "jobsAccepted=ok poisonRejected=poisonDeliveryLimit"},
				{holds, func() {
					holds.shareConsume(t, ex, func(seen map[string]int) bool { return len(seen) > 0 }, func(*kgo.Record) kgo.AckStatus { return 0 })
				}, "jobsAccepted=jobsUnfinished poisonRejected=poisonUnfinished"},
			}
			for _, s := range steps {
				s.student.awaitVerdicts(t, "share", "jobsAccepted=noShareGroup poisonRejected=noShareGroup") // the jobs are written
				s.run()
				s.student.awaitVerdicts(t, "share", s.want)
			}
		})
	}
}

// TestHandsOnShareJavaStarter runs the share exercise's Java starter as
// GET /api/exercises/share hands it to a student, unedited, with Java's
// single-file source launch against Kafka 4.3.1's jars, on both brokers:
// it accepts the jobs and rejects the poison one.
func TestHandsOnShareJavaStarter(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			testenv.Needs(t, testenv.JVM)
			if _, err := exec.LookPath("java"); err != nil {
				testenv.MissingSetup(t, "the Java share starter skipped: java (17+) is not installed")
			}
			libs := localkafka.DefaultLibs(os.Getenv, repoRoot(t))
			if _, err := os.Stat(filepath.Join(libs, "kafka-clients-"+localkafka.KafkaVersion+".jar")); err != nil {
				testenv.MissingSetup(t, "the Java share starter skipped: Kafka's jars are missing in %s (set OFFSETLAB_CACHE or run go run ./cmd/offsetlab-kafka fetch)", libs)
			}
			h := startHandsOn(t, kind)
			teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
			jv := h.join("java")
			if status, body := teacher.post("/api/exercises/share/start", ""); status != http.StatusOK {
				t.Fatalf("start share: %d %s", status, body)
			}
			jv.awaitVerdicts(t, "share", "jobsAccepted=noShareGroup poisonRejected=noShareGroup")
			status, body, _ := jv.browser.get("/api/exercises/share")
			var view struct {
				Starters []exercises.Starter `json:"starters"`
			}
			if err := json.Unmarshal([]byte(body), &view); status != http.StatusOK || err != nil {
				t.Fatalf("GET /api/exercises/share: %d %v", status, err)
			}
			var clients []string
			source := ""
			for _, s := range view.Starters {
				clients = append(clients, s.Client)
				if s.Client == "java" {
					source = s.Code
				}
			}
			if strings.Join(clients, " ") != "java go" {
				t.Errorf("the share starters are for %v, want java and go (no Python: confluent-kafka's share consumer is a preview)", clients)
			}
			file := filepath.Join(t.TempDir(), "ShareJobs.java")
			if err := os.WriteFile(file, []byte(source), 0o600); err != nil {
				t.Fatal(err)
			}
			out := string(runStudent(t, exec.Command("java", "-cp", filepath.Join(libs, "*"), file)))
			if !strings.Contains(out, "6 poison") {
				t.Errorf("the starter printed %q, want the poison job at offset 6 among ten", out)
			}
			jv.awaitVerdicts(t, "share", "jobsAccepted=ok poisonRejected=ok")
		})
	}
}

// everyJob is true once all ten jobs were delivered.
func everyJob(seen map[string]int) bool { return len(seen) == 10 }

// shareConsume runs a franz-go share consumer of the student's share
// group on their topic of ex until done says so (given how often each
// value was delivered) or a poll brings nothing for 5 s after the first
// records, acknowledging each record as decide says (0: not at all),
// then flushes the acknowledgements. The client stays open until the
// test ends, holding what it did not acknowledge.
func (j *joined) shareConsume(t *testing.T, ex exercises.Exercise, done func(seen map[string]int) bool, decide func(*kgo.Record) kgo.AckStatus) {
	t.Helper()
	n := ex.NamesFor(j.Name)
	cl := j.franz(t, kgo.ShareGroup(n.Group), kgo.ConsumeTopics(n.Topic))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	seen := map[string]int{}
	for !done(seen) && ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
		recs := cl.PollFetches(pctx).Records()
		pcancel()
		if len(recs) == 0 && len(seen) > 0 {
			break
		}
		for _, r := range recs {
			seen[string(r.Value)]++
			if st := decide(r); st != 0 {
				r.Ack(st)
			}
		}
	}
	if !done(seen) {
		t.Fatalf("%s's share consumer saw %v", j.Name, seen)
	}
	if err := cl.FlushAcks(ctx); err != nil {
		t.Fatal(err)
	}
}
