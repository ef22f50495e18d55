package inspect

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// mapRaw runs the scanner and the map's sink over raw as one fetch
// response, with one bucket an offset of [from, end): the offline twin of
// decodeWith.
func mapRaw(c *codecs, raw []byte, from, end int64, ptrs Pointers, committed bool, aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction) (*PartitionMap, error) {
	m := newMapSink("t", 0, ptrs, from, end, int(end-from))
	s := newScanner(&Inspector{codecs: c}, &partitionRef{}, ptrs, from, end, runs{sink: m, codecs: c})
	notCompacted := false // as decodeWith assumes
	s.compact = &notCompacted
	if _, _, err := s.feed(raw, from, committed, aborted); err != nil {
		return nil, err
	}
	s.gapsTo(s.end, classGapBetween)
	for pid := range s.pending {
		s.sink.resolve(pid, TxnOpen)
	}
	return m.pm, nil
}

// wellFormed reports whether every complete v2 batch of raw decodes whole
// and its records' offset deltas are strictly increasing within the batch
// and as many as its header says: batches a broker can send. The map trusts
// batch headers where ReadLog decodes records, so the two may differ only
// on batches that are not.
func wellFormed(c *codecs, raw []byte) bool {
	for len(raw) > 0 {
		b, rest, complete, err := splitBatch(raw)
		if err != nil {
			return false
		}
		if !complete {
			return true
		}
		raw = rest
		if b.Magic != 2 {
			continue
		}
		src, err := c.Decompress(b.codec(), b.Records)
		if err != nil {
			return false
		}
		r := &recordReader{src: src}
		prev := int32(-1)
		for range b.NumRecords {
			rec, err := r.next()
			if err != nil || rec.OffsetDelta <= prev || int64(rec.OffsetDelta) > b.LastOffset-b.BaseOffset {
				return false
			}
			prev = rec.OffsetDelta
		}
	}
	return true
}

// FuzzMapMatchesWindow checks the partition map against ReadLog's window
// on arbitrary fetch responses: offset by offset, the class the map counts
// is the entry the window builds, whenever the batches are well formed.
func FuzzMapMatchesWindow(f *testing.F) {
	// Hand-built seeds: a kfake cluster running in every fuzz worker (as
	// capturedBatches starts) stalls coverage-guided fuzzing here.
	v := []byte("v")
	const pid = 7
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	holes := buildBatch(10, 6, 0, -1, testRecord{0, nil, v}, testRecord{2, nil, v}, testRecord{6, nil, v})
	plain := buildBatch(17, 1, 0, 3, testRecord{0, nil, v}, testRecord{1, nil, v})
	txn := buildBatch(19, 2, attrTransactional, pid, testRecord{0, nil, v}, testRecord{1, nil, v}, testRecord{2, nil, v})
	thinTxn := buildBatch(22, 3, attrTransactional, pid+1, testRecord{1, nil, v}, testRecord{3, nil, v})
	commit := buildBatch(26, 0, attrTransactional|attrControl, pid, testRecord{0, controlKey(1), []byte{0, 0, 0, 0, 0, 0}})
	abort := buildBatch(27, 0, attrTransactional|attrControl, pid+1, testRecord{0, controlKey(0), []byte{0, 0, 0, 0, 0, 0}})
	all := cat(holes, plain, txn, thinTxn, commit, abort)
	f.Add(all, int64(8), uint16(30), uint16(30), uint16(30), false, int64(-1), int64(-1))
	f.Add(all, int64(10), uint16(15), uint16(20), uint16(9), true, int64(pid+1), int64(22))
	f.Add(all, int64(18), uint16(3), uint16(20), uint16(0), false, int64(-1), int64(-1))
	f.Add(cat(txn, thinTxn), int64(19), uint16(10), uint16(10), uint16(0), false, int64(-1), int64(-1))

	codecs := newCodecs(1 << 20)
	f.Fuzz(func(t *testing.T, raw []byte, from int64, limit, hwSpan, lsoSpan uint16, committed bool, abortPID, abortFirst int64) {
		from &= 1<<40 - 1
		n := 1 + int(limit)%512
		hw := from + int64(hwSpan)
		ptrs := Pointers{LogStartOffset: 0, HighWatermark: hw, LastStableOffset: from + int64(min(lsoSpan, hwSpan))}
		var list []kmsg.FetchResponseTopicPartitionAbortedTransaction
		if committed {
			list = append(list, kmsg.FetchResponseTopicPartitionAbortedTransaction{ProducerID: abortPID, FirstOffset: abortFirst})
		}
		entries, err := decodeWith(codecs, raw, from, n, ptrs, committed, list)
		if err != nil || !wellFormed(codecs, raw) {
			return
		}
		end := min(from+int64(n), hw)
		if from >= end {
			return
		}
		m, err := mapRaw(codecs, raw, from, end, ptrs, committed, list)
		if err != nil {
			t.Fatalf("map failed where ReadLog did not: %v", err)
		}
		want := bucketsOf(m, entries)
		if !reflect.DeepEqual(m.Buckets, want) {
			for k := range want {
				if m.Buckets[k] != want[k] {
					t.Fatalf("offset %d: map %+v, ReadLog %+v", want[k].From, m.Buckets[k], want[k])
				}
			}
		}
	})
}

