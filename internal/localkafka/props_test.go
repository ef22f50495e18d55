package localkafka

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// harnessEnv is the environment for harness.sh without the variables that
// change what it prints.
func harnessEnv(extra ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "OFFSETLAB_KAFKA_")
	})
	return append(env, extra...)
}

// TestPropertiesMatchHarness: the server.properties Start writes is byte
// for byte what `harness.sh props SHAPE N` prints for the same ports, so
// the compose comparison (e2e/compose_test.go), which reads the harness,
// holds for the Go server too.
func TestPropertiesMatchHarness(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH: cannot run scripts/kafka/harness.sh props to compare")
	}
	harness := filepath.Join(repoRoot(t), "scripts", "kafka", "harness.sh")
	tests := []layout{
		{Shape: Single, Ports: []int{21001}, ControllerPorts: []int{21002}},
		{Shape: Triple, Ports: []int{22001, 22002, 22003}, ControllerPorts: []int{23001, 23002, 23003}},
	}
	for _, l := range tests {
		for id := 1; id <= l.nodes(); id++ {
			cmd := exec.Command("bash", harness, "props", l.Shape, fmt.Sprint(id))
			cmd.Env = harnessEnv("OFFSETLAB_KAFKA_PORTS="+joinInts(l.Ports), "OFFSETLAB_KAFKA_CONTROLLER_PORTS="+joinInts(l.ControllerPorts))
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("harness.sh props %s %d: %v", l.Shape, id, err)
			}
			got := l.properties(id, fmt.Sprintf("<workdir>/node-%d/data", id))
			if got != string(want) {
				t.Errorf("%s node %d: Go writes\n%s\nharness.sh props writes\n%s", l.Shape, id, got, want)
			}
		}
		cmd := exec.Command("bash", harness, "props", l.Shape, "shared")
		cmd.Env = harnessEnv()
		shared, err := cmd.Output()
		if err != nil {
			t.Fatalf("harness.sh props %s shared: %v", l.Shape, err)
		}
		if got := settingsLines(l.Shape + ".properties"); got != string(shared) {
			t.Errorf("%s shared settings: Go reads\n%s\nharness.sh props shared prints\n%s", l.Shape, got, shared)
		}
	}
}

func TestProperties(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		l    layout
		id   int
		want []string
	}{
		{"single", layout{Shape: Single, Ports: []int{21001}, ControllerPorts: []int{21002}}, 1, []string{
			"node.id=1",
			"listeners=PLAINTEXT://127.0.0.1:21001,CONTROLLER://127.0.0.1:21002",
			"advertised.listeners=PLAINTEXT://127.0.0.1:21001",
			"controller.quorum.voters=1@127.0.0.1:21002",
			"log.dirs=/d/node-1/data",
			"transaction.state.log.replication.factor=1",
			"num.partitions=1",
			"num.network.threads=2",
		}},
		{"triple node 2", layout{Shape: Triple, Ports: []int{22001, 22002, 22003}, ControllerPorts: []int{23001, 23002, 23003}}, 2, []string{
			"node.id=2",
			"listeners=PLAINTEXT://127.0.0.1:22002,CONTROLLER://127.0.0.1:23002",
			"advertised.listeners=PLAINTEXT://127.0.0.1:22002",
			"controller.quorum.voters=1@127.0.0.1:23001,2@127.0.0.1:23002,3@127.0.0.1:23003",
			"log.dirs=/d/node-2/data",
			"transaction.state.log.min.isr=2",
			"default.replication.factor=3",
		}},
	}
	for _, tt := range tests {
		got := tt.l.properties(tt.id, fmt.Sprintf("/d/node-%d/data", tt.id))
		lines := strings.Split(got, "\n")
		for _, w := range tt.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%s: no line %q in\n%s", tt.name, w, got)
			}
		}
		keys := map[string]bool{}
		for _, line := range lines {
			if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "# Offset Lab harness") && !strings.HasPrefix(line, "# ---") {
				t.Errorf("%s: a settings file's comment leaked into the properties: %q", tt.name, line)
			}
			if k, _, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
				if keys[k] {
					t.Errorf("%s: %s set twice", tt.name, k)
				}
				keys[k] = true
			}
		}
	}
}

func TestLayoutFile(t *testing.T) {
	t.Parallel()
	l := layout{Shape: Triple, ClusterID: newClusterID(), Ports: []int{22001, 22002, 22003}, ControllerPorts: []int{23001, 23002, 23003}}
	got, err := parseLayout(l.envFile())
	if err != nil {
		t.Fatal(err)
	}
	if got.Shape != l.Shape || got.ClusterID != l.ClusterID || !slices.Equal(got.Ports, l.Ports) || !slices.Equal(got.ControllerPorts, l.ControllerPorts) {
		t.Errorf("round trip: got %+v, want %+v", got, l)
	}
	// as harness.sh writes it
	harness := "SHAPE=single\nNODES=1\nCLUSTER_ID=abcdefghijklmnopqrstuv\nPORTS=24001\nCONTROLLER_PORTS=24002\n"
	if got, err := parseLayout(harness); err != nil || got.address(1) != "127.0.0.1:24001" {
		t.Errorf("harness cluster.env: %+v, %v", got, err)
	}
	bad := []string{
		"",
		"SHAPE=quad\nNODES=4\nCLUSTER_ID=x\nPORTS=1,2,3,4\nCONTROLLER_PORTS=5,6,7,8\n",
		"SHAPE=triple\nNODES=3\nCLUSTER_ID=x\nPORTS=1,2\nCONTROLLER_PORTS=5,6,7\n",
		"SHAPE=single\nNODES=1\nCLUSTER_ID=\nPORTS=1\nCONTROLLER_PORTS=2\n",
		"SHAPE=single\nNODES=1\nCLUSTER_ID=x\nPORTS=http\nCONTROLLER_PORTS=2\n",
	}
	for _, text := range bad {
		if _, err := parseLayout(text); err == nil {
			t.Errorf("parseLayout(%q) accepted it", text)
		}
	}
}

func TestNewClusterID(t *testing.T) {
	t.Parallel()
	for range 200 {
		id := newClusterID()
		b, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(b) != 16 || strings.HasPrefix(id, "-") {
			t.Fatalf("cluster id %q: %d bytes, %v", id, len(b), err)
		}
	}
}
