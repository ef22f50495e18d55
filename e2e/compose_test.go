package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/localkafka"
)

// uncomparedKeys differ between containers and loopback processes by
// necessity: the topology, and where each deployment keeps its files and
// secrets. Every other broker setting must be the same.
func uncomparedKeys() []string {
	return []string{
		"node.id", "listeners", "advertised.listeners", "listener.security.protocol.map",
		"inter.broker.listener.name", "controller.quorum.voters", "log.dirs",
		"ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
		"ssl.truststore.location", "ssl.truststore.password",
	}
}

// imageHelpers are apache/kafka image variables that name files rather
// than broker properties.
func imageHelpers() []string {
	return []string{
		"SSL_KEYSTORE_FILENAME", "SSL_KEYSTORE_CREDENTIALS", "SSL_KEY_CREDENTIALS",
		"SSL_TRUSTSTORE_FILENAME", "SSL_TRUSTSTORE_CREDENTIALS",
	}
}

// propertyName converts an environment name after KAFKA_ as the
// apache/kafka image does: '_' -> '.', '___' -> '-', '__' -> '_'.
func propertyName(env string) string {
	var b strings.Builder
	for i := 0; i < len(env); {
		n := 0
		for i+n < len(env) && env[i+n] == '_' {
			n++
		}
		switch n {
		case 0:
			b.WriteByte(env[i])
			i++
			continue
		case 1:
			b.WriteByte('.')
		case 2:
			b.WriteByte('_')
		default:
			b.WriteByte('-')
		}
		i += n
	}
	return strings.ToLower(b.String())
}

// composeSettings reads each broker service's KAFKA_* environment as
// broker properties (KAFKA_FOO_BAR -> foo.bar), without the topology, the
// per-deployment files and secrets, and JVM options. A broker service is
// one that sets KAFKA_PROCESS_ROLES; one-shot helpers are not.
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
	brokers := map[string]bool{}
	var current string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := service.FindStringSubmatch(line); m != nil {
			current = m[1]
			continue
		}
		m := env.FindStringSubmatch(line)
		if m == nil || current == "" || m[1] == "OPTS" || strings.HasSuffix(m[1], "_OPTS") || slices.Contains(imageHelpers(), m[1]) {
			continue
		}
		if m[1] == "PROCESS_ROLES" {
			brokers[current] = true
		}
		key := propertyName(m[1])
		if slices.Contains(uncomparedKeys(), key) || strings.HasSuffix(key, ".sasl.jaas.config") {
			continue
		}
		out[current] = append(out[current], key+"="+strings.Trim(m[2], `"'`))
	}
	for s := range out {
		if !brokers[s] {
			delete(out, s)
			continue
		}
		slices.Sort(out[s])
	}
	return out
}

// TestComposeMatchesLocalKafka: the compose files users start and the
// brokers internal/localkafka starts (--local-kafka, cmd/offsetlab-kafka,
// the tests) declare the same broker settings.
func TestComposeMatchesLocalKafka(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	tests := []struct {
		file, shape string
		services    int
	}{
		{"compose.yaml", "single", 1},
		{"compose.triple.yaml", "triple", 3},
		{"compose.secure.yaml", "secure", 1},
	}
	for _, tt := range tests {
		raw, err := localkafka.SharedSettings(tt.shape)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(raw, "\n") {
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
				t.Errorf("%s service %s declares\n %v\ninternal/localkafka (%s) declares\n %v", tt.file, name, got, tt.shape, want)
			}
		}
	}
}

func TestPropertyName(t *testing.T) {
	t.Parallel()
	tests := []struct{ env, want string }{
		{"NODE_ID", "node.id"},
		{"LISTENER_NAME_CONTROLLER_SASL_ENABLED_MECHANISMS", "listener.name.controller.sasl.enabled.mechanisms"},
		{"LISTENER_NAME_SECURE_SCRAM___SHA___512_SASL_JAAS_CONFIG", "listener.name.secure.scram-sha-512.sasl.jaas.config"},
		{"FOO__BAR", "foo_bar"},
	}
	for _, tt := range tests {
		if got := propertyName(tt.env); got != tt.want {
			t.Errorf("propertyName(%s) = %s, want %s", tt.env, got, tt.want)
		}
	}
}
