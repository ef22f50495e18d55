package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestHandsOnKcatStarters runs the kcat starter code a student gets from
// GET /api/exercises/{id}, verbatim in a shell, against the embedded
// broker's classroom port (SASL/SCRAM, the student's ACLs) and against
// real Kafka (plaintext, names only): the
// idempotent starter's five records pass every check of `idempotent`,
// and the `commit` starter (kcat writes no transactions: it reads what
// read_committed receives) prints the three records of the student's
// committed transaction, which pass `commit`.
func TestHandsOnKcatStarters(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kcat"); err != nil {
		testenv.MissingSetup(t, "the kcat starters skipped: kcat is not installed (apt-get install kcat)")
	}
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			h := startHandsOn(t, kind)
			teacher := loginTeacher(t, h.url, h.srv.TeacherLoginURL())
			student := h.join("kcat")

			start := func(exercise string) string {
				t.Helper()
				if status, body := teacher.post("/api/exercises/"+exercise+"/start", ""); status != http.StatusOK {
					t.Fatalf("start %s: %d %s", exercise, status, body)
				}
				status, body, _ := student.browser.get("/api/exercises/" + exercise)
				if status != http.StatusOK {
					t.Fatalf("the student's %s: %d %s", exercise, status, body)
				}
				var view struct {
					Starters []exercises.Starter `json:"starters"`
				}
				if err := json.Unmarshal([]byte(body), &view); err != nil {
					t.Fatal(err)
				}
				for _, s := range view.Starters {
					if s.Client == "kcat" {
						if !strings.Contains(s.Code, student.Kafka.Password) {
							t.Fatalf("the kcat starter of %s lacks the student's password:\n%s", exercise, s.Code)
						}
						return s.Code
					}
				}
				t.Fatalf("%s has no kcat starter: %s", exercise, body)
				return ""
			}

			code := start("idempotent")
			runStudent(t, exec.Command("sh", "-c", code))
			student.awaitVerdicts(t, "idempotent", "producerId=ok sequences=ok noDuplicate=ok")

			code = start("commit")
			ex, _ := exercises.Find("commit")
			n := ex.NamesFor(student.Name)
			cl := student.franz(t, kgo.TransactionalID(n.TransactionalID))
			if err := cl.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			produceAll(t, cl, n.Topic, "a", "b", "c")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				t.Fatal(err)
			}
			if got, want := string(runStudent(t, exec.Command("sh", "-c", code))), "0 a\n1 b\n2 c\n"; got != want {
				t.Errorf("the kcat commit starter printed %q, want %q", got, want)
			}
			student.awaitVerdicts(t, "commit", "committed=ok readCommitted=ok")
		})
	}
}