// FuzzJSONPath parses arbitrary paths and runs them over arbitrary
// documents: no panic, and on valid JSON every value encoding/json finds
// at the path is among those the matcher selects, each valid JSON itself.
func FuzzJSONPath(f *testing.F) {
	for _, seed := range []struct{ path, doc string }{
		{"order.id", `{"order":{"id":"O-1","qty":2}}`},
		{"$.items[1].sku", `{"items":[{"sku":"a"},{"sku":"b"}]}`},
		{`$["a b"]['c']`, `{"a b":{"c":[1,2,{"d":null}]}}`},
		{"$.*", `{"x":1,"x":2,"y":"\u00e9"}`},
		{"[*].a", `[{"a":true},{"b":false},{"a":-1.5e3}]`},
		{"$", `"just a string"`},
		{"a.b", `{"a":{"b":[}}`},
	} {
		f.Add(seed.path, []byte(seed.doc))
	}
	f.Fuzz(func(t *testing.T, path string, doc []byte) {
		p, err := ParseJSONPath(path)
		if err != nil {
			return
		}
		var got [][]byte
		p.each(doc, func(v []byte) bool {
			got = append(got, v)
			return false
		})
		var tree any
		if json.Unmarshal(doc, &tree) != nil || nesting(doc) >= maxJSONDepth {
			return
		}
		canon := map[string]bool{}
		for _, v := range got {
			var x any
			if err := json.Unmarshal(v, &x); err != nil {
				t.Fatalf("selected %q, not valid JSON", v)
			}
			b, _ := json.Marshal(x)
			canon[string(b)] = true
		}
		for _, want := range referenceSelect(tree, p.segs) {
			b, _ := json.Marshal(want)
			if !canon[string(b)] {
				t.Fatalf("path %q in %q: encoding/json finds %s, the matcher selected %q", path, doc, b, got)
			}
		}
	})
}

// nesting is how deeply the arrays and objects of a JSON document nest.
func nesting(doc []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// referenceSelect applies path segments to a document decoded by
// encoding/json.
func referenceSelect(v any, segs []pathSegment) []any {
	if len(segs) == 0 {
		return []any{v}
	}
	seg, rest := segs[0], segs[1:]
	var out []any
	switch x := v.(type) {
	case map[string]any:
		switch seg.kind {
		case segmentName:
			if c, ok := x[seg.name]; ok {
				out = append(out, referenceSelect(c, rest)...)
			}
		case segmentWildcard:
			for _, c := range x {
				out = append(out, referenceSelect(c, rest)...)
			}
		}
	case []any:
		switch seg.kind {
		case segmentIndex:
			if seg.index < len(x) {
				out = append(out, referenceSelect(x[seg.index], rest)...)
			}
		case segmentWildcard:
			for _, c := range x {
				out = append(out, referenceSelect(c, rest)...)
			}
		}
	}
	return out
}
