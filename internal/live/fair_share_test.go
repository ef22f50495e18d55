package live

import (
	"fmt"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// TestTeacherKeepsFeedsStudentsCannotTake: students each watch up to their
// share, together up to the feeds not reserved for the teacher; the
// teacher's views still start feeds when the students hold all theirs,
// and a student may always join a partition already watched.
func TestTeacherKeepsFeedsStudentsCannotTake(t *testing.T) {
	t.Parallel()
	hub := NewHub(&growingLog{hws: map[feedKey]int64{}}, nil, Config{PollInterval: time.Millisecond, MaxFeeds: 8, TeacherFeeds: 2, MaxFeedsPerClient: 3})
	defer hub.Close()
	var subs []*Subscription
	defer func() {
		for _, s := range subs {
			s.Close()
		}
	}()
	watch := func(topic string, v Viewer) (*Subscription, error) {
		s, err := hub.SubscribeAs(topic, 0, v)
		if err == nil {
			subs = append(subs, s)
		}
		return s, err
	}
	refusedWith := problem.Is
	a, b, c := Viewer{Client: "10.0.0.1"}, Viewer{Client: "10.0.0.2"}, Viewer{Client: "10.0.0.3"}
	teacher := Viewer{Client: "teacher", Teacher: true}

	for i := range 3 {
		if _, err := watch(fmt.Sprintf("a%d", i), a); err != nil {
			t.Fatalf("student a, partition %d of its 3: %v", i, err)
		}
	}
	if _, err := watch("a3", a); !refusedWith(err, "error.tooManyPartitionsWatchedByClient") {
		t.Errorf("student a's 4th partition: %v, want error.tooManyPartitionsWatchedByClient", err)
	}
	if _, err := watch("a0", a); err != nil {
		t.Errorf("student a, a second view of a partition it watches: %v", err)
	}
	for i := range 3 {
		if _, err := watch(fmt.Sprintf("b%d", i), b); err != nil {
			t.Fatalf("student b, partition %d: %v", i, err)
		}
	}
	// 6 feeds run: the 2 left are the teacher's.
	if _, err := watch("c0", c); !refusedWith(err, "error.tooManyPartitionsWatched") {
		t.Errorf("student c with only the teacher's feeds free: %v, want error.tooManyPartitionsWatched", err)
	}
	for _, topic := range []string{"t0", "t1"} {
		if _, err := watch(topic, teacher); err != nil {
			t.Fatalf("the teacher's view of %s while students hold their share: %v", topic, err)
		}
	}
	if _, err := watch("t2", teacher); !refusedWith(err, "error.tooManyPartitionsWatched") {
		t.Errorf("a 9th partition for the teacher: %v, want error.tooManyPartitionsWatched", err)
	}
	if _, err := watch("t0", c); err != nil {
		t.Errorf("student c joining the teacher's partition: %v", err)
	}
	// A student leaving frees its share and a feed.
	for _, s := range subs[:4] { // a0, a1, a2 and a0 again
		s.Close()
	}
	if _, err := watch("c1", c); err != nil {
		t.Errorf("student c after student a left: %v", err)
	}
	hub.mu.Lock()
	_, counted := hub.watched[a.Client]
	hub.mu.Unlock()
	if counted {
		t.Errorf("student a is still counted after closing every view")
	}
}
