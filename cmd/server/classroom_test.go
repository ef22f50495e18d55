package main

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestParseFlagsClassroom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		classroom bool
		hosts     []string
		wantErr   string
	}{
		{name: "default: loopback, no classroom"},
		{name: "network address without --classroom is refused", args: []string{"--addr", "0.0.0.0:8080"}, wantErr: "add --classroom"},
		{name: "all interfaces by an empty host is refused", args: []string{"--addr", ":8080"}, wantErr: "add --classroom"},
		{name: "a LAN address without --classroom is refused", args: []string{"--addr", "192.0.2.10:8080"}, wantErr: "add --classroom"},
		{name: "--classroom on the network", args: []string{"--classroom", "--addr", "0.0.0.0:8080"}, classroom: true},
		{name: "--classroom on loopback is allowed", args: []string{"--classroom"}, classroom: true},
		{name: "OFFSETLAB_CLASSROOM=1", env: map[string]string{"OFFSETLAB_CLASSROOM": "1", "OFFSETLAB_ADDR": "0.0.0.0:8080"}, classroom: true},
		{name: "OFFSETLAB_CLASSROOM=yes is refused", env: map[string]string{"OFFSETLAB_CLASSROOM": "yes"}, wantErr: "use 1 or 0"},
		{name: "allowed hosts", args: []string{"--allowed-hosts", "lab.example, teacher.local:8080,"}, hosts: []string{"lab.example", "teacher.local:8080"}},
		{name: "allowed hosts from the environment", env: map[string]string{"OFFSETLAB_ALLOWED_HOSTS": "lab.example"}, hosts: []string{"lab.example"}},
		{name: "localhost is loopback", args: []string{"--addr", "localhost:8080"}},
	}
	for _, tt := range tests {
		c, err := parseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if c.classroom != tt.classroom || !slices.Equal(c.allowedHosts, tt.hosts) {
			t.Errorf("%s: classroom %v, hosts %q; want %v, %q", tt.name, c.classroom, c.allowedHosts, tt.classroom, tt.hosts)
		}
	}
}

// TestRunClassroom starts the server in classroom mode and checks that it
// logs the join URL and a one-time teacher login link that works, and that
// a request for a foreign Host is refused.
func TestRunClassroom(t *testing.T) {
	t.Parallel()
	found, stop := runServer(t, []string{"--classroom", "--addr", "127.0.0.1:0", "--kafka-addr", "127.0.0.1:0"},
		map[string]string{"OFFSETLAB_DATA_DIR": t.TempDir()}, `joinURL=(http://\S+)`, `loginURL="?(http://[^\s"]+/teacher/login\?token=[^\s"]+)`)
	join, login := found[0], found[1]
	base := strings.TrimSuffix(join, "/")
	if !strings.HasPrefix(login, base+"/teacher/login?token=") {
		t.Fatalf("login link %s is not on the listen address %s", login, base)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(login)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Set-Cookie"), "offsetlab_teacher=") {
		t.Fatalf("login: %d, cookie %q", resp.StatusCode, resp.Header.Get("Set-Cookie"))
	}
	req, _ := http.NewRequest("GET", base+"/healthz", nil)
	req.Host = "rebound.example" + base[strings.LastIndex(base, ":"):]
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("GET /healthz for Host %s: %d, want 421", req.Host, resp.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatalf("run returned %v after shutdown", err)
	}
}
