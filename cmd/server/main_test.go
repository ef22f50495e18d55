package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRun starts the whole server on free ports with the embedded broker,
// checks that it logs the addresses it bound and serves them, then stops
// it as SIGINT would.
func TestRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs, logw := io.Pipe()
	env := map[string]string{"OFFSETLAB_DATA_DIR": t.TempDir()}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--kafka-addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, logw)
		logw.Close()
	}()

	urlRe := regexp.MustCompile(`url=(http://\S+)`)
	kafkaRe := regexp.MustCompile(`kafkaAddr=(\S+)`)
	var url, kafkaAddr string
	sc := bufio.NewScanner(logs)
	for url == "" && sc.Scan() {
		if m := kafkaRe.FindStringSubmatch(sc.Text()); m != nil {
			kafkaAddr = m[1]
		}
		if m := urlRe.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	go io.Copy(io.Discard, logs)
	if url == "" || kafkaAddr == "" || strings.HasSuffix(kafkaAddr, ":0") {
		t.Fatalf("server did not log its addresses (url %q, kafka %q)", url, kafkaAddr)
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

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after shutdown", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not shut down within 20s")
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
