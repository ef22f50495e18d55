package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// classServer is the server binary in classroom mode over a data
// directory, with its teacher logged in.
type classServer struct {
	p       *serverProcess
	h       *handsOn
	teacher *client
}

// startClassServer starts the binary in classroom mode on dir and logs
// the teacher in with the link it printed.
func startClassServer(t *testing.T, dir string) *classServer {
	t.Helper()
	p := startServerProcess(t, "--classroom", "--data-dir", dir)
	link := p.waitLog(loginLogRe, 30*time.Second)
	h := &handsOn{t: t, url: strings.TrimSuffix(p.url, "/")}
	return &classServer{p: p, h: h, teacher: loginTeacher(t, h.url, link)}
}

// me is the student's identity as their page asks for it.
func (j *joined) me(t *testing.T) (int, exercises.Identity) {
	t.Helper()
	status, body, _ := j.browser.get("/api/classroom/students/me")
	var out struct {
		Kafka exercises.Identity `json:"kafka"`
	}
	if status == http.StatusOK {
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
	}
	return status, out.Kafka
}

// commitTransaction is a student's `commit` attempt: three records in a
// committed transaction, with their own client.
func commitTransaction(t *testing.T, j *joined) {
	t.Helper()
	ex, _ := exercises.Find("commit")
	n := ex.NamesFor(j.Name)
	cl := j.franz(t, kgo.TransactionalID(n.TransactionalID))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produceAll(t, cl, n.Topic, "a", "b", "c")
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
}

