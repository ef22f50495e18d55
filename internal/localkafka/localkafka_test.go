package localkafka

import (
	"errors"
	"testing"
)

func TestParseStatus(t *testing.T) {
	out := `cluster abc shape=triple dir=/tmp/k bootstrap=127.0.0.1:1,127.0.0.1:2,127.0.0.1:3
node 1 pid 123 port 40001 serving live-brokers=1,3
node 2 stopped port 40002
node 3 pid 125 port 40003 running, not answering metadata
`
	got, err := parseStatus(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{{1, "127.0.0.1:40001", true}, {2, "127.0.0.1:40002", false}, {3, "127.0.0.1:40003", false}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("node %d: got %+v, want %+v", i+1, got[i], want[i])
		}
	}
	if _, err := parseStatus("nothing"); err == nil {
		t.Error("no nodes parsed without an error")
	}
}

func TestUnknownNode(t *testing.T) {
	c := &Cluster{cfg: Config{Shape: Triple}, brokers: []string{"a", "b", "c"}}
	for _, id := range []int{0, 4} {
		if err := c.StopNode(t.Context(), id); !errors.Is(err, ErrUnknownNode) {
			t.Errorf("StopNode(%d): %v, want ErrUnknownNode", id, err)
		}
	}
}
