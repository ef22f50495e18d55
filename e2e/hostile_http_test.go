package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/offsetlab/offsetlab/internal/testenv"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Hostile clients against the HTTP side, each against the
// real server binary so that its memory (/proc RSS) and open files can be
// read: after every attack the server answers /healthz, its RSS stays under
// a bound set from a baseline measured in the same run, and the records it
// acknowledged before are all still there.

// hostileServer is the server binary with short timeouts, so that the
// cuts can be seen without waiting minutes, a memory limit of 160 MiB, and
// no per-client read limit (every request of the test comes from one
// address): the global limit of 8 reads at once is what is tested.
func hostileServer(t *testing.T, extra ...string) *serverProcess {
	t.Helper()
	args := append([]string{"--data-dir", t.TempDir(), "--http-idle-timeout", "2s", "--http-response-timeout", "3s",
		"--memory-limit", "160", "--max-reads-per-client", "100"}, extra...)
	return startServerProcess(t, args...)
}

// openFiles counts the process's open file descriptors.
func openFiles(t *testing.T, p *serverProcess) int {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// rssMiB is the server's resident memory in MiB.
func rssMiB(t *testing.T, p *serverProcess) int64 {
	t.Helper()
	b, err := p.rssBytes()
	if err != nil {
		t.Fatal(err)
	}
	return b >> 20
}

// settledRSSMiB is the server's resident memory once it stops changing
// (two readings 100 ms apart within 1 MiB, start-up allocations done),
// the baseline a test's growth is measured from.
func settledRSSMiB(t *testing.T, p *serverProcess) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := rssMiB(t, p)
	for {
		time.Sleep(100 * time.Millisecond) // the readings' interval
		now := rssMiB(t, p)
		if d := now - last; (d <= 1 && d >= -1) || time.Now().After(deadline) {
			return now
		}
		last = now
	}
}

// fillPartition writes n records of size bytes to topic (one partition)
// through the embedded broker's Kafka port, acks=all, and returns when
// all are acknowledged.
func fillPartition(t *testing.T, p *serverProcess, topic string, n, size int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.kafkaAddr), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	value := []byte(strings.Repeat("x", size))
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Key: []byte(strconv.Itoa(i)), Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("fill %s: %v", topic, firstErr)
	}
}

// checkHealthy fails unless /healthz answers and RSS is under limit MiB.
func checkHealthy(t *testing.T, p *serverProcess, what string, limit int64) int64 {
	t.Helper()
	resp, err := http.Get(p.url + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after %s the server does not answer /healthz: %v; log:\n%s", what, err, p.logText())
	}
	resp.Body.Close()
	rss := rssMiB(t, p)
	t.Logf("after %s: RSS %d MiB (bound %d MiB)", what, rss, limit)
	if rss > limit {
		t.Errorf("after %s the server holds %d MiB, more than the bound of %d MiB", what, rss, limit)
	}
	return rss
}

