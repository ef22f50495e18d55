package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/web"
)

// TestClassroomStage: POST /api/classroom/stage makes a partition the
// stage — GET /api/classroom's teacherPartition, which every student's
// page follows — as the scoreboard does to put a student's log on it. Only
// the teacher may (with the session's CSRF token); a partition that does
// not exist is refused and leaves the stage as it was.
func TestClassroomStage(t *testing.T) {
	t.Parallel()
	c := startClassroom(t, web.Access{Classroom: true})
	topic := c.name("stage")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.kafka.CreateTopic(ctx, cluster.TopicSpec{Name: topic, Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	teacher, student := c.teacher(), c.student()
	noToken := &client{t: t, base: teacher.base, http: teacher.http}

	stage := func() string {
		t.Helper()
		_, body, _ := student.get("/api/classroom")
		var v struct {
			TeacherPartition *struct {
				Topic     string `json:"topic"`
				Partition int32  `json:"partition"`
			} `json:"teacherPartition"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		if v.TeacherPartition == nil {
			return "none"
		}
		return v.TeacherPartition.Topic + "/" + strconv.Itoa(int(v.TeacherPartition.Partition))
	}
	tests := []struct {
		name      string
		by        *client
		body      string
		status    int
		code      string
		wantStage string
	}{
		{"a student", student, `{"topic":"` + topic + `","partition":1}`, http.StatusForbidden, "error.studentView", "none"},
		{"the teacher without the CSRF token", noToken, `{"topic":"` + topic + `","partition":1}`, http.StatusForbidden, "error.csrf", "none"},
		{"the teacher", teacher, `{"topic":"` + topic + `","partition":1}`, http.StatusOK, "", topic + "/1"},
		{"partition left out: 0", teacher, `{"topic":"` + topic + `"}`, http.StatusOK, "", topic + "/0"},
		{"an unknown topic", teacher, `{"topic":"nobody-wrote-this","partition":0}`, http.StatusNotFound, "error.unknownTopic", topic + "/0"},
		{"an unknown partition", teacher, `{"topic":"` + topic + `","partition":2}`, http.StatusNotFound, "error.unknownPartition", topic + "/0"},
		{"a negative partition", teacher, `{"topic":"` + topic + `","partition":-1}`, http.StatusBadRequest, "error.partitionNegative", topic + "/0"},
		{"no topic", teacher, `{"partition":0}`, http.StatusBadRequest, "error.topicNameRequired", topic + "/0"},
		{"an unknown field", teacher, `{"topic":"` + topic + `","offset":3}`, http.StatusBadRequest, "", topic + "/0"},
	}
	for _, tt := range tests {
		status, body := tt.by.post("/api/classroom/stage", tt.body)
		var answer struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal([]byte(body), &answer)
		if status != tt.status || (tt.code != "" && answer.Code != tt.code) {
			t.Errorf("%s: %d %s, want %d %s", tt.name, status, body, tt.status, tt.code)
		}
		if got := stage(); got != tt.wantStage {
			t.Errorf("%s: the stage is %s, want %s", tt.name, got, tt.wantStage)
		}
	}
}