// awaitDone waits until the scoreboard says name is done with commit.
func (cs *classServer) awaitDone(t *testing.T, name string) apiResults {
	t.Helper()
	var r apiResults
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := wait.Until(ctx, 100*time.Millisecond, func(context.Context) (bool, error) {
		status, body, _ := cs.teacher.get("/api/exercises/commit/results")
		if status != http.StatusOK {
			return false, fmt.Errorf("results: %d %s", status, body)
		}
		r = apiResults{}
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return false, err
		}
		for _, s := range r.Students {
			if s.Name == name && s.Done {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s never done: %v (%+v)", name, err, r)
	}
	return r
}

// TestClassroomSurvivesKillNine: a class on the server binary — two
// students who joined, the commit exercise started, one student done,
// the teacher's partition on the stage, lesson 2 at its fourth step — is whole after `kill -9` and a
// start on the same data directory: the students' cookies still name
// them, their Kafka logins still work (on the new port) and are graded,
// the scoreboard, the exercise, the stage and the lesson run are back; the name of a
// student is still theirs; the teacher's page of before says its session
// ended; the teacher (logged in with the new link) removes a student,
// whose Kafka login then fails and whose name is free again. A class
// file torn afterwards stops the next start with a sentence naming it.
func TestClassroomSurvivesKillNine(t *testing.T) {
	dir := t.TempDir()
	first := startClassServer(t, dir)
	ann, bob := first.h.join("ann"), first.h.join("bob")
	if status, body := first.teacher.post("/api/exercises/commit/start", ""); status != http.StatusOK {
		t.Fatalf("start: %d %s", status, body)
	}
	commitTransaction(t, ann)
	first.awaitDone(t, "ann")
	annTopic := "student-ann-commit"
	if status, body := first.teacher.post("/api/classroom/stage", fmt.Sprintf(`{"topic":%q,"partition":0}`, annTopic)); status != http.StatusOK {
		t.Fatalf("stage: %d %s", status, body)
	}
	_, annBefore := ann.me(t)
	var run struct {
		ID     string `json:"id"`
		Cursor int    `json:"cursor"`
		Suffix string `json:"suffix"`
	}
	status, body := first.teacher.post("/api/lessons/2/runs", "")
	if status != http.StatusCreated || json.Unmarshal([]byte(body), &run) != nil {
		t.Fatalf("lesson 2: %d %s", status, body)
	}
	for range 3 {
		if status, body := first.teacher.post("/api/lessons/runs/"+run.ID+"/next", ""); status != http.StatusOK {
			t.Fatalf("lesson 2 next: %d %s", status, body)
		}
	}
	first.p.kill()

	second := startClassServer(t, dir)
	// Cookies are per host, not per port: the browsers carry them over.
	ann.browser.base, bob.browser.base = second.h.url, second.h.url
	status, annAfter := ann.me(t)
	if status != http.StatusOK || annAfter.Username != annBefore.Username || annAfter.Password != annBefore.Password || annAfter.Topic != annBefore.Topic {
		t.Fatalf("ann after kill -9: %d %+v, want %+v", status, annAfter, annBefore)
	}
	ann.Kafka, bob.Kafka = annAfter, annAfter // ann's bootstrap is the new port
	_, bobKafka := bob.me(t)
	bob.Kafka = bobKafka

	status, body, _ = second.teacher.get("/api/lessons/runs/" + run.ID)
	var back struct {
		Cursor int    `json:"cursor"`
		Suffix string `json:"suffix"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &back) != nil || back.Cursor != 3 || back.Suffix != run.Suffix {
		t.Errorf("lesson 2 after kill -9: %d %.300s, want its run at step 4", status, body)
	}
	status, body, _ = second.teacher.get("/api/classroom/students")
	if status != http.StatusOK || !strings.Contains(body, `"name":"ann"`) || !strings.Contains(body, `"name":"bob"`) {
		t.Errorf("the class after kill -9: %d %s", status, body)
	}
	status, body, _ = second.teacher.get("/api/exercises")
	if status != http.StatusOK || !strings.Contains(body, `"current":"commit"`) {
		t.Errorf("the exercise after kill -9: %d %.300s", status, body)
	}
	status, body, _ = second.teacher.get("/api/classroom")
	if status != http.StatusOK || !strings.Contains(body, annTopic) || !strings.Contains(body, `"lessonRun":"`+run.ID+`"`) {
		t.Errorf("the stage after kill -9: %d %s", status, body)
	}
	// Ann is on the scoreboard at once, and bob, who works now, is graded.
	second.awaitDone(t, "ann")
	commitTransaction(t, bob)
	second.awaitDone(t, "bob")

	if status, body := (&classroom{app: &app{t: t, url: second.h.url}}).student().post("/api/classroom/students", `{"name":"ann"}`); status != http.StatusConflict {
		t.Errorf("someone else joining as ann after the restart: %d %s, want 409", status, body)
	}
	first.teacher.base = second.h.url
	status, body = first.teacher.post("/api/exercises/commit/start", "")
	if status != http.StatusForbidden || !strings.Contains(body, "error.teacherSessionEnded") {
		t.Errorf("the teacher's page of before the restart: %d %s, want 403 error.teacherSessionEnded", status, body)
	}

	status, body, _ = second.teacher.send(http.MethodDelete, "/api/classroom/students/bob?topics=delete", "", nil)
	if status != http.StatusNoContent {
		t.Fatalf("remove bob: %d %s", status, body)
	}
	if status, body, _ := bob.browser.get("/api/classroom/students/me"); status != http.StatusNotFound || !strings.Contains(body, "error.studentForgotten") {
		t.Errorf("bob's page after his removal: %d %s, want 404 error.studentForgotten", status, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := bob.franz(t, kgo.RequestRetries(0)).Ping(ctx)
	if err == nil || !strings.Contains(err.Error(), kerr.SaslAuthenticationFailed.Message) {
		t.Errorf("bob's Kafka login after his removal: %v, want SASL_AUTHENTICATION_FAILED", err)
	}
	newBob := second.h.join("bob")
	if newBob.Kafka.Password == bobKafka.Password {
		t.Error("the newcomer called bob got the removed bob's password")
	}
	second.p.kill()

	classFile, err := filepath.Glob(filepath.Join(dir, "classroom", "*", "class.json"))
	if err != nil || len(classFile) != 1 {
		t.Fatalf("class files %v %v", classFile, err)
	}
	info, err := os.Stat(classFile[0])
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("class file: %v %v, want 0600", info.Mode(), err)
	}
	raw, _ := os.ReadFile(classFile[0])
	if err := os.WriteFile(classFile[0], raw[:len(raw)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(serverBinary(t), "--addr", "127.0.0.1:0", "--kafka-addr", "127.0.0.1:0", "--classroom", "--data-dir", dir)
	cmd.Env = append(os.Environ(), "OFFSETLAB_DATA_DIR=")
	out, err := runFor(cmd, 60*time.Second)
	if err == nil || !strings.Contains(out, classFile[0]) || !strings.Contains(out, "torn") {
		t.Errorf("a start on a torn class file: %v\n%s\nwant a failure naming %s", err, out, classFile[0])
	}
}

// runFor runs cmd, killing it after d, and returns its combined output.
func runFor(cmd *exec.Cmd, d time.Duration) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("still running after %v", d)
	}
}
