package main

import (
	"io"
	"testing"

	"github.com/offsetlab/offsetlab/internal/embedded"
)

func TestBudgetFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want embedded.DataBudget
		bad  bool
	}{
		{name: "default", want: embedded.DataBudget{MaxBytes: 256 << 20}},
		{name: "flag", args: []string{"--embedded-max-bytes", "2GiB", "--embedded-client-max-bytes", "64MiB"}, want: embedded.DataBudget{MaxBytes: 2 << 30, ClientMaxBytes: 64 << 20}},
		{name: "env", env: map[string]string{"OFFSETLAB_EMBEDDED_MAX_BYTES": "1000000"}, want: embedded.DataBudget{MaxBytes: 1000000}},
		{name: "decimal units", args: []string{"--embedded-max-bytes", "5 GB"}, want: embedded.DataBudget{MaxBytes: 5e9}},
		{name: "none", args: []string{"--embedded-max-bytes", "none"}, want: embedded.DataBudget{MaxBytes: -1}},
		{name: "zero", args: []string{"--embedded-max-bytes", "0"}, bad: true},
		{name: "negative", args: []string{"--embedded-max-bytes", "-5MiB"}, bad: true},
		{name: "words", env: map[string]string{"OFFSETLAB_EMBEDDED_CLIENT_MAX_BYTES": "lots"}, bad: true},
	}
	for _, tt := range tests {
		c, err := parseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
		if tt.bad {
			if err == nil {
				t.Errorf("%s: parseFlags accepted %v %v", tt.name, tt.args, tt.env)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if c.budget != tt.want {
			t.Errorf("%s: budget %+v, want %+v", tt.name, c.budget, tt.want)
		}
	}
}