// TestHostileHTTP runs the HTTP attacks one after the other
// against one server and checks after each that it is healthy, bounded and
// lost nothing.
func TestHostileHTTP(t *testing.T) {
	testenv.Long(t, "it runs every HTTP attack against the server binary in turn")
	t.Parallel()
	p := hostileServer(t)
	a := p.app(randomSuffix(t))
	kept := a.name("kept")
	a.createTopic(kept)
	var keptValues []string
	for i := range 20 {
		keptValues = append(keptValues, "acknowledged-"+strconv.Itoa(i))
	}
	a.do("POST", "/api/produce", map[string]any{"topic": kept, "values": keptValues, "acks": "all"}, http.StatusOK, nil)
	big := a.name("big")
	a.createTopic(big)
	fillPartition(t, p, big, 60000, 300)
	// wide holds answers larger than the kernel may buffer for a client
	// that stops reading (tcp_wmem's 4 MiB ceiling plus the client's
	// small receive buffer): 5,000 values of 1,000 bytes are ~5.5 MB of
	// JSON, so a held answer keeps its handler, and its read slot, busy.
	wide := a.name("wide")
	a.createTopic(wide)
	fillPartition(t, p, wide, 5000, 1000)
	base := settledRSSMiB(t, p)
	// The bound: 8 reads of 5,000 offsets at ~10 MB each at most, plus
	// the Go runtime's slack. Without the limits the same attacks took
	// gigabytes.
	bound := base + 200
	t.Logf("baseline RSS %d MiB; bound %d MiB", base, bound)

	t.Run("100 concurrent records reads of a big partition", func(t *testing.T) {
		var wg sync.WaitGroup
		codes := make(chan int, 100)
		for range 100 {
			wg.Go(func() {
				resp, err := http.Get(p.url + "/api/topics/" + big + "/partitions/0/records?isolation=read_uncommitted&limit=5000")
				if err != nil {
					t.Logf("a read failed: %v", err)
					codes <- 0
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Logf("a %d answer was cut: %v", resp.StatusCode, err)
					codes <- -1
					return
				}
				codes <- resp.StatusCode
			})
		}
		wg.Wait()
		close(codes)
		seen := map[int]int{}
		for c := range codes {
			seen[c]++
		}
		// 0 (no answer) and -1 (an answer cut short) are failures too:
		// these clients read what they are sent, however busy the
		// machine, and the response timeout is for those that do not.
		t.Logf("answers: %v", seen)
		for c := range seen {
			if c != http.StatusOK && c != http.StatusTooManyRequests && c != http.StatusServiceUnavailable {
				t.Errorf("a read answered %d", c)
			}
		}
		if seen[http.StatusOK] == 0 {
			t.Error("no read was served")
		}
		checkHealthy(t, p, "the records flood", bound)
	})

	t.Run("100 held records reads run 8 at a time", func(t *testing.T) {
		// Each client reads the answer's headers, then stops reading,
		// with a small receive buffer: the server's handler stays in
		// its write, holding its read slot and its memory, until the
		// response timeout (3 s) cuts it. The global limit of 8 reads
		// at once lets 8 through, then 8 more when those are cut; the
		// rest wait out the queue (5 s) and get 503. Without the
		// limiter all 100 would be answered at once, each holding a
		// 5,000-record answer.
		held := heldReads(t, p, "/api/topics/"+wide+"/partitions/0/records?isolation=read_uncommitted&limit=5000", 100)
		t.Logf("answers while held: %v", held)
		if held[http.StatusOK] == 0 || held[http.StatusOK] > 2*8 || held[http.StatusServiceUnavailable] == 0 || held[http.StatusOK]+held[http.StatusServiceUnavailable] != 100 {
			t.Errorf("answers to 100 held reads %v; want at most 16 (two turns of 8 reads at once) answered, the rest 503", held)
		}
		checkHealthy(t, p, "100 held reads", bound)
	})

	t.Run("200 clients that ask for a big log and never read", func(t *testing.T) {
		files := openFiles(t, p)
		var conns []net.Conn
		for range 200 {
			c, err := net.Dial("tcp", strings.TrimPrefix(p.url, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "GET /api/topics/%s/partitions/0/log?from=0&limit=5000 HTTP/1.1\r\nHost: %s\r\n\r\n", big, strings.TrimPrefix(p.url, "http://"))
			conns = append(conns, c)
		}
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		held := false
		for end := time.Now().Add(60 * time.Second); !held && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			held = openFiles(t, p) >= files+150
		}
		if !held {
			// Some runs' socket buffers take the whole answers, and the
			// server is done with the readers before they pile up: there
			// is nothing held to measure then.
			t.Skipf("the server held %d more files than before, not the 150 of silent readers this case measures", openFiles(t, p)-files)
		}
		checkHealthy(t, p, "200 silent readers (while they hang)", bound)
		// The response timeout (3 s here) cuts them; the read queue
		// (5 s) turns the rest away: after both, their connections are
		// closed and their memory is back.
		waitFor(t, "the silent readers' connections to close", 30*time.Second, func() bool { return openFiles(t, p) < files+20 })
		checkHealthy(t, p, "the silent readers were cut", bound)
	})

	t.Run("300 idle keep-alive connections", func(t *testing.T) {
		files := openFiles(t, p)
		var conns []net.Conn
		for range 300 {
			c, err := net.Dial("tcp", strings.TrimPrefix(p.url, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(p.url, "http://"))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			conns = append(conns, c)
		}
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		if n := openFiles(t, p); n < files+250 {
			t.Logf("only %d more files open after 300 connections", n-files)
		}
		waitFor(t, "the idle connections to close (--http-idle-timeout 2s)", 20*time.Second, func() bool { return openFiles(t, p) < files+20 })
		checkHealthy(t, p, "300 idle connections", bound)
	})

	t.Run("a slow body does not hold the other actions", func(t *testing.T) {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /api/topics HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"name\":\"slo", strings.TrimPrefix(p.url, "http://"))
		time.Sleep(200 * time.Millisecond) // the point: a client slow to send the rest of its body
		start := time.Now()
		a.do("POST", "/api/topics", map[string]any{"name": a.name("after-slow"), "partitions": 1}, http.StatusCreated, nil)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("an action waited %v behind a slow body", d)
		}
	})

	t.Run("websockets beyond the per-client limit are refused", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		url := "ws" + strings.TrimPrefix(p.url, "http") + "/ws/topics/" + kept + "/partitions/0"
		var open []*websocket.Conn
		defer func() {
			for _, c := range open {
				c.CloseNow()
			}
		}()
		refused := 0
		for range 60 {
			c, resp, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("dial: %v (%v)", err, resp)
				}
				refused++
				continue
			}
			open = append(open, c)
		}
		if len(open) != 50 || refused != 10 {
			t.Errorf("%d websockets open and %d refused from one client, want 50 and 10", len(open), refused)
		}
		checkHealthy(t, p, "60 websockets", bound)
	})

	t.Run("transactional producers beyond the limit are refused", func(t *testing.T) {
		files := openFiles(t, p)
		refused := 0
		for i := range 40 {
			status, body := a.request("POST", "/api/transactions/"+a.name("leak"+strconv.Itoa(i))+"/begin", nil)
			switch status {
			case http.StatusOK:
			case http.StatusServiceUnavailable:
				if !strings.Contains(string(body), "error.tooManySessions") {
					t.Errorf("refusal %s", body)
				}
				refused++
			default:
				t.Fatalf("begin %d: %d %s", i, status, body)
			}
		}
		if refused != 8 {
			t.Errorf("%d of 40 begins refused, want 8 (32 sessions at most)", refused)
		}
		if n := openFiles(t, p); n > files+200 {
			t.Errorf("%d more open files after 40 begins", n-files)
		}
		checkHealthy(t, p, "40 transactional begins", bound)
	})

	t.Run("nothing acknowledged was lost", func(t *testing.T) {
		var recs records
		a.do("GET", "/api/topics/"+kept+"/partitions/0/records?isolation=read_committed", nil, http.StatusOK, &recs)
		if len(recs.Records) != len(keptValues) {
			t.Fatalf("%d records, want %d", len(recs.Records), len(keptValues))
		}
		for i, r := range recs.Records {
			if r.Value == nil || *r.Value != keptValues[i] {
				t.Errorf("record %d is %v, want %q", i, r.Value, keptValues[i])
			}
		}
	})
}

