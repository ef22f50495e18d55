package download

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/kafka.jar" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "jar bytes")
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		path    string
		want    string
		wantErr string
	}{
		{path: "/kafka.jar", want: "jar bytes"},
		{path: "/missing.jar", wantErr: "404 Not Found"},
	}
	for _, tt := range tests {
		body, err := Get(t.Context(), srv.URL+tt.path)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Get(%s) error = %v, want %q", tt.path, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Get(%s): %v", tt.path, err)
		}
		got, err := io.ReadAll(body)
		body.Close()
		if err != nil || string(got) != tt.want {
			t.Errorf("Get(%s) = %q, %v, want %q", tt.path, got, err, tt.want)
		}
	}
}
