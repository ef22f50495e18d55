package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/cluster"
	embeddedbroker "github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/web"
)

// classroom is an app in classroom mode, with the server's own handle (for
// the teacher's login link, which only the server's log shows).
type classroom struct {
	*app
	srv  *web.Server
	host string // host:port the server listens on
}

// startClassroom starts Offset Lab in classroom mode over a fresh embedded
// broker, listening on a loopback port it knows (for the Host allowlist).
func startClassroom(t *testing.T, access web.Access) *classroom {
	t.Helper()
	kafka, err := embeddedbroker.Start(embeddedbroker.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	return startClassroomOn(t, access, kafka)
}

// startClassroomOn is startClassroom over a cluster the test owns.
func startClassroomOn(t *testing.T, access web.Access, kafka *cluster.Cluster) *classroom {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	access.ListenAddr = ts.Listener.Addr().String()
	srv := web.New(serverDeps(t, kafka, nil, t.TempDir()), testLogger(), web.WithAccess(access))
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return &classroom{
		app:  &app{t: t, url: ts.URL, kind: embedded, kafka: kafka, suffix: randomSuffix(t)},
		srv:  srv,
		host: access.ListenAddr,
	}
}

// client is one browser's worth of HTTP: its cookies and, for a teacher,
// the CSRF token its page carries.
type client struct {
	t    *testing.T
	base string
	http *http.Client
	csrf string
}

func (c *classroom) student() *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: c.t, base: c.url, http: &http.Client{Jar: jar}}
}

// teacher logs in with the one-time link and reads the CSRF token from the
// page it lands on.
func (c *classroom) teacher() *client {
	c.t.Helper()
	return loginTeacher(c.t, c.url, c.srv.TeacherLoginURL())
}

// loginTeacher follows a one-time login link against the server at base
// and returns a client with the teacher's cookie and CSRF token.
func loginTeacher(t *testing.T, base, link string) *client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	cl := &client{t: t, base: base, http: &http.Client{Jar: jar}}
	login, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	status, body, _ := cl.get(login.RequestURI())
	if status != http.StatusOK {
		t.Fatalf("teacher login: status %d: %s", status, body)
	}
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the teacher's page has no CSRF token: %.400s", body)
	}
	cl.csrf = m[1]
	return cl
}

// send makes a request as this client would from its own page (same
// Origin), with extra headers; it returns the status, body and headers.
func (cl *client) send(method, path, body string, header http.Header) (int, string, http.Header) {
	cl.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, cl.base+path, rd)
	if err != nil {
		cl.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet && method != http.MethodHead {
		req.Header.Set("Origin", cl.base)
		if cl.csrf != "" {
			req.Header.Set("X-CSRF-Token", cl.csrf)
		}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		cl.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		cl.t.Fatal(err)
	}
	return resp.StatusCode, string(raw), resp.Header
}

func (cl *client) get(path string) (int, string, http.Header) {
	cl.t.Helper()
	return cl.send(http.MethodGet, path, "", nil)
}

func (cl *client) post(path, body string) (int, string) {
	cl.t.Helper()
	status, raw, _ := cl.send(http.MethodPost, path, body, nil)
	return status, raw
}

