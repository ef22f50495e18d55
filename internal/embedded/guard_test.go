package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// startGuarded starts an embedded broker with limits and returns it with
// the text its logger receives.
func startGuarded(t *testing.T, limits PortLimits) (*cluster.Cluster, *syncBuffer) {
	t.Helper()
	c, _, logs := startGuardedBroker(t, limits)
	return c, logs
}

// startGuardedBroker is startGuarded, which also returns the broker, for
// tests that look at its port.
func startGuardedBroker(t *testing.T, limits PortLimits) (*cluster.Cluster, *broker, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	c, b, err := start(Config{
		KafkaAddr: "127.0.0.1:0",
		Limits:    limits,
		Logger:    slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, b, logs
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func dialPort(t *testing.T, c *cluster.Cluster) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", c.Brokers()[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// waitClosed reads from conn until the broker closes it, failing if that
// takes longer than within.
func waitClosed(t *testing.T, conn net.Conn, within time.Duration) {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(within)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the connection was still open after %v", within)
	}
}

// askAPIVersions sends ApiVersions v0 on conn and reads the answer.
func askAPIVersions(conn net.Conn, corr int32) (*kmsg.ApiVersionsResponse, error) {
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrApiVersionsRequest()
	if _, err := conn.Write(appendRequestFrame(nil, req, corr, "test")); err != nil {
		return nil, err
	}
	resp, got, err := readResponse(conn, req)
	if err != nil {
		return nil, err
	}
	if got != corr {
		return nil, errors.New("wrong correlation id")
	}
	return resp.(*kmsg.ApiVersionsResponse), nil
}

func mustPing(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("the broker stopped answering: %v", err)
	}
}

func TestCheckFrameSize(t *testing.T) {
	t.Parallel()
	const max = 100 << 20
	tests := []struct {
		name string
		size int32
		ok   bool
	}{
		{"negative", -1, false},
		{"most negative", -1 << 31, false},
		{"zero", 0, false},
		{"shorter than a header", minRequestBytes - 1, false},
		{"a bare header", minRequestBytes, true},
		{"the maximum", max, true},
		{"one over", max + 1, false},
		{"1 GiB", 1 << 30, false},
		{`"GET " (HTTP)`, int32(binary.BigEndian.Uint32([]byte("GET "))), false},
		{"TLS ClientHello", int32(binary.BigEndian.Uint32([]byte{0x16, 0x03, 0x01, 0x02})), false},
	}
	for _, tt := range tests {
		got := checkFrameSize(tt.size, max) == nil
		if got != tt.ok {
			t.Errorf("%s: checkFrameSize(%d) ok = %v, want %v", tt.name, tt.size, got, tt.ok)
		}
	}
}

// testRanges is what a broker serving a few keys would advertise.
func testRanges() apiRanges {
	resp := kmsg.NewPtrApiVersionsResponse()
	for _, k := range []struct{ key, min, max int16 }{
		{0, 3, 13}, {1, 4, 17}, {3, 0, 13}, {9, 0, 9}, {18, 0, 5}, {19, 2, 7}, {37, 0, 3},
		{9999, 0, 1}, // advertised but unknown to kmsg: dropped
	} {
		ak := kmsg.NewApiVersionsResponseApiKey()
		ak.ApiKey, ak.MinVersion, ak.MaxVersion = k.key, k.min, k.max
		resp.ApiKeys = append(resp.ApiKeys, ak)
	}
	return rangesFrom(resp)
}

func TestCheckRequest(t *testing.T) {
	t.Parallel()
	frame := func(req kmsg.Request, version int16) []byte {
		req.SetVersion(version)
		return appendRequestFrame(nil, req, 7, "client")
	}
	raw := func(key, version int16, rest ...byte) []byte {
		b := []byte{0, 0, 0, 0}
		b = binary.BigEndian.AppendUint16(b, uint16(key))
		b = binary.BigEndian.AppendUint16(b, uint16(version))
		b = binary.BigEndian.AppendUint32(b, 7)
		b = append(b, rest...)
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		return b
	}
	acks0 := kmsg.NewPtrProduceRequest()
	acks0.Acks = 0
	acksAll := kmsg.NewPtrProduceRequest()
	acksAll.Acks = -1
	createTopics := func(partitions ...int32) *kmsg.CreateTopicsRequest {
		req := kmsg.NewPtrCreateTopicsRequest()
		for _, n := range partitions {
			ct := kmsg.NewCreateTopicsRequestTopic()
			ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "t", n, 1
			req.Topics = append(req.Topics, ct)
		}
		return req
	}
	createPartitions := kmsg.NewPtrCreatePartitionsRequest()
	cpt := kmsg.NewCreatePartitionsRequestTopic()
	cpt.Topic, cpt.Count = "t", 1<<25
	createPartitions.Topics = append(createPartitions.Topics, cpt)

	tests := []struct {
		name       string
		frame      []byte
		refusal    string // the refusal kind; "" when accepted
		noResponse bool
		rewritten  bool
	}{
		{"Metadata v12", frame(kmsg.NewPtrMetadataRequest(), 12), "", false, false},
		{"Produce acks=all", frame(acksAll, 9), "", false, false},
		{"Produce acks=0 has no answer", frame(acks0, 9), "", true, false},
		{"OffsetFetch v8", frame(kmsg.NewPtrOffsetFetchRequest(), 8), "", false, false},
		{"API key 9999 (the packet that panicked kfake)", raw(9999, 0, 0xff, 0xff), "unsupported API key", false, false},
		{"API key -1", raw(-1, 0, 0xff, 0xff), "unsupported API key", false, false},
		{"API key 100", raw(100, 0, 0xff, 0xff), "unsupported API key", false, false},
		{"a key kmsg knows and kfake does not serve", frame(kmsg.NewPtrLeaderAndISRRequest(), 0), "unsupported API key", false, false},
		{"Metadata v99", raw(3, 99, 0xff, 0xff), "unsupported version", false, false},
		{"Metadata v-1", raw(3, -1, 0xff, 0xff), "unsupported version", false, false},
		{"Produce below kfake's v3", frame(kmsg.NewPtrProduceRequest(), 2), "unsupported version", false, false},
		{"ApiVersions newer than kfake's is answered", raw(18, 300, 0xff, 0xff, 0, 1, 2, 3), "", false, true},
		{"ApiVersions v-1", raw(18, -1, 0xff, 0xff), "unsupported version", false, false},
		{"client id cut short", raw(3, 1, 0, 100, 'x'), "unparsable request", false, false},
		{"garbage body", raw(3, 1, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff), "unparsable request", false, false},
		{"flexible header tags cut short", raw(3, 12, 0xff, 0xff, 0x05), "unparsable request", false, false},
		{"CreateTopics within Kafka's limit", frame(createTopics(5000, 5000), 5), "", false, false},
		{"CreateTopics over Kafka's limit", frame(createTopics(5000, 5001), 5), "request kfake cannot take", false, false},
		{"CreateTopics for 2^31-1 partitions", frame(createTopics(1<<31-1), 5), "request kfake cannot take", false, false},
		{"CreatePartitions to 2^25", frame(createPartitions, 3), "request kfake cannot take", false, false},
	}
	api := testRanges()
	for _, tt := range tests {
		got, why := api.check(tt.frame, &batchValidator{}, 30*time.Second)
		gotKind := ""
		if why != nil {
			gotKind = why.kind
		}
		if gotKind != tt.refusal {
			t.Errorf("%s: refusal %q (%v), want %q", tt.name, gotKind, why, tt.refusal)
			continue
		}
		if why != nil {
			continue
		}
		if got.noResponse != tt.noResponse {
			t.Errorf("%s: noResponse = %v, want %v", tt.name, got.noResponse, tt.noResponse)
		}
		if rewritten := !bytes.Equal(got.frame, tt.frame); rewritten != tt.rewritten {
			t.Errorf("%s: rewritten = %v, want %v", tt.name, rewritten, tt.rewritten)
		}
		key := int16(binary.BigEndian.Uint16(tt.frame[4:]))
		_, wantCompat := answerFixes[key]
		if key == int16(kmsg.ApiVersions) && tt.rewritten {
			wantCompat = false // answered UNSUPPORTED_VERSION, listing ApiVersions alone: nothing to rewrite
		}
		if wantCompat != (got.compat != nil) {
			t.Errorf("%s: compat = %v, want it set for the requests compat.go rewrites the answers of", tt.name, got.compat)
		}
	}
}

// TestFetchWaitCapped: a fetch may wait at most the request timeout, and
// nothing else in it changes.
func TestFetchWaitCapped(t *testing.T) {
	t.Parallel()
	const maxWait = 30 * time.Second
	tests := []struct {
		version int16
		wait    int32
		want    int32
	}{
		{4, 500, 500},
		{12, 30000, 30000},
		{12, 30001, 30000},
		{17, 600000, 30000},
		{17, 1<<31 - 1, 30000},
	}
	api := testRanges()
	for _, tt := range tests {
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = tt.version, tt.wait, 1, 1<<20
		ft := kmsg.NewFetchRequestTopic()
		ft.Topic = "t"
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.FetchOffset, fp.PartitionMaxBytes = 7, 1<<20
		ft.Partitions = append(ft.Partitions, fp)
		req.Topics = append(req.Topics, ft)
		frame := appendRequestFrame(nil, req, 5, "consumer")
		checked, why := api.check(frame, &batchValidator{}, maxWait)
		if why != nil {
			t.Fatalf("v%d wait %d: %v", tt.version, tt.wait, why)
		}
		want := *req
		want.MaxWaitMillis = tt.want
		if got, wantFrame := checked.frame, appendRequestFrame(nil, &want, 5, "consumer"); !bytes.Equal(got, wantFrame) {
			t.Errorf("v%d wait %d: frame\n%x\nwant\n%x", tt.version, tt.wait, got, wantFrame)
		}
	}
}

// TestApiVersionsAboveParsesAsKfakeDoes checks the KIP-511 rewrite: kfake's
// reader must parse it at the client's version.
func TestApiVersionsAboveParsesAsKfakeDoes(t *testing.T) {
	t.Parallel()
	for _, version := range []int16{6, 300, 32767} {
		header := []byte{0, 0, 0, 0, 0, 18}
		header = binary.BigEndian.AppendUint16(header, uint16(version))
		header = append(header, 0, 0, 0, 9, 0xff, 0xff)
		frame := apiVersionsAbove(header, version)
		if got, want := int(binary.BigEndian.Uint32(frame)), len(frame)-4; got != want {
			t.Errorf("v%d: size prefix %d, want %d", version, got, want)
		}
		req := kmsg.NewPtrApiVersionsRequest()
		req.SetVersion(version)
		body := frame[len(header):]
		if req.IsFlexible() {
			body = body[1:]
		}
		if err := req.ReadFrom(body); err != nil {
			t.Errorf("v%d: kfake could not parse the rewritten request: %v", version, err)
		}
	}
}

func TestReadFrame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		size int
	}{
		{"a bare header", minRequestBytes},
		{"one chunk exactly", firstChunk - 4},
		{"one byte over one chunk", firstChunk - 3},
		{"several chunks", 3<<20 + 17},
	}
	for _, tt := range tests {
		want := make([]byte, 4+tt.size)
		binary.BigEndian.PutUint32(want, uint32(tt.size))
		for i := 4; i < len(want); i++ {
			want[i] = byte(i * 31)
		}
		var size [4]byte
		copy(size[:], want)
		got, err := readFrame(bytes.NewReader(want[4:]), size, int32(tt.size), time.Now().Add(time.Minute), &chunkPool{})
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: readFrame = %d bytes, %v; want the %d bytes sent", tt.name, len(got), err, len(want))
		}
	}
}

