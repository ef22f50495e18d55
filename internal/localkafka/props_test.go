package localkafka

import (
	"encoding/base64"
	"fmt"
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
		{"secure", layout{Shape: Secure, Ports: []int{24001}, ControllerPorts: []int{24002}}, 1, []string{
			"node.id=1",
			"listeners=SASL_SSL://127.0.0.1:24001,CONTROLLER://127.0.0.1:24002",
			"advertised.listeners=SASL_SSL://127.0.0.1:24001",
			"listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
			"inter.broker.listener.name=SASL_SSL",
			"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
			"super.users=User:broker;User:admin",
			"transaction.state.log.replication.factor=1",
			"ssl.keystore.location=/d/secrets/server.p12",
			"ssl.keystore.password=pw",
			"ssl.truststore.location=/d/ca.pem",
		}},
	}
	for _, tt := range tests {
		got := tt.l.properties(tt.id, fmt.Sprintf("/d/node-%d/data", tt.id), keystore{Dir: "/d", Password: "pw"})
		lines := strings.Split(got, "\n")
		for _, w := range tt.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%s: no line %q in\n%s", tt.name, w, got)
			}
		}
		keys := map[string]bool{}
		for _, line := range lines {
			if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "# Offset Lab:") && !strings.HasPrefix(line, "# ---") {
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
	// as an earlier version wrote it
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
