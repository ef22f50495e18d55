package producer

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/problem"
)

func TestProfileValidate(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name    string
		profile Profile
		says    string // empty: valid
	}{
		{"defaults", Profile{}, ""},
		{"acks all idempotent", Profile{Acks: AcksAll, Idempotent: &yes}, ""},
		{"acks 1 plain", Profile{Acks: AcksLeader}, ""},
		{"acks 0 plain", Profile{Acks: AcksNone}, ""},
		{"transactional implies idempotence", Profile{TransactionalID: "t"}, ""},
		{"idempotence with acks 1", Profile{Acks: AcksLeader, Idempotent: &yes}, "idempotence"},
		{"idempotence with acks 0", Profile{Acks: AcksNone, Idempotent: &yes}, "idempotence"},
		{"transactions without idempotence", Profile{TransactionalID: "t", Idempotent: &no}, "idempotence"},
		{"transactions with acks 1", Profile{TransactionalID: "t", Acks: AcksLeader}, "acks=all"},
		{"acks 7", Profile{Acks: "7"}, "acks"},
	}
	for _, tt := range tests {
		err := tt.profile.Validate()
		switch {
		case tt.says == "" && err != nil:
			t.Errorf("%s: %v, want valid", tt.name, err)
		case tt.says != "" && (err == nil || !strings.Contains(err.Error(), tt.says) || problem.KindOf(err) != problem.Invalid):
			t.Errorf("%s: %v, want an invalid-settings error naming %q", tt.name, err, tt.says)
		}
	}
}

func TestParseOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line  string
		total string
		ok    bool
	}{
		{"O-1 2x15000", "O-1 total=30000", true},
		{"O-2 1x42000", "O-2 total=42000", true},
		{"O-3 3x9000", "O-3 total=27000", true},
		{"  O-4 10x1 ", "O-4 total=10", true},
		{"O-5", "", false},
		{"O-6 2*3", "", false},
		{"O-7 ax3", "", false},
		{"O-8 2x-3", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		o, err := ParseOrder(tt.line)
		if (err == nil) != tt.ok || (tt.ok && o.Total() != tt.total) {
			t.Errorf("ParseOrder(%q) = %+v, %v; want %q ok=%v", tt.line, o, err, tt.total, tt.ok)
		}
	}
}

func TestRunConfigValidate(t *testing.T) {
	t.Parallel()
	ok := RunConfig{Mode: Transactional, Input: "orders", Output: "out", Group: "g", TransactionalID: "app"}
	tests := []struct {
		name string
		edit func(*RunConfig)
		says string
	}{
		{"valid", func(*RunConfig) {}, ""},
		{"unknown mode", func(c *RunConfig) { c.Mode = "twice" }, "mode"},
		{"no group", func(c *RunConfig) { c.Group = "" }, "group"},
		{"tx without id", func(c *RunConfig) { c.TransactionalID = "" }, "transactionalId"},
		{"plain with id", func(c *RunConfig) { c.Mode = Plain }, "only makes sense"},
	}
	for _, tt := range tests {
		c := ok
		tt.edit(&c)
		err := c.Validate()
		if (tt.says == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.says)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.says)
		}
	}
}

// frame builds a request frame: size, api key, version, correlation id, body.
func frame(key int16, corr int32, body int) []byte {
	b := make([]byte, 12+body)
	binary.BigEndian.PutUint32(b, uint32(8+body))
	binary.BigEndian.PutUint16(b[4:], uint16(key))
	binary.BigEndian.PutUint16(b[6:], 9)
	binary.BigEndian.PutUint32(b[8:], uint32(corr))
	return b
}

// TestObserveRequests: the lost-ACK fault recognises Produce requests by
// their frame header however the stream is split into writes.
func TestObserveRequests(t *testing.T) {
	t.Parallel()
	var stream []byte
	stream = append(stream, frame(18, 1, 3)...)   // ApiVersions
	stream = append(stream, frame(0, 2, 100)...)  // Produce
	stream = append(stream, frame(3, 3, 0)...)    // Metadata
	stream = append(stream, frame(0, 4, 7000)...) // Produce
	for _, chunk := range []int{1, 5, 12, 13, 64, len(stream)} {
		c := &faultyConn{requests: map[int32]requestHeader{}}
		for rest := stream; len(rest) > 0; {
			n := min(chunk, len(rest))
			c.observeRequest(rest[:n])
			rest = rest[n:]
		}
		for corr, want := range map[int32]bool{1: false, 2: true, 3: false, 4: true} {
			req, watched := c.request(corr)
			if got := watched && req.key == 0; got != want {
				t.Errorf("chunks of %d: correlation %d is Produce = %v, want %v", chunk, corr, got, want)
			}
		}
	}
}
