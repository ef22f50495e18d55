package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRun: no command or an unknown one prints the usage (exit 2); run
// without the application fetched says how to fetch it (exit 1).
func TestRun(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		cache  string
		code   int
		stdout string
		stderr string
	}{
		{"no command", nil, empty, 2, "", "usage:"},
		{"an unknown command", []string{"start"}, empty, 2, "", "usage:"},
		{"run, nothing fetched", []string{"run"}, empty, 1, "", "offsetlab-apicurio fetch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "OFFSETLAB_CACHE" {
					return tt.cache
				}
				return ""
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tt.args, getenv, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if stdout.String() != tt.stdout || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stdout %q (want %q), stderr %q (want it to hold %q)", stdout.String(), tt.stdout, stderr.String(), tt.stderr)
			}
		})
	}
}
