package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// TestViewersKeptForTheTeacher: students from many addresses fill the
// views left to them and no more; the teacher still opens its share, and
// a student at the teacher's address does not count against it.
func TestViewersKeptForTheTeacher(t *testing.T) {
	t.Parallel()
	vl := &viewerLimiter{limits: Limits{Viewers: 6, ViewersPerClient: 2, TeacherViewers: 2}.withDefaults()}
	admit := func(v live.Viewer) (bool, string) {
		rec := httptest.NewRecorder()
		_, ok := vl.admit(rec, v)
		return ok, rec.Body.String()
	}
	for _, client := range []string{"10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.2"} {
		if ok, body := admit(live.Viewer{Client: client}); !ok {
			t.Fatalf("student %s within the caps refused: %s", client, body)
		}
	}
	if ok, body := admit(live.Viewer{Client: "10.0.0.1"}); ok || !strings.Contains(body, "error.viewersPerClient") {
		t.Errorf("a student past its own cap: admitted %v, %s", ok, body)
	}
	if ok, body := admit(live.Viewer{Client: "10.0.0.3"}); ok || !strings.Contains(body, "error.viewersFull") {
		t.Errorf("a student when only the teacher's views are free: admitted %v, %s", ok, body)
	}
	for i := range 2 {
		if ok, body := admit(live.Viewer{Client: teacherClient, Teacher: true}); !ok {
			t.Fatalf("the teacher's view %d while students hold theirs: %s", i, body)
		}
	}
	if ok, _ := admit(live.Viewer{Client: teacherClient, Teacher: true}); ok {
		t.Errorf("the teacher opened more views than the server keeps")
	}

	// In classroom mode the teacher is its own client, whatever its address.
	srv := New(Deps{}, nil, WithAccess(Access{Classroom: true, ListenAddr: "127.0.0.1:8080"}))
	r := httptest.NewRequest(http.MethodGet, "/ws/topics/t/partitions/0", nil)
	r.RemoteAddr = "10.0.0.9:5555"
	if v := srv.viewerOf(r.WithContext(httpx.WithRole(r.Context(), httpx.Student, ""))); v.Teacher || v.Client != "10.0.0.9" {
		t.Errorf("a student is %+v, want counted by its address", v)
	}
	if v := srv.viewerOf(r.WithContext(httpx.WithRole(r.Context(), httpx.Teacher, ""))); !v.Teacher || v.Client != teacherClient {
		t.Errorf("the teacher is %+v, want the teacher's own client", v)
	}
}
