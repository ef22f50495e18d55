package httpx

import "testing"

func TestLoopbackURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:8080/", true},
		{"http://127.1.2.3:8080/", true},
		{"http://[::1]:8080/", true},
		{"http://localhost:8080/", true},
		{"http://192.168.1.20:8080/", false},
		{"http://lab.example.org/", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := LoopbackURL(tt.url); got != tt.want {
			t.Errorf("LoopbackURL(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestJoinFix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url   string
		given bool
		want  string
	}{
		{"http://127.0.0.1:9000/", false, "--addr 0.0.0.0:9000"},
		{"http://localhost/", false, "--addr 0.0.0.0:8080"},
		{"http://127.0.0.1:9000/", true, "--join-url http://<this computer's address>:<port>/"},
	}
	for _, tt := range tests {
		if got := JoinFix(tt.url, tt.given); got != tt.want {
			t.Errorf("JoinFix(%q, %v) = %q, want %q", tt.url, tt.given, got, tt.want)
		}
	}
}