// TestWatchedPartitionsCapped: a server polls at most 64 partitions at
// once; a viewer of one more is refused with a sentence, and the
// partitions watched before still stream.
func TestWatchedPartitionsCapped(t *testing.T) {
	t.Parallel()
	p := hostileServer(t, "--max-viewers-per-client", "200")
	a := p.app(randomSuffix(t))
	topic := a.name("wide")
	a.do("POST", "/api/topics", map[string]any{"name": topic, "partitions": 70}, http.StatusCreated, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var open []*websocket.Conn
	defer func() {
		for _, c := range open {
			c.CloseNow()
		}
	}()
	for part := range 70 {
		url := "ws" + strings.TrimPrefix(p.url, "http") + "/ws/topics/" + topic + "/partitions/" + strconv.Itoa(part)
		c, resp, err := websocket.Dial(ctx, url, nil)
		if part < 64 {
			if err != nil {
				t.Fatalf("partition %d: %v", part, err)
			}
			open = append(open, c)
			continue
		}
		if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("partition %d: the 65th watched partition was not refused (%v, %v)", part, err, resp)
		}
		var body errorAnswer
		if json.NewDecoder(resp.Body).Decode(&body) != nil || body.Code != "error.tooManyPartitionsWatched" {
			t.Errorf("refusal %+v", body)
		}
	}
	if _, msg, err := open[0].Read(ctx); err != nil || !strings.Contains(string(msg), `"snapshot"`) {
		t.Errorf("the first viewer's stream: %s %v", msg, err)
	}
}