// TestReadFrameMemoryFollowsData checks that a size prefix is not memory:
// a frame that claims much and sends little costs what was sent.
func TestReadFrameMemoryFollowsData(t *testing.T) {
	tests := []struct {
		name  string
		claim int32
		sent  int
	}{
		{"100 MiB claimed, 10 bytes sent", 100 << 20, 10},
		{"100 MiB claimed, 3 MiB sent", 100 << 20, 3 << 20},
		{"1 MiB claimed, nothing sent", 1 << 20, 0},
	}
	for _, tt := range tests {
		var size [4]byte
		binary.BigEndian.PutUint32(size[:], uint32(tt.claim))
		body := bytes.NewReader(make([]byte, tt.sent))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := readFrame(body, size, tt.claim, time.Now().Add(time.Minute), &chunkPool{})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			t.Errorf("%s: err = %v, want EOF", tt.name, err)
		}
		// Chunks double from firstChunk up to maxChunk: at most one
		// chunk, and never more than what was received, runs ahead.
		bound := uint64(tt.sent + min(tt.sent, maxChunk) + firstChunk + 64<<10)
		if got := after.TotalAlloc - before.TotalAlloc; got > bound {
			t.Errorf("%s: allocated %d bytes, want at most %d", tt.name, got, bound)
		}
	}
}

