package localkafka

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/testenv"
	"github.com/offsetlab/offsetlab/internal/wait"
)

func TestUnknownNode(t *testing.T) {
	t.Parallel()
	c := &Cluster{layout: layout{Shape: Triple, Ports: []int{1, 2, 3}, ControllerPorts: []int{4, 5, 6}}}
	for _, id := range []int{0, 4} {
		if err := c.StopNode(t.Context(), id); !errors.Is(err, ErrUnknownNode) {
			t.Errorf("StopNode(%d): %v, want ErrUnknownNode", id, err)
		}
		if err := c.StartNode(t.Context(), id); !errors.Is(err, ErrUnknownNode) {
			t.Errorf("StartNode(%d): %v, want ErrUnknownNode", id, err)
		}
	}
}

func TestStartRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		key  string
	}{
		{"unknown shape", Config{Shape: "quad", Dir: t.TempDir(), Libs: t.TempDir()}, "error.localKafkaShape"},
		{"no java", Config{Shape: Single, Dir: t.TempDir(), Libs: t.TempDir(), Java: filepath.Join(t.TempDir(), "no-such-java")}, "error.localKafkaJava"},
	}
	for _, tt := range tests {
		_, err := Start(t.Context(), tt.cfg)
		if got := problem.KeyOf(err); got != tt.key {
			t.Errorf("%s: error %v (key %q), want key %s", tt.name, err, got, tt.key)
		}
	}
}

// realKafka returns a Config for a cluster in a fresh directory, or skips
// the test when Java or the Kafka jars are missing (and fails under
// CI=true, where they must be there).
func realKafka(t *testing.T) Config {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	libs := DefaultLibs(os.Getenv, repoRoot(t))
	java := DefaultJava(os.Getenv)
	m, err := embeddedManifest()
	if err != nil {
		t.Fatal(err)
	}
	var why string
	if _, err := exec.LookPath(java); err != nil {
		why = fmt.Sprintf("Java 17+ (%s) is not there: %v", java, err)
	} else if missing := m.missing(libs); len(missing) > 0 {
		why = fmt.Sprintf("the Kafka jars are not in %s (%d of %d missing): run go run ./cmd/offsetlab-kafka fetch, or start the server once with --local-kafka", libs, len(missing), len(m.Jars))
	}
	if why != "" {
		testenv.MissingSetup(t, "real Kafka tests skipped: %s", why)
	}
	return Config{Dir: t.TempDir(), Libs: libs, Java: java, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}
}

func startCluster(t *testing.T, cfg Config) *Cluster {
	t.Helper()
	start := time.Now()
	c, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s cluster serving after %s", cfg.Shape, time.Since(start).Round(10*time.Millisecond))
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func client(t *testing.T, c *Cluster) (*kgo.Client, *kadm.Client) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl, kadm.NewClient(cl)
}

func upNodes(t *testing.T, c *Cluster) []int {
	t.Helper()
	nodes, err := c.Nodes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var up []int
	for _, n := range nodes {
		if n.Up {
			up = append(up, n.ID)
		}
	}
	return up
}

