package inspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// TestSearchMatchesReadLog searches the mixed partition (every codec,
// every outcome) and checks each match is exactly ReadLog's entry for that
// offset, outcome and delivery included, and that nothing is missed.
func TestSearchMatchesReadLog(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			lso := f.mixed()
			hw := f.settle(lso).HighWatermark
			entries := f.walk(0, hw, MaxLimit)
			tests := []struct {
				name string
				req  SearchRequest
				want func(e *Entry) bool
			}{
				{"value", SearchRequest{Query: "abort-gzip", In: SearchValue},
					func(e *Entry) bool { return e.Value != nil && strings.Contains(*e.Value, "abort-gzip") }},
				{"key", SearchRequest{Query: "k-above-commit", In: SearchKey},
					func(e *Entry) bool { return e.Key != nil && strings.HasPrefix(*e.Key, "k-above-commit") }},
				{"anywhere", SearchRequest{Query: "open"},
					func(e *Entry) bool { return e.Value != nil && strings.Contains(*e.Value, "open") }},
				{"no match", SearchRequest{Query: "nowhere to be found"}, func(*Entry) bool { return false }},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					req := tt.req
					req.From, req.To, req.Limit = -1, -1, MaxSearchLimit
					res, err := f.ins.Search(testCtx(t), f.topic, 0, req)
					if err != nil {
						t.Fatal(err)
					}
					want := []Entry{}
					for i := range entries {
						if entries[i].Kind == KindData && tt.want(&entries[i]) {
							want = append(want, entries[i])
						}
					}
					if !reflect.DeepEqual(res.Matches, want) {
						t.Errorf("got %d matches, want %d", len(res.Matches), len(want))
						for i := range min(len(want), len(res.Matches)) {
							if !reflect.DeepEqual(res.Matches[i], want[i]) {
								t.Errorf("match %d:\n got %+v\nwant %+v", i, res.Matches[i], want[i])
								break
							}
						}
					}
					if res.ScannedFrom != 0 || res.ScannedTo != hw || res.Next != nil {
						t.Errorf("scanned [%d, %d) next %v, want [0, %d) and no next", res.ScannedFrom, res.ScannedTo, res.Next, hw)
					}
				})
			}
		})
	}
}

// jsonFixture writes records with headers and JSON values.
func jsonFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, "kfake", nil)
	p := f.producer("", kgo.ProducerLinger(10*time.Millisecond))
	recs := []*kgo.Record{
		{Key: []byte("order-1"), Value: []byte(`{"order":{"id":"O-1","qty":2},"items":[{"sku":"apple"},{"sku":"pear"}]}`)},
		{Key: []byte("order-2"), Value: []byte(`{"order":{"id":"O-2","qty":1.0},"note":"caf\u00e9"}`), Headers: []kgo.RecordHeader{{Key: "trace-id", Value: []byte("abc123")}}},
		{Key: []byte("binary"), Value: []byte{0xff, 0x00, 'O', '-', '1'}},
		{Key: nil, Value: nil, Headers: []kgo.RecordHeader{{Key: "source", Value: []byte("O-1-replay")}}},
		{Key: []byte("order-3"), Value: []byte(`{"order": {"id": "O-3", "qty": 3}, "items": []}`)},
		{Key: []byte("not-json"), Value: []byte(`order.id = O-1`)},
	}
	if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	f.settle(-1)
	return f
}