func TestByteBudget(t *testing.T) {
	t.Parallel()
	closed := make(chan struct{})
	b := newByteBudget(100, closed)
	soon := func() time.Time { return time.Now().Add(20 * time.Millisecond) }

	steps := []struct {
		name    string
		acquire int64 // 0: release
		release int64
		ok      bool
		inUse   int64
	}{
		{name: "fits", acquire: 60, ok: true, inUse: 60},
		{name: "fits exactly", acquire: 40, ok: true, inUse: 100},
		{name: "over the limit waits, then times out", acquire: 1, ok: false, inUse: 100},
		{name: "release", release: 100, inUse: 0},
		{name: "one request over the limit, alone", acquire: 250, ok: true, inUse: 250},
		{name: "nothing else meanwhile", acquire: 10, ok: false, inUse: 250},
		{name: "release it", release: 250, inUse: 0},
	}
	for _, s := range steps {
		if s.acquire > 0 {
			if got := b.acquire(s.acquire, soon()); got != s.ok {
				t.Errorf("%s: acquire(%d) = %v, want %v", s.name, s.acquire, got, s.ok)
			}
		} else {
			b.release(s.release)
		}
		if got := b.inUse(); got != s.inUse {
			t.Errorf("%s: in use %d, want %d", s.name, got, s.inUse)
		}
	}

	// A waiter gets in as soon as room is released.
	b.acquire(100, soon())
	got := make(chan bool)
	go func() { got <- b.acquire(50, time.Now().Add(10*time.Second)) }()
	b.release(60)
	if !<-got {
		t.Error("a waiter did not get the room released")
	}
	// Closing the listener frees waiters.
	go func() { got <- b.acquire(90, time.Now().Add(10*time.Second)) }()
	close(closed)
	if <-got {
		t.Error("a waiter got room after the listener closed")
	}
}

