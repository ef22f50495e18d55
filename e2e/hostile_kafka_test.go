package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestHostileKafkaClients runs the server binary, produces records with
// acks=all, then attacks the embedded broker's Kafka port the ways that
// once took it down (docs/divergences.md) — unknown API keys, garbage,
// HTTP, 1 GiB size prefixes, stalled requests, thousands of idle
// connections, more connections than the cap. After each attack the server
// must answer /healthz, its RSS must stay within rssHeadroom of the baseline
// measured in this run, every acknowledged record must still be readable,
// and every connection the guard closed must have reached the client as EOF
// within the deadline the server was given.
func TestHostileKafkaClients(t *testing.T) {
	testenv.Long(t, "it attacks the server binary's Kafka port, thousands of connections included")
	// Short deadlines so that the test waits seconds, not Kafka's
	// minutes; the size and connection limits are the defaults, named
	// here so that OFFSETLAB_KAFKA_* in the environment cannot change them.
	const requestTimeout, idleTimeout = 2 * time.Second, 15 * time.Second
	srv := startServerProcess(t, "--data-dir", t.TempDir(),
		"--kafka-request-timeout", requestTimeout.String(), "--kafka-idle-timeout", idleTimeout.String(),
		"--kafka-max-request-bytes", "104857600", "--kafka-max-connections", "1024", "--kafka-max-connections-per-ip", "64")
	a := srv.app("hostile")
	kafka := srv.kafkaAddr
	if kafka == "" {
		t.Fatal("the server did not log its Kafka address")
	}

	topic := a.name("acked")
	a.createTopic(topic)
	var want []string
	for round := range 4 {
		var values []string
		for i := range 5 {
			values = append(values, fmt.Sprintf("acked-%d-%d", round, i))
		}
		var out produceOutcome
		a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": values, "acks": "all"}, http.StatusOK, &out)
		for i, r := range out.Results {
			if r.Error != nil || r.Offset == nil {
				t.Fatalf("produce %q with acks=all: %+v", values[i], r)
			}
		}
		want = append(want, values...)
	}
	a.log(topic) // warm the read path before measuring

	baseline, err := srv.rssBytes()
	if err != nil {
		t.Skipf("no RSS to measure: %v", err)
	}
	// The bound: the guard holds at most QueuedMaxRequestBytes (64 MiB)
	// of partial requests — or one request up to MaxRequestBytes alone —
	// plus, per connection (at most 1024), a few goroutine stacks and at
	// most 16 KiB of a small request: about 40 MiB. 150 MiB covers that
	// with room for the garbage collector's slack; without the guard the
	// first 1 GiB size prefix alone is over it.
	const rssHeadroom = 150 << 20
	t.Logf("RSS baseline %s (bound %s)", mib(baseline), mib(baseline+rssHeadroom))

	check := func(attack string) {
		t.Helper()
		resp, err := http.Get(srv.url + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("after %s: GET /healthz: %v %v\nserver log:\n%s", attack, resp, err, srv.logText())
		}
		resp.Body.Close()
		rss, err := srv.rssBytes()
		if err != nil {
			t.Fatalf("after %s: %v", attack, err)
		}
		t.Logf("after %-44s RSS %s (%+.1f MiB)", attack+":", mib(rss), float64(rss-baseline)/(1<<20))
		if rss > baseline+rssHeadroom {
			t.Errorf("after %s: RSS %s, over the bound %s", attack, mib(rss), mib(baseline+rssHeadroom))
		}
		l := a.log(topic)
		var got []string
		for _, e := range l.Entries {
			if e.Value != nil {
				got = append(got, *e.Value)
			}
		}
		equal(t, "acknowledged records after "+attack, got, want)
	}

	header := func(key int16) []byte {
		b := binary.BigEndian.AppendUint32(nil, 10)
		b = binary.BigEndian.AppendUint16(b, uint16(key))
		return append(b, 0, 0, 0, 0, 0, 1, 0xff, 0xff)
	}
	garbage := make([]byte, 50)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	garbageFrame := append(binary.BigEndian.AppendUint32(nil, 46), garbage[:46]...)

	// Each of these closes its own connection at once.
	for _, tt := range []struct {
		name   string
		stream []byte
	}{
		{"API key 9999 (the packet that panicked kfake)", header(9999)},
		{"API key -1", header(-1)},
		{"API key 100", header(100)},
		{"a 50-byte garbage frame", garbageFrame},
		{"50 bytes of garbage", garbage},
		{"curl's GET / HTTP/1.1", []byte("GET / HTTP/1.1\r\nHost: " + kafka + "\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n")},
	} {
		conns := dialAll(t, kafka, 1)
		writeAll(conns, tt.stream)
		closedWithin(t, tt.name, conns, 5*time.Second)
		check(tt.name)
	}

	// Four connections that each claim a 1 GiB request, three rounds.
	for round := range 3 {
		conns := dialAll(t, kafka, 4)
		writeAll(conns, []byte{0x40, 0, 0, 0})
		closedWithin(t, "1 GiB size prefix", conns, 5*time.Second)
		check(fmt.Sprintf("4 x 1 GiB size prefixes, round %d", round+1))
	}

	// Truncated requests that stall: small ones, and sixteen that claim
	// 16 MiB and send 15 — 240 MiB if all were held, which the shared
	// budget of queued request bytes keeps to 64 MiB. Each is closed
	// once its RequestTimeout has passed.
	small := dialAll(t, kafka, 50)
	writeAll(small, append(binary.BigEndian.AppendUint32(nil, 100), header(3)[4:]...))
	big := dialAll(t, kafka, 16)
	var writers sync.WaitGroup
	for _, c := range big {
		writers.Go(func() {
			_ = c.SetWriteDeadline(time.Now().Add(requestTimeout + 5*time.Second))
			_, _ = c.Write(append(binary.BigEndian.AppendUint32(nil, 16<<20), make([]byte, 15<<20)...))
		})
	}
	time.Sleep(requestTimeout / 2) // mid-attack: the most memory they can hold
	check("stalled requests, mid-attack")
	closedWithin(t, "a stalled small request", small, requestTimeout+5*time.Second)
	closedWithin(t, "a stalled 16 MiB request", big, requestTimeout+5*time.Second)
	writers.Wait()
	check("stalled requests (50 small, 16 x 15 of 16 MiB)")

	// A few thousand idle connections, more than the cap of 1024: the
	// guard refuses or evicts the excess at once, the dashboard still
	// reaches the broker (its new connections close idle ones), and the
	// rest close after the idle timeout.
	idle := dialAll(t, kafka, 3000)
	start := time.Now()
	open := stillOpen(idle, 500*time.Millisecond)
	t.Logf("3000 idle connections: %d still open after %v", open, time.Since(start).Round(time.Millisecond))
	if open > 1024 {
		t.Errorf("%d of 3000 idle connections are open, over the cap of 1024", open)
	}
	check("3000 idle connections")
	var out produceOutcome
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"during the flood"}, "acks": "all"}, http.StatusOK, &out)
	if len(out.Results) != 1 || out.Results[0].Error != nil {
		t.Fatalf("produce with 3000 idle connections open: %+v", out.Results)
	}
	want = append(want, "during the flood")
	closedWithin(t, "an idle connection", idle, idleTimeout+10*time.Second)
	check("3000 idle connections, after the idle timeout")
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// dialAll opens n connections to addr, closed when the test ends.
func dialAll(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %s (connection %d of %d): %v", addr, len(conns)+1, n, err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
	}
	return conns
}

// writeAll writes b on every connection; a connection the broker has
// already closed may refuse it, which is fine.
func writeAll(conns []net.Conn, b []byte) {
	for _, c := range conns {
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, _ = c.Write(b)
	}
}

// closedWithin fails unless the broker closes every connection — the
// client reads EOF or a reset — within d.
func closedWithin(t *testing.T, what string, conns []net.Conn, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	var mu sync.Mutex
	stuck := 0
	for _, c := range conns {
		wg.Go(func() {
			_ = c.SetReadDeadline(deadline)
			_, err := io.Copy(io.Discard, c)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				mu.Lock()
				stuck++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if stuck > 0 {
		t.Errorf("%s: %d of %d connections still open after %v", what, stuck, len(conns), d)
	}
}

// stillOpen counts the connections the broker has not closed within wait.
func stillOpen(conns []net.Conn, wait time.Duration) int {
	deadline := time.Now().Add(wait)
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range conns {
		wg.Go(func() {
			_ = c.SetReadDeadline(deadline)
			_, err := c.Read(make([]byte, 1))
			if errors.Is(err, os.ErrDeadlineExceeded) {
				mu.Lock()
				open++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return open
}