func TestSearchFields(t *testing.T) {
	t.Parallel()
	f := jsonFixture(t)
	tests := []struct {
		name string
		req  SearchRequest
		want []int64
	}{
		{"value substring", SearchRequest{Query: "O-1", In: SearchValue}, []int64{0, 2, 5}},
		{"key substring", SearchRequest{Query: "order-", In: SearchKey}, []int64{0, 1, 4}},
		{"header value", SearchRequest{Query: "abc", In: SearchHeader}, []int64{1}},
		{"header name", SearchRequest{Query: "source", In: SearchHeader}, []int64{3}},
		{"anywhere", SearchRequest{Query: "O-1"}, []int64{0, 2, 3, 5}},
		{"JSON field equals", SearchRequest{Query: "O-1", Path: "order.id"}, []int64{0}},
		{"JSON field equals with $", SearchRequest{Query: "O-3", Path: "$.order.id", In: SearchValue}, []int64{4}},
		{"JSON number equals numerically", SearchRequest{Query: "1", Path: "order.qty"}, []int64{1}},
		{"JSON field contains", SearchRequest{Query: "O-", Path: "order.id", Match: MatchContains}, []int64{0, 1, 4}},
		{"JSON escaped string", SearchRequest{Query: "café", Path: "note"}, []int64{1}},
		{"JSON array element", SearchRequest{Query: "pear", Path: "items[1].sku"}, []int64{0}},
		{"JSON wildcard", SearchRequest{Query: "pear", Path: "items[*].sku"}, []int64{0}},
		{"JSON object contains", SearchRequest{Query: `"qty":2`, Path: "order", Match: MatchContains}, []int64{0}},
		{"JSON missing field", SearchRequest{Query: "O-1", Path: "order.nope"}, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.From, req.To = -1, -1
			res, err := f.ins.Search(testCtx(t), f.topic, 0, req)
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{}
			for _, m := range res.Matches {
				got = append(got, m.Offset)
			}
			if !equalOffsets(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSearchLimitAndNext follows Next with a small limit and a small
// budget: the pages add up to one unbounded search.
func TestSearchLimitAndNext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", nil)
	p := f.producer("", kgo.ProducerLinger(5*time.Millisecond))
	for i := range 30 {
		f.send(p, values(fmt.Sprintf("batch%d-", i), 40)...)
	}
	hw := f.settle(-1).HighWatermark
	all, err := f.ins.Search(testCtx(t), f.topic, 0, SearchRequest{Query: "-3", From: -1, To: -1, Limit: MaxSearchLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Matches) < 20 || all.Next != nil {
		t.Fatalf("unbounded search: %d matches, next %v", len(all.Matches), all.Next)
	}
	f.ins.FetchBytes = 2 << 10
	for _, page := range []SearchRequest{{Limit: 7}, {Limit: MaxSearchLimit, MaxBytes: 1}} {
		req := page
		req.Query, req.From, req.To = "-3", -1, -1
		var got []Entry
		calls := 0
		for {
			calls++
			res, err := f.ins.Search(testCtx(t), f.topic, 0, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Matches) > req.Limit {
				t.Fatalf("%d matches over the limit %d", len(res.Matches), req.Limit)
			}
			if req.From >= 0 && res.ScannedFrom != req.From {
				t.Fatalf("scanned from %d, asked %d", res.ScannedFrom, req.From)
			}
			got = append(got, res.Matches...)
			if res.Next == nil {
				if res.ScannedTo != hw {
					t.Fatalf("last page ends at %d, want %d", res.ScannedTo, hw)
				}
				break
			}
			if *res.Next != res.ScannedTo || *res.Next <= req.From {
				t.Fatalf("next %d, scanned to %d, from %d", *res.Next, res.ScannedTo, req.From)
			}
			req.From = *res.Next
		}
		if calls < 3 || !reflect.DeepEqual(got, all.Matches) {
			t.Errorf("limit %d, budget %d: %d calls found %d matches, want %d", page.Limit, page.MaxBytes, calls, len(got), len(all.Matches))
		}
	}

	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	var progressed []SearchProgress
	_, err = f.ins.Search(ctx, f.topic, 0, SearchRequest{Query: "x", From: -1, To: -1, Progress: func(p SearchProgress) {
		progressed = append(progressed, p)
		cancel()
	}})
	if !errors.Is(err, context.Canceled) || len(progressed) != 1 {
		t.Errorf("cancelled search: got %v after %d progress reports", err, len(progressed))
	}
}

func TestSearchBadInput(t *testing.T) {
	t.Parallel()
	f := jsonFixture(t)
	huge := strings.Repeat("x", 10<<20)
	tests := []struct {
		name string
		req  SearchRequest
		err  error
	}{
		{"empty query", SearchRequest{Query: ""}, ErrInvalidQuery},
		{"10 MB query", SearchRequest{Query: huge}, ErrInvalidQuery},
		{"unknown field", SearchRequest{Query: "a", In: "body"}, ErrInvalidQuery},
		{"unparsable path", SearchRequest{Query: "a", Path: "order..id"}, ErrInvalidQuery},
		{"path on the key", SearchRequest{Query: "a", Path: "id", In: SearchKey}, ErrInvalidQuery},
		{"unknown match", SearchRequest{Query: "a", Path: "id", Match: "like"}, ErrInvalidQuery},
		{"equals without a path", SearchRequest{Query: "a", Match: MatchEquals}, ErrInvalidQuery},
		{"from after to", SearchRequest{Query: "a", From: 5, To: 2}, ErrInvalidRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := f.ins.Search(testCtx(t), f.topic, 0, tt.req)
			if !errors.Is(err, tt.err) {
				t.Errorf("got %v, want %v", err, tt.err)
			}
			if len(err.Error()) > 400 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
			if time.Since(start) > 2*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
	for _, r := range [][2]int64{{6, -1}, {100, 200}, {3, 3}} {
		res, err := f.ins.Search(testCtx(t), f.topic, 0, SearchRequest{Query: "O", From: r[0], To: r[1]})
		if err != nil || len(res.Matches) != 0 || res.Matches == nil || res.Next != nil {
			t.Errorf("search [%d, %d) past the data: got %+v, %v; want no matches, no next", r[0], r[1], res, err)
		}
	}
	if _, err := f.ins.Search(testCtx(t), "no-such-topic", 0, SearchRequest{Query: "a", From: -1, To: -1}); !problem.Is(err, "error.unknownTopic") {
		t.Errorf("unknown topic: got %v", err)
	}
}

func TestParseJSONPath(t *testing.T) {
	t.Parallel()
	name := func(n string) pathSegment { return pathSegment{kind: segmentName, name: n} }
	index := func(i int) pathSegment { return pathSegment{kind: segmentIndex, index: i} }
	wild := pathSegment{kind: segmentWildcard}
	tests := []struct {
		path string
		want []pathSegment // nil: invalid
	}{
		{"order.id", []pathSegment{name("order"), name("id")}},
		{"$.order.id", []pathSegment{name("order"), name("id")}},
		{"$", []pathSegment{}},
		{"items[0].sku", []pathSegment{name("items"), index(0), name("sku")}},
		{"items[*].sku", []pathSegment{name("items"), wild, name("sku")}},
		{"$.*", []pathSegment{wild}},
		{"[3]", []pathSegment{index(3)}},
		{`$["a.b"]['c d']`, []pathSegment{name("a.b"), name("c d")}},
		{`$["\u00e9\"q"]`, []pathSegment{name(`é"q`)}},
		{"@type.ü", []pathSegment{name("@type"), name("ü")}},
		{"", nil},
		{".id", nil},
		{"order..id", nil},
		{"order.", nil},
		{"$order", nil},
		{"a[", nil},
		{"a[01]", nil},
		{"a[-1]", nil},
		{"a[1234567890]", nil},
		{"a[x]", nil},
		{`a["x]`, nil},
		{`a['x]`, nil},
		{"a b", nil},
		{strings.Repeat("a.", 40) + "a", nil},
		{strings.Repeat("x", MaxJSONPathBytes+1), nil},
	}
	for _, tt := range tests {
		p, err := ParseJSONPath(tt.path)
		if tt.want == nil {
			if !errors.Is(err, ErrInvalidQuery) {
				t.Errorf("%q: got %v, want ErrInvalidQuery", tt.path, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.path, err)
			continue
		}
		if len(p.segs) != len(tt.want) || len(tt.want) > 0 && !reflect.DeepEqual(p.segs, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.path, p.segs, tt.want)
		}
	}
}

func TestJSONPathSelect(t *testing.T) {
	t.Parallel()
	doc := []byte(` {"a": {"b": [10, {"c": "x"}, "y"], "b": 2}, "s": "t\"q", "n": null, "deep": [[[1]]]} trailing`)
	tests := []struct {
		path string
		want []string
	}{
		{"a.b", []string{`[10, {"c": "x"}, "y"]`, `2`}},
		{"a.b[1].c", []string{`"x"`}},
		{"a.b[*]", []string{`10`, `{"c": "x"}`, `"y"`}},
		{"a.b[5]", nil},
		{"s", []string{`"t\"q"`}},
		{"n", []string{`null`}},
		{"deep[0][0][0]", []string{`1`}},
		{"a.b.c", nil},
		{"$.*", []string{`{"b": [10, {"c": "x"}, "y"], "b": 2}`, `"t\"q"`, `null`, `[[[1]]]`}},
	}
	for _, tt := range tests {
		p, err := ParseJSONPath(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		p.each(doc, func(v []byte) bool {
			got = append(got, string(v))
			return false
		})
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.path, got, tt.want)
		}
	}
	for _, bad := range []string{`{"a": }`, `{"a" 1}`, `[1,`, `"unterminated`, "\xff", strings.Repeat("[", 1000) + strings.Repeat("]", 1000)} {
		p, _ := ParseJSONPath("$")
		p.each([]byte(bad), func(v []byte) bool {
			t.Errorf("%q selected %q", bad, v)
			return false
		})
	}
	m := newValueMatcher("42", false)
	for v, want := range map[string]bool{`42`: true, `42.0`: true, `4.2e1`: true, `"42"`: true, `43`: false, `[42]`: false} {
		if got := m.match([]byte(v)); got != want {
			t.Errorf("42 equals %s: got %v, want %v", v, got, want)
		}
	}
	if !bytes.Equal(newValueMatcher("x", true).query, []byte("x")) {
		t.Error("matcher lost its query")
	}
}