func TestThrottledLog(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	l := newThrottledLog(slog.New(slog.NewTextHandler(&buf, nil)), time.Hour)
	for range 5 {
		l.warn("unsupported API key", "closed")
	}
	l.warn("frame size", "closed")
	if got, want := strings.Count(buf.String(), "\n"), 2; got != want {
		t.Fatalf("%d lines for 5 events of one kind and 1 of another, want %d:\n%s", got, want, buf.String())
	}
	l.kinds["unsupported API key"].last = time.Now().Add(-2 * time.Hour)
	l.warn("unsupported API key", "closed")
	if got, want := buf.String(), "alsoSinceLastLine=4"; !strings.Contains(got, want) {
		t.Errorf("the line after the interval does not count the held-back ones (%s):\n%s", want, got)
	}
}

// fakeListener fails its first Accepts, then accepts conn.
type fakeListener struct {
	net.Listener
	fails int
	conn  net.Conn
	done  chan struct{}
}

func (f *fakeListener) Accept() (net.Conn, error) {
	if f.fails > 0 {
		f.fails--
		return nil, errors.New("accept: too many open files")
	}
	if f.conn != nil {
		c := f.conn
		f.conn = nil
		return c, nil
	}
	<-f.done
	return nil, net.ErrClosed
}

func (f *fakeListener) Close() error { close(f.done); return nil }

// TestAcceptSurvivesErrors: kfake stops accepting for good when Accept
// fails, so the guard must wait out errors such as EMFILE itself.
func TestAcceptSurvivesErrors(t *testing.T) {
	t.Parallel()
	server, client := net.Pipe()
	defer client.Close()
	l := newGuardListener(&fakeListener{fails: 3, conn: server, done: make(chan struct{})}, PortLimits{MaxConnections: 1, MaxConnectionsPerIP: 1}, nil)
	l.start(testRanges())
	defer l.Close()
	conn, err := l.Accept()
	if err != nil {
		t.Fatalf("Accept after three failed accepts = %v, want the next connection", err)
	}
	conn.Close()
}

