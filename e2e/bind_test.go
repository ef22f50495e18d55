package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSecondServerOnTakenPortFailsFast starts a second server on the
// first one's dashboard port, then on its Kafka port: each exits at once
// with the sentence that says the port is in use and names the flag,
// before it reads (or creates) its data directory. Then the first server
// is killed with kill -9 and started again at once on the same ports and
// data directory, as a teacher would after a crash: it comes up with its
// records.
func TestSecondServerOnTakenPortFailsFast(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	first := startServerProcess(t, "--data-dir", dataDir)
	a := first.app(randomSuffix(t))
	topic := a.name("kept")
	a.createTopic(topic)
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"before the kill"}, "acks": "all"}, http.StatusOK, nil)
	addr := strings.TrimPrefix(first.url, "http://")

	for _, tt := range []struct {
		name, flag string
		args       []string
	}{
		{"dashboard port", "--addr", []string{"--addr", addr, "--kafka-addr", "127.0.0.1:0"}},
		{"Kafka port", "--kafka-addr", []string{"--addr", "127.0.0.1:0", "--kafka-addr", first.kafkaAddr}},
	} {
		second := filepath.Join(t.TempDir(), "data")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, serverBinary(t), append(tt.args, "--data-dir", second)...)
		cmd.Env = append(os.Environ(), "OFFSETLAB_CLASSROOM=", "OFFSETLAB_BROKERS=", "OFFSETLAB_LOCAL_KAFKA=", "OFFSETLAB_COMMAND_CONFIG=")
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err()
		cancel()
		if err == nil || timedOut != nil {
			t.Fatalf("%s: a second server on a taken port: err %v (%v); output:\n%s", tt.name, err, timedOut, out)
		}
		for _, want := range []string{"in use by another program", "choose another address with " + tt.flag} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s: the second server's output does not say %q:\n%s", tt.name, want, out)
			}
		}
		if _, err := os.Stat(second); !os.IsNotExist(err) {
			t.Errorf("%s: the second server created its data directory before binding (stat: %v)", tt.name, err)
		}
	}

	first.kill()
	again := startServerProcess(t, "--data-dir", dataDir, "--addr", addr, "--kafka-addr", first.kafkaAddr)
	b := again.app(a.suffix)
	equal(t, "records after kill -9 and an immediate restart", b.consumed(topic, "read_committed"), []string{"0: before the kill"})
}
