package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A classroom is many computers. These tests model one on this machine:
// each student dials from its own loopback address (all of 127.0.0.0/8 is
// this host on Linux), so the server's per-client limits, which count by
// remote address, see a class and not one client.

// studentAddr is the n-th student's source address, 127.77.x.y.
func studentAddr(n int) net.IP {
	return net.IPv4(127, 77, byte(n/250), byte(n%250+1))
}

// viewerDialer dials websockets from src (nil: the default address),
// carrying jar's cookies (nil: none, a student).
func viewerDialer(src net.IP, jar http.CookieJar) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if src != nil {
		d.LocalAddr = &net.TCPAddr{IP: src}
	}
	return &http.Client{Jar: jar, Transport: &http.Transport{DialContext: d.DialContext}}
}

// dialView opens a live view of topic/0 on base through cl. It returns
// the connection, or the refusal's status and body.
func dialView(ctx context.Context, base string, cl *http.Client, topic string) (*websocket.Conn, int, string) {
	wsURL := "ws" + strings.TrimPrefix(base, "http") + "/ws/topics/" + topic + "/partitions/0"
	conn, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: cl, HTTPHeader: http.Header{"Origin": {base}}})
	if err == nil {
		return conn, http.StatusSwitchingProtocols, ""
	}
	status, body := 0, err.Error()
	if resp != nil {
		status = resp.StatusCode
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		body = string(buf[:n])
	}
	return nil, status, body
}

// TestTeacherKeepsHerShare fills the server's live views and watched
// partitions from many student addresses, each up to its own cap, and
// checks that the teacher still opens views of new partitions; that each
// cap counts the student's address (the server sees the source address);
// and, as the hostile suites do, that the server stays healthy, bounded,
// and lost nothing.
func TestTeacherKeepsHerShare(t *testing.T) {
	t.Parallel()
	const (
		maxViewers, teacherViewers, perClient    = 60, 8, 4
		watchedPerClient, maxFeeds, teacherFeeds = 2, 64, 16
	)
	srv := startServerProcess(t, "--classroom", "--data-dir", t.TempDir(), "--memory-limit", "160",
		"--max-viewers", strconv.Itoa(maxViewers), "--teacher-viewers", strconv.Itoa(teacherViewers),
		"--max-viewers-per-client", strconv.Itoa(perClient), "--max-watched-per-client", strconv.Itoa(watchedPerClient),
		"--teacher-watched", strconv.Itoa(teacherFeeds))
	teacher := loginTeacher(t, srv.url, srv.waitLog(regexp.MustCompile(`loginURL="?(http://[^\s"]+)`), 10*time.Second))
	suffix := randomSuffix(t)
	topic := func(i int) string { return fmt.Sprintf("share-%d-%s", i, suffix) }
	for i := range maxFeeds + 1 {
		teacher.mustPost("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, topic(i)), http.StatusCreated)
	}
	kept := "share-kept-" + suffix
	teacher.mustPost("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, kept), http.StatusCreated)
	teacher.mustPost("/api/produce", fmt.Sprintf(`{"topic":%q,"partition":0,"values":["a","b","c"],"acks":"all"}`, kept), http.StatusOK)
	baseline := checkHealthy(t, srv, "setup", 1<<20)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var open []*websocket.Conn
	defer func() {
		for _, c := range open {
			c.CloseNow()
		}
	}()
	mustView := func(cl *http.Client, topic, who string) {
		t.Helper()
		conn, status, body := dialView(ctx, srv.url, cl, topic)
		if conn == nil {
			t.Fatalf("%s: view of %s refused: %d %s", who, topic, status, body)
		}
		open = append(open, conn)
	}
	// A student may view only what the class may read: the teacher puts
	// each partition on the stage before a student opens it (views stay
	// open when the stage moves on), so that the caps are what refuses.
	stage := func(topic string) {
		t.Helper()
		teacher.mustPost("/api/classroom/stage", fmt.Sprintf(`{"topic":%q,"partition":0}`, topic), http.StatusOK)
	}
	studentView := func(cl *http.Client, topic, who string) {
		t.Helper()
		stage(topic)
		mustView(cl, topic, who)
	}
	mustRefuse := func(cl *http.Client, topic, who, key string) {
		t.Helper()
		stage(topic)
		conn, status, body := dialView(ctx, srv.url, cl, topic)
		if conn != nil {
			open = append(open, conn)
			t.Fatalf("%s: view of %s was not refused", who, topic)
		}
		if status != http.StatusServiceUnavailable || !strings.Contains(body, key) {
			t.Fatalf("%s: view of %s refused with %d %s, want 503 %s", who, topic, status, body, key)
		}
	}

	// Off the stage (and not the partition the teacher last wrote) a
	// student's view is refused for its rights.
	if conn, status, body := dialView(ctx, srv.url, viewerDialer(studentAddr(0), nil), topic(maxFeeds)); conn != nil || status != http.StatusForbidden || !strings.Contains(body, "error.readNotYours") {
		if conn != nil {
			open = append(open, conn)
		}
		t.Fatalf("a student's view of a topic off the stage: %d %s, want 403 error.readNotYours", status, body)
	}

	// Students take every watched partition that is not the teacher's,
	// two each: 24 students, 48 partitions, 48 views.
	studentFeeds := maxFeeds - teacherFeeds
	students := make([]*http.Client, 0, studentFeeds/watchedPerClient+1)
	for n := range studentFeeds/watchedPerClient + 1 {
		students = append(students, viewerDialer(studentAddr(n), nil))
	}
	for n := range studentFeeds / watchedPerClient {
		for k := range watchedPerClient {
			studentView(students[n], topic(n*watchedPerClient+k), "student "+strconv.Itoa(n))
		}
	}
	mustRefuse(students[0], topic(studentFeeds), "student 0's third partition", "error.tooManyPartitionsWatchedByClient")
	last := students[len(students)-1]
	mustRefuse(last, topic(studentFeeds), "a student when only the teacher's partitions are free", "error.tooManyPartitionsWatched")

	// Students fill the views left to them by joining partitions they
	// watch: student 0 up to its own cap, students 1 and 2 one more each.
	for _, n := range []int{0, 0, 1, 2} {
		studentView(students[n], topic(n*watchedPerClient), "student "+strconv.Itoa(n)+", another view")
	}
	mustRefuse(students[0], topic(0), "student 0 past its views", "error.viewersPerClient")
	mustRefuse(last, topic(0), "a student when only the teacher's views are free", "error.viewersFull")

	// The teacher still opens views of partitions no one watches.
	teacherWS := viewerDialer(nil, teacher.http.Jar)
	for i := range teacherViewers - 1 {
		mustView(teacherWS, topic(studentFeeds+i%watchedPerClient), "the teacher, view "+strconv.Itoa(i))
	}
	mustView(teacherWS, kept, "the teacher, the kept topic")
	checkHealthy(t, srv, "students holding every view and partition they may", baseline+64)
	for _, c := range open {
		c.CloseNow()
	}
	open = nil
	got := srv.app(suffix).consumed(kept, "read_committed")
	equal(t, "the acknowledged records", got, []string{"0: a", "1: b", "2: c"})
}
