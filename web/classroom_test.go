package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rsc.io/qr"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/web/httpx"
)

func TestHostAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		access Access
		host   string
		want   bool
	}{
		{"no listen address: anything (embedded in tests)", Access{}, "example.com", true},
		{"loopback listen, same address", Access{ListenAddr: "127.0.0.1:8080"}, "127.0.0.1:8080", true},
		{"loopback listen, localhost", Access{ListenAddr: "127.0.0.1:8080"}, "localhost:8080", true},
		{"loopback listen, LOCALHOST.", Access{ListenAddr: "127.0.0.1:8080"}, "LOCALHOST.:8080", true},
		{"loopback listen, ::1", Access{ListenAddr: "127.0.0.1:8080"}, "[::1]:8080", true},
		{"loopback listen, other port", Access{ListenAddr: "127.0.0.1:8080"}, "localhost:9090", false},
		{"loopback listen, rebinding name", Access{ListenAddr: "127.0.0.1:8080"}, "attacker.example:8080", false},
		{"loopback listen, no port means 80", Access{ListenAddr: "127.0.0.1:8080"}, "localhost", false},
		{"empty Host", Access{ListenAddr: "127.0.0.1:8080"}, "", false},
		{"LAN listen, its address", Access{ListenAddr: "192.0.2.10:8080", Classroom: true}, "192.0.2.10:8080", true},
		{"LAN listen, another address", Access{ListenAddr: "192.0.2.10:8080", Classroom: true}, "192.0.2.11:8080", false},
		{"allowed host, any port", Access{ListenAddr: "127.0.0.1:8080", AllowedHosts: []string{"Lab.School.example"}}, "lab.school.example:443", true},
		{"allowed host:port, that port", Access{ListenAddr: "127.0.0.1:8080", AllowedHosts: []string{"lab.example:9000"}}, "lab.example:9000", true},
		{"allowed host:port, other port", Access{ListenAddr: "127.0.0.1:8080", AllowedHosts: []string{"lab.example:9000"}}, "lab.example:9001", false},
		{"join URL host", Access{ListenAddr: "0.0.0.0:8080", Classroom: true, JoinURL: "http://teacher.local:8080/"}, "teacher.local:8080", true},
		{"all interfaces, loopback", Access{ListenAddr: "0.0.0.0:8080", Classroom: true, JoinURL: "http://teacher.local:8080/"}, "127.0.0.1:8080", true},
		{"all interfaces, a name", Access{ListenAddr: "0.0.0.0:8080", Classroom: true, JoinURL: "http://teacher.local:8080/"}, "attacker.example:8080", false},
	}
	for _, tt := range tests {
		s := New(Deps{}, nil, WithAccess(tt.access))
		if got := s.hostAllowed(tt.host); got != tt.want {
			t.Errorf("%s: hostAllowed(%q) = %v, want %v", tt.name, tt.host, got, tt.want)
		}
	}
}

func TestDeriveJoinURL(t *testing.T) {
	t.Parallel()
	if got := deriveJoinURL("192.0.2.10:8080"); got != "http://192.0.2.10:8080/" {
		t.Errorf("deriveJoinURL(192.0.2.10:8080) = %q", got)
	}
	if got := deriveJoinURL("[2001:db8::1]:8080"); got != "http://[2001:db8::1]:8080/" {
		t.Errorf("deriveJoinURL([2001:db8::1]:8080) = %q", got)
	}
	// On every interface: one of this machine's addresses, with the port.
	got := deriveJoinURL("0.0.0.0:8080")
	if !regexp.MustCompile(`^http://\d+\.\d+\.\d+\.\d+:8080/$`).MatchString(got) || strings.HasPrefix(got, "http://0.0.0.0") {
		t.Errorf("deriveJoinURL(0.0.0.0:8080) = %q", got)
	}
}

// TestQRSVG: the SVG draws exactly the modules of the QR code, with the
// three finder patterns where a scanner looks for them.
func TestQRSVG(t *testing.T) {
	t.Parallel()
	const text = "http://192.168.1.20:8080/"
	svg, err := qrSVG(text)
	if err != nil {
		t.Fatal(err)
	}
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	n := code.Size + 8
	if !strings.HasPrefix(s, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `) || !strings.Contains(s, `viewBox="0 0 `+itoa(n)+" "+itoa(n)+`"`) {
		t.Fatalf("svg head: %.120s", s)
	}
	squares := map[[2]int]bool{}
	for _, m := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(s, -1) {
		squares[[2]int{atoi(m[1]) - 4, atoi(m[2]) - 4}] = true
	}
	black := 0
	for y := range code.Size {
		for x := range code.Size {
			if code.Black(x, y) {
				black++
				if !squares[[2]int{x, y}] {
					t.Fatalf("module (%d,%d) is black but not drawn", x, y)
				}
			}
		}
	}
	if black != len(squares) {
		t.Fatalf("%d squares drawn for %d black modules", len(squares), black)
	}
	// Finder patterns: a 7x7 ring with a 3x3 centre at three corners.
	for _, corner := range [][2]int{{0, 0}, {code.Size - 7, 0}, {0, code.Size - 7}} {
		for dy := range 7 {
			for dx := range 7 {
				ring := dx == 0 || dy == 0 || dx == 6 || dy == 6
				centre := dx >= 2 && dx <= 4 && dy >= 2 && dy <= 4
				if got := squares[[2]int{corner[0] + dx, corner[1] + dy}]; got != (ring || centre) {
					t.Fatalf("finder pattern at %v: module (%d,%d) black = %v", corner, dx, dy, got)
				}
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// overlapLab records how many of its state changes run at once.
type overlapLab struct {
	httpx.Lab
	*overlap
}

func (overlapLab) ReadOnly() bool             { return false }
func (overlapLab) Security() cluster.Security { return cluster.Security{} }
func (overlapLab) SchemaRegistry() string     { return "" }
func (overlapLab) Brokers() []string          { return []string{"127.0.0.1:9092"} }

func (l overlapLab) RunProcessor(context.Context, producer.RunConfig) (*producer.RunResult, error) {
	defer l.enter()()
	return &producer.RunResult{}, nil
}

func (l overlapLab) Begin(_ context.Context, _, id string, _ time.Duration) (producer.SessionState, error) {
	defer l.enter()()
	return producer.SessionState{TransactionalID: id}, nil
}

type overlap struct {
	now, max atomic.Int32
}

func (o *overlap) enter() func() {
	n := o.now.Add(1)
	for {
		m := o.max.Load()
		if n <= m || o.max.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(20 * time.Millisecond)
	return func() { o.now.Add(-1) }
}

// TestWritesSerialised: processor runs and transaction steps sent at once
// (two teacher tabs clicking) run one after the other, never interleaved.
func TestWritesSerialised(t *testing.T) {
	t.Parallel()
	o := &overlap{}
	s := New(Deps{Lab: overlapLab{overlap: o}}, nil)
	h := s.Handler()
	var wg sync.WaitGroup
	codes := make(chan int, 10)
	for i := range 10 {
		wg.Go(func() {
			var req *http.Request
			if i%2 == 0 {
				req = httptest.NewRequest("POST", "/api/processor/runs", strings.NewReader(`{"mode":"tx","input":"orders","output":"totals","group":"g","transactionalId":"app"}`))
			} else {
				req = httptest.NewRequest("POST", "/api/transactions/app/begin", nil)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			codes <- w.Code
		})
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("a request answered %d", code)
		}
	}
	if got := o.max.Load(); got != 1 {
		t.Fatalf("%d state changes ran at once, want 1", got)
	}
}