// TestHostileStreamsCloseOnlyTheirConnection sends each known crash's
// reproductions on a connection of its own: each must close that
// connection, and the broker must go on answering.
func TestHostileStreamsCloseOnlyTheirConnection(t *testing.T) {
	t.Parallel()
	c, logs := startGuarded(t, PortLimits{RequestTimeout: 500 * time.Millisecond})
	header := func(key, version int16) []byte {
		b := []byte{0, 0, 0, 10}
		b = binary.BigEndian.AppendUint16(b, uint16(key))
		b = binary.BigEndian.AppendUint16(b, uint16(version))
		return append(b, 0, 0, 0, 1, 0xff, 0xff)
	}
	// The log says why once per kind of refusal within its interval: a
	// flood of bad connections does not flood the log.
	tests := []struct {
		name   string
		stream []byte
		logged string // "" when a line of the same kind came just before
	}{
		{"API key 9999", header(9999, 0), "API key 9999"},
		{"API key -1", header(-1, 0), ""},
		{"API key 100", header(100, 0), ""},
		{"50 bytes of garbage", bytes.Repeat([]byte{0xa5, 0x17, 0xc3, 0x3c, 0x99}, 10), "negative request size"},
		{"HTTP", []byte("GET / HTTP/1.1\r\nHost: localhost:9092\r\n\r\n"), ""},
		{"a 1 GiB size prefix", []byte{0x40, 0, 0, 0}, ""},
		{"a negative size", []byte{0xff, 0xff, 0xff, 0xfe}, ""},
		{"a truncated frame", append([]byte{0, 0, 0, 100}, header(3, 1)[4:]...), "did not arrive whole"},
		{"a bare size prefix byte", []byte{0}, ""},
	}
	for _, tt := range tests {
		conn := dialPort(t, c)
		if _, err := conn.Write(tt.stream); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		waitClosed(t, conn, 10*time.Second)
		mustPing(t, c)
		if tt.logged != "" && !strings.Contains(logs.String(), tt.logged) {
			t.Errorf("%s: the log does not say %q:\n%s", tt.name, tt.logged, logs.String())
		}
	}
	if got, want := strings.Count(logs.String(), "Kafka port: closed a connection"), 3; got != want {
		t.Errorf("%d log lines for 9 bad connections of 3 kinds, want %d:\n%s", got, want, logs.String())
	}
}

// TestSizePrefixAsText: the log names HTTP spoken to the Kafka port.
func TestSizePrefixAsText(t *testing.T) {
	t.Parallel()
	why := checkFrameSize(int32(binary.BigEndian.Uint32([]byte("GET "))), 100<<20)
	if why == nil || !strings.Contains(why.detail, `"GET "`) {
		t.Errorf("checkFrameSize(\"GET \") = %v, want a refusal that quotes the bytes", why)
	}
}

func TestApiVersionsNewerThanBroker(t *testing.T) {
	t.Parallel()
	c, _ := startGuarded(t, PortLimits{})
	conn := dialPort(t, c)
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 300
	if _, err := conn.Write(appendRequestFrame(nil, req, 3, "future-client")); err != nil {
		t.Fatal(err)
	}
	// Kafka answers at v0 whatever the client asked (KIP-511).
	v0 := kmsg.NewPtrApiVersionsRequest()
	resp, corr, err := readResponse(conn, v0)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.(*kmsg.ApiVersionsResponse)
	if corr != 3 || got.ErrorCode != kerr.UnsupportedVersion.Code || len(got.ApiKeys) != 1 || got.ApiKeys[0].ApiKey != 18 {
		t.Errorf("answer corr %d, error %d, keys %+v; want corr 3, UNSUPPORTED_VERSION and the ApiVersions range", corr, got.ErrorCode, got.ApiKeys)
	}
	if _, err := askAPIVersions(conn, 4); err != nil {
		t.Errorf("the retry at v0 on the same connection: %v", err)
	}
}

