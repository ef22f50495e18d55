package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/embedded"
)

// runServer starts run with args and env on a goroutine, reads its log
// until every pattern has matched, and returns each pattern's first
// submatch. stop cancels run as SIGINT would and returns its error.
func runServer(t *testing.T, args []string, env map[string]string, patterns ...string) (found []string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	logs, logw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, func(k string) string { return env[k] }, logw)
		logw.Close()
	}()
	found = make([]string, len(patterns))
	missing := len(patterns)
	sc := bufio.NewScanner(logs)
	for missing > 0 && sc.Scan() {
		for i, p := range patterns {
			if m := regexp.MustCompile(p).FindStringSubmatch(sc.Text()); m != nil && found[i] == "" {
				found[i] = m[1]
				missing--
			}
		}
	}
	go io.Copy(io.Discard, logs)
	if missing > 0 {
		t.Fatalf("the server's log never matched all of %q (found %q)", patterns, found)
	}
	return found, func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			return errors.New("server did not shut down within 20s")
		}
	}
}

// TestRun starts the whole server on free ports with the embedded broker,
// checks that it logs the addresses it bound and serves them, then stops
// it as SIGINT would.
func TestRun(t *testing.T) {
	t.Parallel()
	found, stop := runServer(t, []string{"--addr", "127.0.0.1:0", "--kafka-addr", "127.0.0.1:0"},
		map[string]string{"OFFSETLAB_DATA_DIR": t.TempDir()}, `url=(http://\S+)`, `kafkaAddr=(\S+)`)
	url, kafkaAddr := found[0], found[1]
	if strings.HasSuffix(kafkaAddr, ":0") {
		t.Fatalf("server logged kafka address %q, not the bound one", kafkaAddr)
	}

	resp, err := http.Get(url + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Get(url + "/api/cluster")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Mode      string `json:"mode"`
		KafkaAddr string `json:"kafkaAddr"`
	}
	err = json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if err != nil || c.Mode != "embedded" || c.KafkaAddr != kafkaAddr {
		t.Fatalf("GET /api/cluster = %+v (%v); want embedded at %s", c, err, kafkaAddr)
	}
	if err := stop(); err != nil {
		t.Fatalf("run returned %v after shutdown", err)
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{"OFFSETLAB_BROKERS": "a:1,b:2", "OFFSETLAB_ADDR": "127.0.0.1:9999"}
	c, err := parseFlags([]string{"--addr", "127.0.0.1:7000"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.addr != "127.0.0.1:7000" || c.brokers != "a:1,b:2" || c.kafkaAddr != "127.0.0.1:9092" || c.dataDir != "./data" {
		t.Fatalf("parseFlags = %+v", c)
	}
	if _, err := parseFlags([]string{"stray"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("a stray argument was accepted")
	}
}

// TestCommandConfigRefusedAtStart: a properties file the server cannot use
// stops it at start with a sentence naming the file (and the key, when it
// is about one), never a secret; bootstrap.servers stands in for --brokers.
func TestCommandConfigRefusedAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.properties", "bootstrap.servers=127.0.0.1:1\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"s3cret-pw\";\n")
	tests := []struct {
		name string
		file string
		says []string
	}{
		{"a file that does not exist", filepath.Join(dir, "nope.properties"), []string{"nope.properties", "no such file"}},
		{"a malformed line", write("bad.properties", "bootstrap.servers=127.0.0.1:1\njust-a-word\n"), []string{"bad.properties:2", "not a key=value setting"}},
		{"a mechanism we do not support", write("mech.properties", "bootstrap.servers=127.0.0.1:1\nsecurity.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n"), []string{"mech.properties:3: sasl.mechanism", "GSSAPI"}},
		{"an unknown key", write("typo.properties", "bootstrap.servers=127.0.0.1:1\nsecurity.protocl=SSL\n"), []string{"typo.properties", "security.protocl"}},
	}
	for _, tt := range tests {
		err := run(context.Background(), []string{"--command-config", tt.file, "--addr", "127.0.0.1:0"}, func(string) string { return "" }, io.Discard)
		if err == nil {
			t.Errorf("%s: the server started", tt.name)
			continue
		}
		for _, s := range tt.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", tt.name, err, s)
			}
		}
	}
	c, err := parseFlags([]string{"--command-config", good}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.brokers != "127.0.0.1:1" || c.allowWrites {
		t.Errorf("with bootstrap.servers in the file: brokers %q, allowWrites %v", c.brokers, c.allowWrites)
	}
	if strings.Contains(fmt.Sprintf("%+v %#v", c, c), "s3cret-pw") {
		t.Error("the configuration prints the password")
	}
}

func TestParseKafkaPortFlags(t *testing.T) {
	t.Parallel()
	// No flag sets QueuedMaxRequestBytes: the cluster's default applies.
	defaults := embedded.DefaultPortLimits()
	defaults.QueuedMaxRequestBytes = 0
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want embedded.PortLimits // zero: an error is wanted
	}{
		{"defaults", nil, nil, defaults},
		{
			"flags and environment",
			[]string{"--kafka-max-request-bytes", "1048576", "--kafka-idle-timeout", "5s", "--kafka-max-connections-per-ip", "8", "--kafka-failed-authentication-delay", "250ms"},
			map[string]string{"OFFSETLAB_KAFKA_REQUEST_TIMEOUT": "2s", "OFFSETLAB_KAFKA_MAX_CONNECTIONS": "100", "OFFSETLAB_KAFKA_MAX_REQUEST_BYTES": "5"},
			embedded.PortLimits{MaxRequestBytes: 1 << 20, RequestTimeout: 2 * time.Second, IdleTimeout: 5 * time.Second, MaxConnections: 100, MaxConnectionsPerIP: 8, FailedAuthenticationDelay: 250 * time.Millisecond},
		},
		{"not a number", []string{"--kafka-max-request-bytes", "100MiB"}, nil, embedded.PortLimits{}},
		{"zero", []string{"--kafka-max-connections", "0"}, nil, embedded.PortLimits{}},
		{"above a size prefix", []string{"--kafka-max-request-bytes", "4294967296"}, nil, embedded.PortLimits{}},
		{"not a duration", nil, map[string]string{"OFFSETLAB_KAFKA_IDLE_TIMEOUT": "600"}, embedded.PortLimits{}},
	}
	for _, tt := range tests {
		c, err := parseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
		if tt.want == (embedded.PortLimits{}) {
			if err == nil {
				t.Errorf("%s: parseFlags accepted %v %v", tt.name, tt.args, tt.env)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := c.kafkaLimits; got != tt.want {
			t.Errorf("%s: limits %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestRunFailsFastOnATakenPort starts the server on a dashboard port
// another program holds: it must give up with a sentence that says so and
// names the flag, before it loads the embedded broker's data.
func TestRunFailsFastOnATakenPort(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() }) // after the parallel subtests
	tests := []struct {
		name string
		args []string
		flag string
	}{
		{"dashboard", []string{"--addr", taken.Addr().String(), "--kafka-addr", "127.0.0.1:0"}, "--addr"},
		{"kafka port", []string{"--addr", "127.0.0.1:0", "--kafka-addr", taken.Addr().String()}, "--kafka-addr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log strings.Builder
			dir := filepath.Join(t.TempDir(), "data")
			err := run(context.Background(), tt.args, func(k string) string {
				if k == "OFFSETLAB_DATA_DIR" {
					return dir
				}
				return ""
			}, &log)
			if err == nil {
				t.Fatal("the server started on a taken port")
			}
			for _, want := range []string{"cannot listen on " + taken.Addr().String(), "in use by another program", tt.flag} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
				t.Errorf("the server touched its data directory before binding its ports (stat: %v)", statErr)
			}
			if strings.Contains(log.String(), "embedded Kafka broker listening") {
				t.Errorf("the embedded broker started before the port check:\n%s", log.String())
			}
		})
	}
}
