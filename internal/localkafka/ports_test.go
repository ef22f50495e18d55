package localkafka

import (
	"net"
	"slices"
	"strconv"
	"testing"
)

func TestFreePorts(t *testing.T) {
	t.Parallel()
	ports, err := freePorts(6)
	if err != nil {
		t.Fatal(err)
	}
	high := ephemeralLow()
	seen := map[int]bool{}
	for _, p := range ports {
		if p < lowestPort || p >= high {
			t.Errorf("port %d outside %d-%d", p, lowestPort, high-1)
		}
		if seen[p] {
			t.Errorf("port %d twice in %v", p, ports)
		}
		seen[p] = true
	}
}

// TestFreePortsSkipsTaken: a port something listens on is never picked,
// and a range without enough free ports is an error, not a loop.
func TestFreePortsSkipsTaken(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	if _, err := freePortsIn(1, port, port); err == nil {
		t.Errorf("picked port %d, which is taken", port)
	}
	for range 20 {
		got, err := freePortsIn(1, port, port+1)
		if err != nil {
			t.Skipf("port %d is taken too: %v", port+1, err) // another process's; nothing to learn
		}
		if slices.Contains(got, port) {
			t.Fatalf("picked port %d, which is taken", port)
		}
	}
}

func TestParseEphemeralLow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"32768\t60999\n", 32768},
		{"40000 65000", 40000},
		{"", 32768},
		{"junk", 32768},
		{strconv.Itoa(lowestPort-1000) + " 60999", 32768}, // nothing below: fall back
	}
	for _, tt := range tests {
		if got := parseEphemeralLow(tt.in); got != tt.want {
			t.Errorf("parseEphemeralLow(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