// TestCreatePartitionsOverKafkaLimit is what the fuzzer found: a
// CreatePartitions to 2^25 partitions on an existing topic made kfake
// allocate them all.
func TestCreatePartitionsOverKafkaLimit(t *testing.T) {
	t.Parallel()
	c, logs := startGuarded(t, PortLimits{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: "t", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.Version = 2
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = "t", 1<<25
	req.Topics = append(req.Topics, rt)
	conn := dialPort(t, c)
	if _, err := conn.Write(appendRequestFrame(nil, req, 1, "fuzz")); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, conn, 10*time.Second)
	mustPing(t, c)
	topics, err := c.Admin().ListTopics(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(topics["t"].Partitions); got != 1 {
		t.Errorf("topic t has %d partitions, want 1", got)
	}
	if !strings.Contains(logs.String(), "at most 10000 per request") {
		t.Errorf("the log does not say why:\n%s", logs.String())
	}
}

func TestRequestAndIdleTimeouts(t *testing.T) {
	t.Parallel()
	const requestTimeout, idleTimeout = 300 * time.Millisecond, 600 * time.Millisecond
	c, _ := startGuarded(t, PortLimits{RequestTimeout: requestTimeout, IdleTimeout: idleTimeout})

	truncated := dialPort(t, c)
	if _, err := truncated.Write([]byte{0, 0, 0, 50, 0, 3}); err != nil {
		t.Fatal(err)
	}
	sent := time.Now() // the guard may read it a moment before this
	idle := dialPort(t, c)
	busy := dialPort(t, c)
	if _, err := askAPIVersions(busy, 1); err != nil {
		t.Fatal(err)
	}

	waitClosed(t, truncated, 10*time.Second)
	if took := time.Since(sent); took < requestTimeout-50*time.Millisecond {
		t.Errorf("a truncated request was cut after %v, before its RequestTimeout %v", took, requestTimeout)
	}
	// A connection that keeps asking stays open past the idle timeout.
	for i := range 6 {
		time.Sleep(idleTimeout / 4)
		if _, err := askAPIVersions(busy, int32(i+2)); err != nil {
			t.Fatalf("a busy connection was closed after %v: %v", time.Duration(i+1)*idleTimeout/4, err)
		}
	}
	// The quiet one is gone by now, closed by the guard.
	waitClosed(t, idle, 10*time.Second)
}

func TestConnectionCap(t *testing.T) {
	t.Parallel()
	c, b, logs := startGuardedBroker(t, PortLimits{MaxConnections: 4})
	evictAfter := func(d time.Duration) {
		b.port.mu.Lock()
		b.port.evictAfter = d
		b.port.mu.Unlock()
	}
	var open []net.Conn
	for i := range 4 {
		conn := dialPort(t, c)
		if _, err := askAPIVersions(conn, int32(i)); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		open = append(open, conn)
	}
	// All four asked more recently than evictAfter: a fifth is refused.
	evictAfter(time.Hour)
	waitClosed(t, dialPort(t, c), 5*time.Second)
	if !strings.Contains(logs.String(), "(MaxConnections)") {
		t.Errorf("the refusal is not logged:\n%s", logs.String())
	}

	// Once they have been quiet long enough, a new connection closes
	// the least recently used one and gets in.
	for i, conn := range open[1:] {
		if _, err := askAPIVersions(conn, int32(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	evictAfter(0)
	if _, err := askAPIVersions(dialPort(t, c), 20); err != nil {
		t.Fatalf("a new connection at the cap, with an idle one open: %v", err)
	}
	waitClosed(t, open[0], 5*time.Second)
	for i, conn := range open[1:] {
		if _, err := askAPIVersions(conn, int32(30+i)); err != nil {
			t.Errorf("connection %d, used more recently, was closed: %v", i+1, err)
		}
	}
	if got := b.port.openConns(); got != 4 {
		t.Errorf("%d connections listed, want 4", got)
	}
}

func TestConnectionCapPerIP(t *testing.T) {
	t.Parallel()
	c, logs := startGuarded(t, PortLimits{MaxConnectionsPerIP: 2})
	// This host talking to itself is exempt: the dashboard's clients.
	for i := range 5 {
		if _, err := askAPIVersions(dialPort(t, c), int32(i)); err != nil {
			t.Fatalf("local connection %d: %v", i, err)
		}
	}
	// Another address of this host (127.0.0.2 reaches a loopback
	// listener on Linux) counts as a remote IP: two, not three.
	from := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	for i := range 3 {
		conn, err := from.Dial("tcp", c.Brokers()[0])
		if err != nil {
			t.Skipf("cannot dial from 127.0.0.2: %v", err)
		}
		t.Cleanup(func() { conn.Close() })
		if i == 2 {
			waitClosed(t, conn, 5*time.Second)
			break
		}
		if _, err := askAPIVersions(conn, int32(10+i)); err != nil {
			t.Fatalf("remote connection %d: %v", i, err)
		}
	}
	if !strings.Contains(logs.String(), "127.0.0.2 already has 2 connections (MaxConnectionsPerIP)") {
		t.Errorf("the per-IP refusal is not logged:\n%s", logs.String())
	}
}

// TestConnectionMutedWhileRequestInFlight: as Kafka does, the guard reads a
// connection's next request only once the previous one is answered, so a
// request pipelined behind a waiting fetch is neither read nor held.
func TestConnectionMutedWhileRequestInFlight(t *testing.T) {
	t.Parallel()
	c, b, _ := startGuardedBroker(t, PortLimits{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: "empty", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	fetch := kmsg.NewPtrFetchRequest()
	fetch.Version, fetch.MaxWaitMillis, fetch.MinBytes, fetch.MaxBytes = 11, 1500, 1, 1<<20
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = "empty"
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes = 1 << 20
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 11, 1
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "empty"
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = testBatch(t, kgo.CompressionCodec{}, 1, encodeRecords([]testRecord{{value: make([]byte, 100<<10)}}))
	pt.Partitions = append(pt.Partitions, pp)
	produce.Topics = append(produce.Topics, pt)

	conn := dialPort(t, c)
	stream := appendRequestFrame(nil, fetch, 1, "pipeliner")
	stream = appendRequestFrame(stream, produce, 2, "pipeliner")
	if _, err := conn.Write(stream); err != nil {
		t.Fatal(err)
	}
	// While the fetch waits, the 100 KiB produce stays in the socket. The
	// sleep is the point: nothing may read the produce during a window
	// of the fetch's wait, an absence no condition can signal.
	time.Sleep(500 * time.Millisecond)
	if got := b.port.budget.inUse(); got != 0 {
		t.Errorf("%d queued request bytes while the fetch waits, want 0: the produce was read", got)
	}
	for _, req := range []kmsg.Request{fetch, produce} {
		if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := readResponse(conn, req); err != nil {
			t.Fatalf("%s answer: %v", kmsg.NameForKey(req.Key()), err)
		}
	}
}

// TestQueuedRequestBytes: large partial requests share one budget, and
// small requests never wait for it.
func TestQueuedRequestBytes(t *testing.T) {
	t.Parallel()
	const budget, claim = 1 << 20, 2 << 20
	c, b, _ := startGuardedBroker(t, PortLimits{MaxRequestBytes: 8 << 20, QueuedMaxRequestBytes: budget, RequestTimeout: 3 * time.Second})
	port := b.port
	waitInUse := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for port.budget.inUse() != want {
			if time.Now().After(deadline) {
				t.Fatalf("queued request bytes %d, want %d", port.budget.inUse(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	partial := func() net.Conn {
		conn := dialPort(t, c)
		head := binary.BigEndian.AppendUint32(nil, claim)
		if _, err := conn.Write(append(head, make([]byte, 512<<10)...)); err != nil {
			t.Fatal(err)
		}
		return conn
	}
	first := partial()
	waitInUse(claim) // over the budget, but alone: admitted
	second := partial()
	// The second waits unread; small requests go on meanwhile.
	if _, err := askAPIVersions(dialPort(t, c), 1); err != nil {
		t.Fatalf("a small request while the budget is full: %v", err)
	}
	if got := port.budget.inUse(); got != claim {
		t.Errorf("queued request bytes %d with a second large request waiting, want %d", got, claim)
	}
	conns := port.openConns()
	first.Close()
	for port.openConns() != conns-1 {
		time.Sleep(5 * time.Millisecond)
	}
	waitInUse(claim) // the second got the room
	waitClosed(t, second, 10*time.Second)
	waitInUse(0)
	mustPing(t, c)
}

// TestFrameOverMaxRequestBytesClosedAtOnce streams a request frame over
// MaxRequestBytes (under QueuedMaxRequestBytes), its bytes still coming, under a request
// timeout of ten minutes: the size prefix alone must close the
// connection, long before the request timeout could (a guard that only
// waited for the frame, or for room in QueuedMaxRequestBytes, would hold
// it for those ten minutes), and the log names the limit.
func TestFrameOverMaxRequestBytesClosedAtOnce(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	for _, size := range []int32{8 << 20, 64 << 20} {
		c, logs := startGuarded(t, PortLimits{MaxRequestBytes: limit, QueuedMaxRequestBytes: 256 << 20, RequestTimeout: 10 * time.Minute})
		conn := dialPort(t, c)
		frame := binary.BigEndian.AppendUint32(nil, uint32(size))
		frame = append(frame, 0, 0, 0, 10, 0, 3, 0, 1) // a Metadata header's start
		if _, err := conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		streamed := make(chan struct{})
		// The frame's bytes come at about 800 KB/s, as from a slow
		// client: a guard that read them would take over a second per
		// MiB, and the first prefix must be enough to close.
		go func() {
			defer close(streamed)
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			chunk := make([]byte, 4096)
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if _, err := conn.Write(chunk); err != nil {
					return
				}
			}
		}()
		waitClosed(t, conn, 5*time.Second)
		close(stop)
		conn.Close()
		<-streamed
		if !strings.Contains(logs.String(), "above MaxRequestBytes") {
			t.Errorf("a %d-byte frame: the log does not name MaxRequestBytes:\n%s", size, logs.String())
		}
		mustPing(t, c)
	}
}

// TestFailedLoginsDelayedCountedLogged: a wrong password on a classroom's
// Kafka port is answered SASL_AUTHENTICATION_FAILED, as Kafka answers it
// (kfake alone closes the connection: the client sees EOF), after
// FailedAuthenticationDelay; past the free ones each further failure of
// the address waits its turn, so guessing slows down; every failure is
// counted for the address and the log holds one line for all of them
// (logEvery). The right password is never held up.
func TestFailedLoginsDelayedCountedLogged(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	const delay = 20 * time.Millisecond
	c, b, err := start(Config{
		KafkaAddr: "127.0.0.1:0", Limits: PortLimits{FailedAuthenticationDelay: delay},
		Students: &StudentAuth{Admin: "admin", AdminPassword: "secret"},
		Logger:   slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.AddStudent(ctx, cluster.Student{User: "ann", Password: "right", Prefix: "student-ann-"}); err != nil {
		t.Fatal(err)
	}
	login := func(password string) (time.Duration, error) {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.RequestRetries(0),
			kgo.SASL(scram.Auth{User: "ann", Pass: password}.AsSha256Mechanism()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		begin := time.Now()
		err = cl.Ping(ctx)
		return time.Since(begin), err
	}
	mean := func(ds []time.Duration) time.Duration {
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		return sum / time.Duration(len(ds))
	}
	var right, free, held []time.Duration
	for range 5 {
		took, err := login("right")
		if err != nil {
			t.Fatalf("the right password: %v", err)
		}
		right = append(right, took)
	}
	for i := range failedLoginsFree + 5 {
		took, err := login("guess")
		if !errors.Is(err, kerr.SaslAuthenticationFailed) {
			t.Fatalf("wrong password %d: %v, want SASL_AUTHENTICATION_FAILED", i+1, err)
		}
		if i < failedLoginsFree {
			free = append(free, took)
		} else {
			held = append(held, took)
		}
	}
	if got, want := b.port.logins.total("127.0.0.1"), int64(failedLoginsFree+5); got != want {
		t.Errorf("failures counted for 127.0.0.1: %d, want %d", got, want)
	}
	if mean(free) <= mean(right) {
		t.Errorf("a failure (%v on average) is answered no later than a login (%v): no delay", mean(free), mean(right))
	}
	if mean(held) < 3*mean(free) {
		t.Errorf("failures past the free ones take %v on average, the free ones %v: want at least three times longer", mean(held), mean(free))
	}
	if got := strings.Count(logs.String(), "failed SASL authentication"); got != 1 {
		t.Errorf("%d log lines for %d failures within %v, want 1:\n%s", got, failedLoginsFree+5, logEvery, logs.String())
	}
	if !strings.Contains(logs.String(), "user=ann") {
		t.Errorf("the log line does not name the user:\n%s", logs.String())
	}
	if _, err := login("right"); err != nil {
		t.Errorf("the right password after the failures: %v", err)
	}
}

// TestStudentProducerIDRate: a classroom student's InitProducerId loop
// gets its burst, then THROTTLING_QUOTA_EXCEEDED with the time to wait,
// answered by the guard (kfake keeps nothing for it); the dashboard's
// own user is never throttled. Red without the rate: every request
// made a producer id.
func TestStudentProducerIDRate(t *testing.T) {
	t.Parallel()
	c, err := Start(Config{KafkaAddr: "127.0.0.1:0", Students: &StudentAuth{Admin: "admin", AdminPassword: "secret"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.AddStudent(ctx, cluster.Student{User: "ann", Password: "pw", Prefix: "student-ann-"}); err != nil {
		t.Fatal(err)
	}
	ann, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.SASL(scram.Auth{User: "ann", Pass: "pw"}.AsSha256Mechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	inits := func(cl *kgo.Client, n int) (throttled int, wait int32) {
		t.Helper()
		for i := range n {
			id := fmt.Sprintf("student-ann-tx%d", i)
			req := kmsg.NewPtrInitProducerIDRequest()
			req.TransactionalID, req.TransactionTimeoutMillis, req.ProducerID, req.ProducerEpoch = &id, 60000, -1, -1
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				t.Fatal(err)
			}
			if resp.ErrorCode == kerr.ThrottlingQuotaExceeded.Code {
				throttled++
				wait = resp.ThrottleMillis
			}
		}
		return throttled, wait
	}
	const n = producerIDBurst + 10
	begin := time.Now()
	throttled, wait := inits(ann, n)
	// kgo waits out each throttle before its next request, so a token
	// may come back meanwhile: at most one per producerIDEvery.
	if allowed := producerIDBurst + int(time.Since(begin)/producerIDEvery) + 1; throttled == 0 || wait <= 0 || n-throttled > allowed {
		t.Errorf("%d InitProducerId of a student in %v: %d throttled (wait %d ms), want at most %d through", n, time.Since(begin), throttled, wait, allowed)
	}
	if throttled, _ := inits(c.Client(), producerIDBurst+5); throttled != 0 {
		t.Errorf("the dashboard's own InitProducerId throttled %d times", throttled)
	}
}