// stateChanging lists every state-changing request the API offers — each
// non-GET route of the server's router, found by walking it (chi.Walk), so
// a route added later is on the list without anyone writing it — with the
// bodies that matter (faults, crashes), and a few requests it does not
// offer, which must be refused the same way: a student gets 403 for each,
// before anything reaches the broker.
func stateChanging(t *testing.T, h http.Handler, topic string) []struct{ method, path, body string } {
	t.Helper()
	bodies := map[string][]string{
		"/api/topics":              {`{"name":"student-made","partitions":1}`},
		"/api/produce":             {fmt.Sprintf(`{"topic":%q,"values":["from a student"]}`, topic), fmt.Sprintf(`{"topic":%q,"values":["x"],"fault":"lose-ack"}`, topic), fmt.Sprintf(`{"topic":%q,"values":["x"],"fault":"double-send"}`, topic)},
		"/api/processor/runs":      {fmt.Sprintf(`{"mode":"tx","input":%q,"output":%q,"group":"g","transactionalId":"t","crashAt":"O-2"}`, topic, topic), fmt.Sprintf(`{"mode":"plain","input":%q,"output":%q,"group":"g"}`, topic, topic)},
		"/api/transactions/x/send": {fmt.Sprintf(`{"topic":%q,"values":["x"]}`, topic)},
		"/api/lessons/cleanup":     {"", `{"confirm":["` + topic + `"]}`},
	}
	// Each parameter takes the values worth trying: every step and action.
	params := map[string][]string{
		"{topic}": {topic}, "{partition}": {"0"}, "{start}": {"0"}, "{transactionalID}": {"student-tx"},
		"{step}": {"begin", "send", "commit", "abort", "crash"}, "{id}": {"1"}, "{action}": {"stop", "start", "next", "finish", "reset", "cleanup"},
		"{lesson}": {"2"}, "{run}": {"x"}, "{exercise}": {"commit"},
	}
	var out []struct{ method, path, body string }
	err := chi.Walk(h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodGet || method == http.MethodHead {
			return nil
		}
		if method == http.MethodPost && route == "/api/classroom/students" {
			return nil // the one write a student may send: joining (TestHandsOnStudents)
		}
		paths := []string{route}
		for name, values := range params {
			var next []string
			for _, p := range paths {
				if !strings.Contains(p, name) {
					next = append(next, p)
					continue
				}
				for _, v := range values {
					next = append(next, strings.ReplaceAll(p, name, v))
				}
			}
			paths = next
		}
		for _, p := range paths {
			key := strings.Replace(p, "/student-tx/", "/x/", 1)
			bs := bodies[key]
			if bs == nil {
				bs = []string{""}
			}
			for _, b := range bs {
				out = append(out, struct{ method, path, body string }{method, p, b})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("the router's walk found %d state-changing requests: %v", len(out), out)
	}
	return append(out, []struct{ method, path, body string }{
		{"POST", "/api/brokers", `{"brokers":["10.0.0.1:9092"]}`},
		{"PUT", "/api/topics/" + topic, `{}`},
		{"PATCH", "/api/topics/" + topic, `{}`},
		{"POST", "/", ""},
		{"POST", "/topics/" + topic + "/partitions/0", ""},
		{"POST", "/teacher/login?token=x", ""},
	}...)
}

// TestClassroomStudentIsReadOnly: in classroom mode a browser without the
// teacher's cookie (or with a forged one) is a student. Every
// state-changing request answers 403 with a sentence, nothing changes on
// the broker, and the student's page carries none of the controls that
// change anything; reading still works. The teacher, logged in with the
// one-time link, can change things, but only with the page's CSRF token
// and from the page's own origin.
func TestClassroomStudentIsReadOnly(t *testing.T) {
	t.Parallel()
	c := startClassroom(t, web.Access{Classroom: true})
	teacher := c.teacher()
	topic := c.name("lesson")
	if status, body := teacher.post("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, topic)); status != http.StatusCreated {
		t.Fatalf("teacher creates a topic: %d %s", status, body)
	}
	if status, body := teacher.post("/api/produce", fmt.Sprintf(`{"topic":%q,"values":["O-1"]}`, topic)); status != http.StatusOK {
		t.Fatalf("teacher produces: %d %s", status, body)
	}

	forged := c.student()
	u, _ := url.Parse(c.url)
	forged.http.Jar.SetCookies(u, []*http.Cookie{{Name: "offsetlab_teacher", Value: "forged"}})
	for name, student := range map[string]*client{"student": c.student(), "forged cookie": forged} {
		for _, req := range stateChanging(t, c.srv.Handler(), topic) {
			status, body, _ := student.send(req.method, req.path, req.body, nil)
			want := `"error":"This is the student view`
			if name == "forged cookie" {
				want = `"code":"error.teacherSessionEnded"` // as a session the server no longer has
			}
			if status != http.StatusForbidden || !strings.Contains(body, want) {
				t.Errorf("%s: %s %s: %d %s; want 403 with %s", name, req.method, req.path, status, body, want)
			}
		}
		// Reading works.
		for _, path := range []string{"/api/topics", "/api/topics/" + topic + "/partitions/0/log", "/topics/" + topic + "/partitions/0"} {
			if status, body, _ := student.get(path); status != http.StatusOK {
				t.Errorf("%s: GET %s: %d %s", name, path, status, body)
			}
		}
		_, page, _ := student.get("/topics/" + topic + "/partitions/0")
		for _, id := range []string{"seed-form", "processor-form", "processor-crash", "txn-form", "txn-crash", "producer-form", "create-form", "csrf-token", "classroom-panel"} {
			if strings.Contains(page, id) {
				t.Errorf("%s: the student page carries %q", name, id)
			}
		}
		if !strings.Contains(page, `data-role="student"`) || !strings.Contains(page, `data-testid="follow-teacher"`) {
			t.Errorf("%s: the page is not the student view", name)
		}
	}
	// Nothing a student sent reached the broker.
	if status, _, _ := teacher.get("/api/topics/student-made"); status != http.StatusNotFound {
		t.Errorf("GET /api/topics/student-made: %d, want 404", status)
	}
	equal(t, "the log after the students' attempts", c.log(topic).shape(), []string{"0:none"})

	// The teacher needs the CSRF token, and the page's own origin.
	noToken := &client{t: t, base: c.url, http: teacher.http}
	for _, tc := range []struct {
		name   string
		cl     *client
		header http.Header
	}{
		{"no CSRF token", noToken, nil},
		{"a wrong CSRF token", noToken, http.Header{"X-Csrf-Token": {"wrong"}}},
		{"a foreign Origin", teacher, http.Header{"Origin": {"http://evil.example"}}},
		{"a cross-site fetch", teacher, http.Header{"Sec-Fetch-Site": {"cross-site"}}},
		{"Origin null", teacher, http.Header{"Origin": {"null"}}},
	} {
		status, body, _ := tc.cl.send("POST", "/api/produce", fmt.Sprintf(`{"topic":%q,"values":["forged"]}`, topic), tc.header)
		if status != http.StatusForbidden {
			t.Errorf("teacher POST with %s: %d %s; want 403", tc.name, status, body)
		}
	}
	equal(t, "the log after the refused teacher requests", c.log(topic).shape(), []string{"0:none"})
	if status, body := teacher.post("/api/produce", fmt.Sprintf(`{"topic":%q,"values":["O-2"]}`, topic)); status != http.StatusOK {
		t.Fatalf("teacher produces again: %d %s", status, body)
	}
}

// TestClassroomLoginLinkWorksOnce: the login link makes a browser the
// teacher once; used again it is refused, and the server has a fresh one.
// The cookie it sets is HttpOnly and SameSite=Strict, and the redirect
// takes the token out of the address bar.
func TestClassroomLoginLinkWorksOnce(t *testing.T) {
	t.Parallel()
	c := startClassroom(t, web.Access{Classroom: true})
	link, _ := url.Parse(c.srv.TeacherLoginURL())
	if link.Host != c.host || link.Path != "/teacher/login" || len(link.Query().Get("token")) < 40 {
		t.Fatalf("login link %s: want http://%s/teacher/login?token=<256 bits>", link, c.host)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(c.url + link.RequestURI())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("login: %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookie := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"offsetlab_teacher=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, link.Query().Get("token")) {
		t.Errorf("the cookie holds the login token: %s", cookie)
	}
	resp, err = noRedirect.Get(c.url + link.RequestURI())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Set-Cookie") != "" {
		t.Fatalf("the used link again: %d (cookie %q), want 403 and no cookie", resp.StatusCode, resp.Header.Get("Set-Cookie"))
	}
	if next := c.srv.TeacherLoginURL(); next == link.String() {
		t.Fatal("the login token was not replaced after use")
	}
	c.teacher() // the fresh link works
}

// TestClassroomForeignHostRefused: a request whose Host is not this
// server's (a DNS-rebinding page) is refused with 421, page, API and
// websocket alike, in classroom mode and in the default single-user mode
// when the server knows its address; loopback names and --allowed-hosts
// are accepted.
func TestClassroomForeignHostRefused(t *testing.T) {
	t.Parallel()
	for _, classroomMode := range []bool{true, false} {
		t.Run(fmt.Sprintf("classroom=%v", classroomMode), func(t *testing.T) {
			t.Parallel()
			c := startClassroom(t, web.Access{Classroom: classroomMode, AllowedHosts: []string{"lab.school.example"}})
			_, port, _ := strings.Cut(c.host, ":")
			topic := c.name("hosts")
			student := c.student()
			if classroomMode {
				c.teacher().mustPost("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, topic), http.StatusCreated)
			} else {
				c.createTopic(topic)
			}
			tests := []struct {
				host string
				want int
			}{
				{"evil.example", http.StatusMisdirectedRequest},
				{"evil.example:" + port, http.StatusMisdirectedRequest},
				{"127.0.0.1.nip.example:" + port, http.StatusMisdirectedRequest},
				{"127.0.0.1:1", http.StatusMisdirectedRequest},
				{"127.0.0.1:" + port, http.StatusOK},
				{"localhost:" + port, http.StatusOK},
				{"[::1]:" + port, http.StatusOK},
				{"lab.school.example", http.StatusOK},
				{"LAB.school.example:443", http.StatusOK},
			}
			for _, tt := range tests {
				for _, path := range []string{"/healthz", "/api/topics", "/topics/" + topic + "/partitions/0"} {
					status, body, _ := student.send("GET", path, "", http.Header{"Host": {tt.host}})
					if status != tt.want {
						t.Errorf("GET %s with Host %s: %d %s; want %d", path, tt.host, status, body, tt.want)
					}
				}
				if status, _, _ := student.send("POST", "/api/topics", `{"name":"rebound","partitions":1}`, http.Header{"Host": {tt.host}, "Origin": {"http://" + tt.host}}); tt.want != http.StatusOK && status != tt.want {
					t.Errorf("POST with Host %s: %d, want %d", tt.host, status, tt.want)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(c.url, "http")+"/ws/topics/"+topic+"/partitions/0",
				&websocket.DialOptions{Host: "evil.example:" + port, HTTPHeader: http.Header{"Origin": {"http://evil.example:" + port}}})
			if err == nil {
				conn.CloseNow()
				t.Fatal("a websocket for a foreign Host was accepted")
			}
			if resp == nil || resp.StatusCode != http.StatusMisdirectedRequest {
				t.Fatalf("websocket with a foreign Host: %v (%v), want 421", err, resp)
			}
		})
	}
}

// TestClassroomWebsocketOrigin: the stream refuses a page of another
// origin, serves the student's own page, and the teacher's page counts the
// students watching.
func TestClassroomWebsocketOrigin(t *testing.T) {
	t.Parallel()
	c := startClassroom(t, web.Access{Classroom: true})
	teacher := c.teacher()
	topic := c.name("origin")
	teacher.mustPost("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, topic), http.StatusCreated)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, resp, err := c.dialStream(ctx, topic, "http://evil.example")
	if err == nil {
		conn.CloseNow()
		t.Fatal("a foreign-origin websocket was accepted")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign-origin websocket: %v (%v), want 403", err, resp)
	}
	var conns []*websocket.Conn
	for range 3 {
		conn, _, err := c.dialStream(ctx, topic, c.url)
		if err != nil {
			t.Fatalf("same-origin student websocket refused: %v", err)
		}
		conns = append(conns, conn)
	}
	waitStudents := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var v struct {
				Students int64  `json:"students"`
				Role     string `json:"role"`
				JoinURL  string `json:"joinUrl"`
			}
			_, body, _ := teacher.get("/api/classroom")
			if err := jsonUnmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if v.Role != "teacher" || v.JoinURL == "" {
				t.Fatalf("GET /api/classroom as the teacher = %s", body)
			}
			if v.Students == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("students watching = %d, want %d", v.Students, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitStudents(3)
	for _, conn := range conns {
		conn.CloseNow()
	}
	waitStudents(0)
}

// TestClassroomTokenNeverServed crawls everything a student can fetch —
// the pages, every static asset they load (and the modules those import),
// the API's read endpoints, the QR code, the login page with a wrong
// token, error pages, and the websocket stream — while the teacher is
// logged in and working, and checks that no response (body or header)
// holds the login token (used or current), the teacher's session cookie or
// the teacher's CSRF token.
func TestClassroomTokenNeverServed(t *testing.T) {
	t.Parallel()
	c := startClassroom(t, web.Access{Classroom: true})
	usedToken := tokenOf(t, c.srv.TeacherLoginURL())
	teacher := c.teacher()
	currentToken := tokenOf(t, c.srv.TeacherLoginURL())
	u, _ := url.Parse(c.url)
	var session string
	for _, ck := range teacher.http.Jar.Cookies(u) {
		if ck.Name == "offsetlab_teacher" {
			session = ck.Value
		}
	}
	if session == "" {
		t.Fatal("the teacher has no session cookie")
	}
	secrets := map[string]string{"used login token": usedToken, "current login token": currentToken, "session cookie": session, "CSRF token": teacher.csrf}

	orders, _, totalsTx := teacher.seed(c.app)
	if status, body := teacher.post("/api/processor/runs", fmt.Sprintf(`{"mode":"tx","input":%q,"output":%q,"group":"g","transactionalId":"tx","crashAt":"O-2"}`, orders, totalsTx)); status != http.StatusOK {
		t.Fatalf("teacher's crash run: %d %s", status, body)
	}
	if status, body := teacher.post("/api/transactions/step-tx/begin", ""); status != http.StatusOK {
		t.Fatalf("teacher's begin: %d %s", status, body)
	}

	// A student reads the partition on the stage (and what their own
	// Kafka user may): the teacher puts the totals there.
	if status, body := teacher.post("/api/classroom/stage", fmt.Sprintf(`{"topic":%q,"partition":0}`, totalsTx)); status != http.StatusOK {
		t.Fatalf("stage: %d %s", status, body)
	}
	student := c.student()
	seen := map[string]bool{}
	queue := []string{"/", "/topics/" + totalsTx + "/partitions/0", "/topics/nope/partitions/0", "/topics/" + orders + "/partitions/x",
		"/api/cluster", "/api/topics", "/api/topics/" + orders, "/api/topics/" + totalsTx,
		"/api/topics/" + totalsTx + "/partitions/0/log?from=0&limit=100",
		"/api/topics/" + totalsTx + "/partitions/0/records?isolation=read_committed",
		"/api/topics/" + totalsTx + "/partitions/0/records?isolation=read_uncommitted",
		"/api/groups/g", "/api/transactions/tx", "/api/transactions/step-tx", "/api/classroom", "/api/nope", "/api/lessons", "/api/brokers",
		"/healthz", "/classroom/join.svg", "/teacher/login", "/teacher/login?token=wrong", "/static/0/partition/app.js", "/nope"}
	assetRe := regexp.MustCompile(`(?:src|href)="(/static/[^"]+)"`)
	importRe := regexp.MustCompile(`from '(\.\.?/[a-z/]+\.js)'`)
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		if seen[path] {
			continue
		}
		seen[path] = true
		status, body, header := student.get(path)
		if status >= 500 {
			t.Errorf("GET %s: %d %s", path, status, body)
		}
		all := body
		for k, v := range header {
			all += "\n" + k + ": " + strings.Join(v, ", ")
		}
		for what, secret := range secrets {
			if strings.Contains(all, secret) {
				t.Errorf("GET %s (as a student) serves the %s", path, what)
			}
		}
		for _, m := range assetRe.FindAllStringSubmatch(body, -1) {
			queue = append(queue, m[1])
		}
		if strings.HasSuffix(path, ".js") {
			for _, m := range importRe.FindAllStringSubmatch(body, -1) {
				ref := &url.URL{Path: m[1]}
				queue = append(queue, (&url.URL{Path: path}).ResolveReference(ref).Path)
			}
		}
	}
	var assets []string
	for p := range seen {
		if strings.HasPrefix(p, "/static/") && !strings.HasPrefix(p, "/static/0/") {
			assets = append(assets, p)
		}
	}
	if len(assets) < 8 {
		t.Errorf("the crawl found only %d static assets: %v", len(assets), assets)
	}

	// The stream: the snapshot and what follows while the teacher works.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := c.dialStream(ctx, totalsTx, c.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 20)
	var mu sync.Mutex
	var stream []string
	go func() {
		for {
			_, raw, err := conn.Read(ctx)
			if err != nil {
				return
			}
			mu.Lock()
			stream = append(stream, string(raw))
			mu.Unlock()
		}
	}()
	if status, body := teacher.post("/api/processor/runs", fmt.Sprintf(`{"mode":"tx","input":%q,"output":%q,"group":"g","transactionalId":"tx"}`, orders, totalsTx)); status != http.StatusOK {
		t.Fatalf("teacher's restart run: %d %s", status, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		joined := strings.Join(stream, "\n")
		mu.Unlock()
		if strings.Contains(joined, `"marker":"COMMIT"`) && strings.Count(joined, `"type":"event"`) >= 1 {
			for what, secret := range secrets {
				if strings.Contains(joined, secret) {
					t.Errorf("the websocket stream serves the %s", what)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream never showed the restart's markers; got %d messages", len(stream))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFaultActionsRateLimited: fault buttons (a produce with a fault, a
// processor run, a transaction crash) answer 429 with a sentence once they
// come faster than a few a second, so a stuck key cannot flood the broker;
// plain reads are not limited.
func TestFaultActionsRateLimited(t *testing.T) {
	t.Parallel()
	c := startClassroom(t, web.Access{Classroom: true})
	teacher := c.teacher()
	var statuses []int
	for range 12 {
		status, body := teacher.post("/api/transactions/nobody/crash", "")
		statuses = append(statuses, status)
		if status == http.StatusTooManyRequests && !strings.Contains(body, "Too many fault actions") {
			t.Fatalf("429 without the sentence: %s", body)
		}
	}
	if !slices.Contains(statuses, http.StatusTooManyRequests) || statuses[0] == http.StatusTooManyRequests {
		t.Fatalf("12 crash clicks in a row answered %v; want the first ones through (409: no session) and then 429", statuses)
	}
	for range 20 {
		if status, _, _ := teacher.get("/api/topics"); status != http.StatusOK {
			t.Fatalf("a read was limited: %d", status)
		}
	}
}

// mustPost posts as cl and fails the test unless the status is want.
func (cl *client) mustPost(path, body string, want int) string {
	cl.t.Helper()
	status, raw := cl.post(path, body)
	if status != want {
		cl.t.Fatalf("POST %s: %d %s; want %d", path, status, raw, want)
	}
	return raw
}

// seed creates the seed's topics and writes its three orders, as the
// teacher.
func (cl *client) seed(a *app) (orders, totals, totalsTx string) {
	cl.t.Helper()
	orders, totals, totalsTx = a.name("orders"), a.name("order-totals"), a.name("order-totals-tx")
	for _, topic := range []string{orders, totals, totalsTx} {
		cl.mustPost("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, topic), http.StatusCreated)
	}
	cl.mustPost("/api/produce", fmt.Sprintf(`{"topic":%q,"values":["O-1 2x15000","O-2 1x42000","O-3 3x9000"]}`, orders), http.StatusOK)
	return orders, totals, totalsTx
}

func tokenOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("no token in %q", link)
	}
	return u.Query().Get("token")
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
