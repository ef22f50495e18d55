package localkafka

import (
	"bufio"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// settings holds the broker settings per shape, the log4j2 configs and
// the secure shape's reader ACLs: one source for the brokers this package
// runs and for the compose files (e2e/compose_test.go compares them).
//
//go:embed settings/*.properties settings/reader.acls
var settings embed.FS

// settingsLines returns a settings file without its # comment lines.
func settingsLines(name string) string {
	b, err := settings.ReadFile("settings/" + name)
	if err != nil {
		panic(err) // embedded at build time: cannot happen
	}
	var out strings.Builder
	for line := range strings.Lines(string(b)) {
		if !strings.HasPrefix(line, "#") {
			out.WriteString(line)
		}
	}
	return out.String()
}

// nodeCount is how many nodes a shape has; 0 for an unknown shape.
func nodeCount(shape string) int {
	switch shape {
	case Single, Secure:
		return 1
	case Triple:
		return 3
	}
	return 0
}

// layout is what DIR/cluster.env records: what a cluster is, so that a
// restart reuses its ports and identity.
type layout struct {
	Shape     string
	ClusterID string
	// Ports and ControllerPorts are the client (PLAINTEXT) and
	// CONTROLLER listener ports, node 1 first.
	Ports, ControllerPorts []int
}

// nodes is how many nodes the cluster has.
func (l layout) nodes() int { return len(l.Ports) }

// address is node id's client address.
func (l layout) address(id int) string { return "127.0.0.1:" + strconv.Itoa(l.Ports[id-1]) }

// SharedSettings returns the cluster-wide broker settings of a shape,
// one key=value a line: what every node's server.properties holds besides
// its topology and files, and what the KAFKA_* environment of the shape's
// compose file must say (KAFKA_FOO_BAR <-> foo.bar).
func SharedSettings(shape string) (string, error) {
	switch shape {
	case Single, Triple:
		return settingsLines(shape + ".properties"), nil
	case Secure:
		return settingsLines("single.properties") + settingsLines("secure.properties"), nil
	}
	return "", fmt.Errorf("unknown shape %q (single, triple or secure)", shape)
}

// keystore is where a secure node finds its keystore and truststore (the
// cluster's directory) and the keystore's password; zero for the other
// shapes.
type keystore struct {
	Dir, Password string
}

// properties returns node id's server.properties with its data in logDir.
func (l layout) properties(id int, logDir string, ks keystore) string {
	var voters []string
	for i, port := range l.ControllerPorts {
		voters = append(voters, fmt.Sprintf("%d@127.0.0.1:%d", i+1, port))
	}
	shared, _ := SharedSettings(l.Shape)
	var b strings.Builder
	fmt.Fprintf(&b, "# Offset Lab: Apache Kafka %s KRaft, shape=%s, node %d of %d\n", KafkaVersion, l.Shape, id, l.nodes())
	b.WriteString("# --- shared: must equal the KAFKA_* environment of the compose file ---\n")
	b.WriteString(shared)
	b.WriteString("# --- topology: node-specific, loopback only ---\n")
	fmt.Fprintf(&b, "node.id=%d\n", id)
	if l.Shape == Secure {
		fmt.Fprintf(&b, "listeners=SASL_SSL://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d\n", l.Ports[id-1], l.ControllerPorts[id-1])
		fmt.Fprintf(&b, "advertised.listeners=SASL_SSL://127.0.0.1:%d\n", l.Ports[id-1])
		b.WriteString("listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_SSL:SASL_SSL\n")
		b.WriteString("inter.broker.listener.name=SASL_SSL\n")
	} else {
		fmt.Fprintf(&b, "listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d\n", l.Ports[id-1], l.ControllerPorts[id-1])
		fmt.Fprintf(&b, "advertised.listeners=PLAINTEXT://127.0.0.1:%d\n", l.Ports[id-1])
		b.WriteString("listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT\n")
		b.WriteString("inter.broker.listener.name=PLAINTEXT\n")
	}
	fmt.Fprintf(&b, "controller.quorum.voters=%s\n", strings.Join(voters, ","))
	fmt.Fprintf(&b, "log.dirs=%s\n", logDir)
	if l.Shape == Secure {
		// SASL users and passwords live in the JAAS file the JVM is given
		// (-Djava.security.auth.login.config, as the apache/kafka image does)
		b.WriteString("# --- per deployment: files and secrets, not compared with compose ---\n")
		fmt.Fprintf(&b, "ssl.keystore.location=%s\n", filepath.Join(ks.Dir, "secrets", "server.p12"))
		fmt.Fprintf(&b, "ssl.keystore.password=%s\n", ks.Password)
		fmt.Fprintf(&b, "ssl.key.password=%s\n", ks.Password)
		fmt.Fprintf(&b, "ssl.truststore.location=%s\n", filepath.Join(ks.Dir, "ca.pem"))
	}
	b.WriteString("# --- local only: process resources ---\n")
	b.WriteString(settingsLines("local.properties"))
	return b.String()
}

// envFile is DIR/cluster.env.
func (l layout) envFile() string {
	return fmt.Sprintf("SHAPE=%s\nNODES=%d\nCLUSTER_ID=%s\nPORTS=%s\nCONTROLLER_PORTS=%s\n",
		l.Shape, l.nodes(), l.ClusterID, joinInts(l.Ports), joinInts(l.ControllerPorts))
}

// readLayout reads DIR/cluster.env; a missing file is fs.ErrNotExist.
func readLayout(dir string) (layout, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cluster.env"))
	if err != nil {
		return layout{}, err
	}
	return parseLayout(string(b))
}

func parseLayout(text string) (layout, error) {
	vars := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok {
			vars[k] = v
		}
	}
	l := layout{Shape: vars["SHAPE"], ClusterID: vars["CLUSTER_ID"]}
	n := nodeCount(l.Shape)
	var err1, err2 error
	l.Ports, err1 = splitInts(vars["PORTS"])
	l.ControllerPorts, err2 = splitInts(vars["CONTROLLER_PORTS"])
	if n == 0 || l.ClusterID == "" || err1 != nil || err2 != nil || len(l.Ports) != n || len(l.ControllerPorts) != n || vars["NODES"] != strconv.Itoa(n) {
		return layout{}, fmt.Errorf("cluster.env is not a cluster description: %q", strings.TrimSpace(text))
	}
	return l, nil
}

// writeLayout writes DIR/cluster.env atomically: its presence means
// "formatted and ready to start".
func writeLayout(dir string, l layout) error {
	return writeFileAtomic(filepath.Join(dir, "cluster.env"), []byte(l.envFile()))
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp." + rand.Text()[:8]
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// newClusterID is a Kafka Uuid as `kafka-storage random-uuid` prints it:
// 16 random bytes, URL-safe base64 without padding, never starting with
// '-' (the tool would take it for an option).
func newClusterID() string {
	for {
		b := make([]byte, 16)
		rand.Read(b)
		if id := base64.RawURLEncoding.EncodeToString(b); id[0] != '-' {
			return id
		}
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func splitInts(s string) ([]int, error) {
	if s == "" {
		return nil, errors.New("empty")
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("bad port %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}
