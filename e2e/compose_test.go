package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// topologyKeys differ between containers and loopback processes by
// necessity; every other broker setting must be the same.
var topologyKeys = []string{
	"node.id", "listeners", "advertised.listeners", "listener.security.protocol.map",
	"inter.broker.listener.name", "controller.quorum.voters", "log.dirs",
}

// composeSettings reads each service's KAFKA_* environment as broker
// properties (KAFKA_FOO_BAR -> foo.bar), without topology keys and JVM
// options.
func composeSettings(t *testing.T, file string) map[string][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	service := regexp.MustCompile(`^  ([a-z0-9-]+):\s*$`)
	env := regexp.MustCompile(`^\s+KAFKA_([A-Z0-9_]+):\s*(.*?)\s*$`)
	out := map[string][]string{}
	var current string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := service.FindStringSubmatch(line); m != nil {
			current = m[1]
			continue
		}
		m := env.FindStringSubmatch(line)
		if m == nil || current == "" || strings.HasSuffix(m[1], "_OPTS") {
			continue
		}
		key := strings.ToLower(strings.ReplaceAll(m[1], "_", "."))
		if slices.Contains(topologyKeys, key) {
			continue
		}
		out[current] = append(out[current], key+"="+strings.Trim(m[2], `"'`))
	}
	for s := range out {
		slices.Sort(out[s])
	}
	return out
}

// TestComposeMatchesHarness: the compose files users start and the harness
// the tests start declare the same broker settings.
func TestComposeMatchesHarness(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	tests := []struct {
		file, shape string
		services    int
	}{
		{"compose.yaml", "single", 1},
		{"compose.triple.yaml", "triple", 3},
	}
	for _, tt := range tests {
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "kafka", "harness.sh"), "props", tt.shape, "shared")
		raw, err := cmd.Output()
		if err != nil {
			t.Fatalf("harness.sh props %s shared: %v", tt.shape, err)
		}
		var want []string
		for _, l := range strings.Split(string(raw), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				want = append(want, l)
			}
		}
		slices.Sort(want)
		services := composeSettings(t, filepath.Join(root, tt.file))
		if len(services) != tt.services {
			t.Fatalf("%s: %d Kafka services, want %d", tt.file, len(services), tt.services)
		}
		for name, got := range services {
			if !slices.Equal(got, want) {
				t.Errorf("%s service %s declares\n %v\nthe harness (%s) declares\n %v", tt.file, name, got, tt.shape, want)
			}
		}
	}
}
