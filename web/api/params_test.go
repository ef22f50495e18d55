package api

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// TestParams: each kind of parameter reads its values and refuses the
// rest with the one sentence of its kind, naming the parameter and the
// value; an absent parameter takes the handler's default.
func TestParams(t *testing.T) {
	t.Parallel()
	type read func(params) (any, error)
	offset := func(p params) (any, error) { return p.offset("from", -1) }
	number := func(p params) (any, error) { return p.number("buckets", 7) }
	count := func(p params) (any, error) { return p.count("limit", 500, 1000) }
	timestamp := func(p params) (any, error) { return p.timestamp("timestamp") }
	isolation := func(p params) (any, error) { return p.isolation("isolation") }
	offsetRange := func(p params) (any, error) {
		from, to, err := p.offsetRange()
		return fmt.Sprint(from, to), err
	}
	window := func(p params) (any, error) {
		from, limit, err := p.window()
		return fmt.Sprint(from, limit), err
	}
	tests := []struct {
		name  string
		read  read
		query string
		want  any
		code  string            // the refusal's key; "" when read
		args  map[string]string // the refusal's arguments
	}{
		{"offset absent", offset, "", int64(-1), "", nil},
		{"offset", offset, "from=42", int64(42), "", nil},
		{"offset zero", offset, "from=0", int64(0), "", nil},
		{"offset negative", offset, "from=-1", nil, "error.offsetParam", map[string]string{"name": "from", "value": "-1"}},
		{"offset not a number", offset, "from=abc", nil, "error.offsetParam", map[string]string{"name": "from", "value": "abc"}},
		{"offset past int64", offset, "from=9223372036854775808", nil, "error.offsetParam", map[string]string{"name": "from", "value": "9223372036854775808"}},
		{"number absent", number, "", 7, "", nil},
		{"number zero", number, "buckets=0", 0, "", nil},
		{"number", number, "buckets=64", 64, "", nil},
		{"number negative", number, "buckets=-2", nil, "error.numberParam", map[string]string{"name": "buckets", "value": "-2"}},
		{"number fraction", number, "buckets=1.5", nil, "error.numberParam", map[string]string{"name": "buckets", "value": "1.5"}},
		{"count absent", count, "", 500, "", nil},
		{"count", count, "limit=10", 10, "", nil},
		{"count past its most", count, "limit=5000", 1000, "", nil},
		{"count zero", count, "limit=0", nil, "error.countParam", map[string]string{"name": "limit", "value": "0"}},
		{"count word", count, "limit=all", nil, "error.countParam", map[string]string{"name": "limit", "value": "all"}},
		{"timestamp", timestamp, "timestamp=1700000000000", int64(1700000000000), "", nil},
		{"timestamp before 1970", timestamp, "timestamp=-5", int64(-5), "", nil},
		{"timestamp absent", timestamp, "", nil, "error.timestampParam", map[string]string{"name": "timestamp", "value": ""}},
		{"timestamp word", timestamp, "timestamp=soon", nil, "error.timestampParam", map[string]string{"name": "timestamp", "value": "soon"}},
		{"isolation absent", isolation, "", inspect.ReadCommitted, "", nil},
		{"isolation uncommitted", isolation, "isolation=read_uncommitted", inspect.ReadUncommitted, "", nil},
		{"isolation unknown", isolation, "isolation=dirty", nil, "error.isolationInvalid", map[string]string{"isolation": "dirty"}},
		{"range absent", offsetRange, "", "-1 -1", "", nil},
		{"range", offsetRange, "from=3&to=9", "3 9", "", nil},
		{"range bad to", offsetRange, "from=3&to=x", nil, "error.offsetParam", map[string]string{"name": "to", "value": "x"}},
		{"window absent", window, "", fmt.Sprint(-1, inspect.DefaultLimit), "", nil},
		{"window", window, "from=5&limit=20", "5 20", "", nil},
		{"window past the most", window, "limit=999999999", fmt.Sprint(-1, inspect.MaxLimit), "", nil},
		{"window bad from", window, "from=x", nil, "error.offsetParam", map[string]string{"name": "from", "value": "x"}},
		{"window zero limit", window, "limit=0", nil, "error.countParam", map[string]string{"name": "limit", "value": "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tt.read(params{q})
			if tt.code != "" {
				p := problem.As(err)
				if p == nil {
					t.Fatalf("got %v; want the refusal %s", got, tt.code)
				}
				if p.Kind != problem.Invalid || p.Message.Key != tt.code || fmt.Sprint(p.Message.Args) != fmt.Sprint(tt.args) {
					t.Errorf("got %s %s %v, want invalid %s %v", p.Kind, p.Message.Key, p.Message.Args, tt.code, tt.args)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %v (%T), %v; want %v (%T)", got, got, err, tt.want, tt.want)
			}
		})
	}
}

// TestParamsFlagAndText: a flag is on only when it is "true"; text is
// the value as sent.
func TestParamsFlagAndText(t *testing.T) {
	t.Parallel()
	q, _ := url.ParseQuery("brief=true&internal=1&q=O-2+x")
	p := params{q}
	for _, tt := range []struct {
		got, want any
	}{
		{p.flag("brief"), true},
		{p.flag("internal"), false},
		{p.flag("absent"), false},
		{p.text("q"), "O-2 x"},
		{p.text("absent"), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %v, want %v", tt.got, tt.want)
		}
	}
}