// TestSingleRestartsWithData: a single node serves, and a second Start in
// the same directory brings it back on the same port with its records.
func TestSingleRestartsWithData(t *testing.T) {
	cfg := realKafka(t)
	cfg.Shape = Single
	c := startCluster(t, cfg)
	if got := upNodes(t, c); !slices.Equal(got, []int{1}) {
		t.Fatalf("nodes up: %v, want [1]", got)
	}
	cl, adm := client(t, c)
	if _, err := adm.CreateTopic(t.Context(), 1, 1, nil, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(t.Context(), &kgo.Record{Topic: "kept", Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	brokers := c.Brokers()
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("single cluster stopped in %s", time.Since(start).Round(10*time.Millisecond))

	c = startCluster(t, cfg)
	if !slices.Equal(c.Brokers(), brokers) {
		t.Errorf("restarted on %v, was %v", c.Brokers(), brokers)
	}
	_, adm = client(t, c)
	var end int64
	err := wait.Until(t.Context(), 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		ends, err := adm.ListEndOffsets(ctx, "kept")
		if err != nil {
			return false, nil
		}
		o, _ := ends.Lookup("kept", 0)
		end = o.Offset
		return o.Err == nil && end == 1, nil
	})
	if err != nil {
		t.Fatalf("end offset of kept after the restart: %d (%v), want 1", end, err)
	}
}

// TestTripleStopStartNode: stopping a follower takes it out of the ISR
// at once (a controlled shutdown), starting it puts it back, and with two
// nodes stopped the last one still serves and Close still ends.
func TestTripleStopStartNode(t *testing.T) {
	cfg := realKafka(t)
	cfg.Shape = Triple
	c := startCluster(t, cfg)
	if got := upNodes(t, c); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("nodes up: %v, want [1 2 3]", got)
	}
	_, adm := client(t, c)
	// leader on node 1, so that stopping 2 and 3 stops followers
	resp, err := adm.CreateTopic(t.Context(), 1, -1, map[string]*string{"min.insync.replicas": kadm.StringPtr("2")}, "isr")
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	isr := func(want []int32) {
		t.Helper()
		var got []int32
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		err := wait.Until(ctx, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
			md, err := adm.Metadata(ctx, "isr")
			if err != nil {
				return false, nil
			}
			p, ok := md.Topics["isr"].Partitions[0]
			if !ok {
				return false, nil
			}
			got = slices.Sorted(slices.Values(p.ISR))
			return slices.Equal(got, want), nil
		})
		if err != nil {
			t.Fatalf("ISR of isr-0 is %v, want %v: %v", got, want, err)
		}
	}
	isr([]int32{1, 2, 3})

	md, err := adm.Metadata(t.Context(), "isr")
	if err != nil {
		t.Fatal(err)
	}
	follower := 3
	if md.Topics["isr"].Partitions[0].Leader == 3 {
		follower = 2
	}
	rest := []int32{1, 2, 3}
	rest = slices.DeleteFunc(rest, func(id int32) bool { return id == int32(follower) })

	start := time.Now()
	if err := c.StopNode(t.Context(), follower); err != nil {
		t.Fatal(err)
	}
	t.Logf("node %d stopped in %s", follower, time.Since(start).Round(10*time.Millisecond))
	isr(rest)
	if got := upNodes(t, c); slices.Contains(got, follower) || len(got) != 2 {
		t.Errorf("nodes up after stopping %d: %v", follower, got)
	}
	if err := c.StopNode(t.Context(), follower); err != nil {
		t.Errorf("stopping a stopped node: %v", err)
	}

	start = time.Now()
	if err := c.StartNode(t.Context(), follower); err != nil {
		t.Fatal(err)
	}
	t.Logf("node %d serving again in %s", follower, time.Since(start).Round(10*time.Millisecond))
	isr([]int32{1, 2, 3})
	if got := upNodes(t, c); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("nodes up after starting %d again: %v", follower, got)
	}

	// lesson 4: both followers of node 1's partitions stop
	for _, id := range []int{2, 3} {
		start = time.Now()
		if err := c.StopNode(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		t.Logf("node %d stopped in %s", id, time.Since(start).Round(10*time.Millisecond))
	}
	if got := upNodes(t, c); !slices.Equal(got, []int{1}) {
		t.Errorf("nodes up after stopping 2 and 3: %v, want [1]", got)
	}
	start = time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("the last node (no quorum) and the cluster stopped in %s", time.Since(start).Round(10*time.Millisecond))
	if err := c.StartNode(t.Context(), 2); problem.KeyOf(err) != "error.localKafkaClosed" {
		t.Errorf("StartNode after Close: %v, want error.localKafkaClosed", err)
	}
}

// TestRetryWhenPortTaken: when another process binds a port between the
// pick and the JVM's bind, Start forgets that try and starts again with
// new ports.
func TestRetryWhenPortTaken(t *testing.T) {
	cfg := realKafka(t)
	cfg.Shape = Single
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenPort := taken.Addr().(*net.TCPAddr).Port
	picks := 0
	pick := func(n int) ([]int, error) {
		picks++
		ports, err := freePorts(n)
		if picks == 1 && err == nil {
			ports[0] = takenPort // node 1's client port
		}
		return ports, err
	}
	c, err := start(t.Context(), cfg, pick)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if picks != 2 {
		t.Errorf("ports picked %d times, want 2 (one retry)", picks)
	}
	if got := c.Brokers()[0]; got == taken.Addr().String() {
		t.Errorf("serving on the taken port %s", got)
	}
	if got := upNodes(t, c); !slices.Equal(got, []int{1}) {
		t.Errorf("nodes up: %v, want [1]", got)
	}
}

// helperDirEnv makes the test binary a stand-in server (see
// TestHelperServer).
const helperDirEnv = "OFFSETLAB_LOCALKAFKA_HELPER_DIR"

// TestNoJVMOutlivesServer kills a process running a cluster with SIGKILL
// (no Close, no deferred function runs) and checks that its JVM goes too.
func TestNoJVMOutlivesServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	cfg := realKafka(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.v")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+cfg.Dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.StdinPipe(); err != nil { // its end tells the helper we are gone
		t.Fatal(err)
	}
	cmd.Stderr = t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "serving" {
	}
	pid := readPids(cfg.Dir)[1]
	props := filepath.Join(cfg.Dir, "node-1", "server.properties")
	if !nodeProcessRunning(pid, props) {
		t.Fatalf("the stand-in server did not start a broker (pids: %v)", readPids(cfg.Dir))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if err := wait.Until(ctx, 100*time.Millisecond, func(context.Context) (bool, error) {
		return !nodeProcessRunning(pid, props), nil
	}); err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("broker JVM %d outlived its server: %v", pid, err)
	}
}

// TestHelperServer is the stand-in server of TestNoJVMOutlivesServer: it
// starts a single node, says "serving" and waits to be killed (or for its
// stdin to end, should the test die first).
func TestHelperServer(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("a helper of TestNoJVMOutlivesServer")
	}
	cfg := realKafka(t)
	cfg.Shape, cfg.Dir = Single, dir
	if _, err := Start(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	fmt.Println("serving")
	io.Copy(io.Discard, os.Stdin)
	t.Fatal("not killed: " + strconv.Itoa(os.Getpid()))
}