// heldReads sends n GETs of path at once, each on its own connection with
// a 16 KiB receive buffer, reads each answer's status and headers only
// and keeps the connection without reading further until every answer
// has come; it counts the statuses (0: no answer).
func heldReads(t *testing.T, p *serverProcess, path string, n int) map[int]int {
	t.Helper()
	host := strings.TrimPrefix(p.url, "http://")
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10)
		}); cerr != nil {
			return cerr
		}
		return err
	}}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		seen  = map[int]int{}
		conns []net.Conn
	)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := dialer.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		wg.Go(func() {
			status := 0
			_ = c.SetReadDeadline(time.Now().Add(time.Minute))
			if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host); err == nil {
				if resp, err := http.ReadResponse(bufio.NewReaderSize(c, 4096), nil); err == nil {
					status = resp.StatusCode
				}
			}
			mu.Lock()
			seen[status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return seen
}

// errorAnswer is the API's error answer.
type errorAnswer struct {
	Error string            `json:"error"`
	Code  string            `json:"code"`
	Args  map[string]string `json:"args"`
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReadsPerClientLimited: one client address runs at most
// --max-reads-per-client log or records reads at once; one more is turned
// away at once with 429, Retry-After and a sentence.
func TestReadsPerClientLimited(t *testing.T) {
	t.Parallel()
	p := startServerProcess(t, "--data-dir", t.TempDir(), "--max-reads-per-client", "2")
	a := p.app(randomSuffix(t))
	big := a.name("big")
	a.createTopic(big)
	fillPartition(t, p, big, 30000, 300)
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int]int{}
	retryAfter := true
	for range 20 {
		wg.Go(func() {
			resp, err := http.Get(p.url + "/api/topics/" + big + "/partitions/0/records?isolation=read_uncommitted&limit=5000")
			if err != nil {
				t.Error(err)
				return
			}
			var body errorAnswer
			if resp.StatusCode == http.StatusTooManyRequests {
				json.NewDecoder(resp.Body).Decode(&body)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			seen[resp.StatusCode]++
			if resp.StatusCode == http.StatusTooManyRequests && (resp.Header.Get("Retry-After") == "" || body.Code != "error.readsPerClient") {
				retryAfter = false
			}
		})
	}
	wg.Wait()
	t.Logf("answers: %v", seen)
	if seen[http.StatusOK] == 0 || seen[http.StatusTooManyRequests] == 0 || seen[http.StatusOK]+seen[http.StatusTooManyRequests] != 20 {
		t.Errorf("answers %v, want some 200 and some 429 (2 reads at once per client)", seen)
	}
	if !retryAfter {
		t.Error("a 429 came without Retry-After or without its sentence")
	}
}
