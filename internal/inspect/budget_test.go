package inspect

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// encodeRecord is one v2 record with headers empty headers, as a batch
// holds it.
func encodeRecord(key, value []byte, headers int) []byte {
	var body []byte
	body = append(body, 0)              // attributes
	body = binary.AppendVarint(body, 0) // timestamp delta
	body = binary.AppendVarint(body, 0) // offset delta
	body = binary.AppendVarint(body, int64(len(key)))
	body = append(body, key...)
	body = binary.AppendVarint(body, int64(len(value)))
	body = append(body, value...)
	body = binary.AppendVarint(body, int64(headers))
	for range headers {
		body = append(body, 0, 0) // key "", value ""
	}
	return append(binary.AppendVarint(nil, int64(len(body))), body...)
}

func TestRecordReaderKeepsAtMostMaxHeaders(t *testing.T) {
	t.Parallel()
	const count = 200_000
	r := &recordReader{src: encodeRecord([]byte("k"), []byte("v"), count)}
	rec, err := r.next()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cap(rec.Headers), MaxHeaders; got > want {
		t.Errorf("decoding held %d headers, want at most %d", got, want)
	}
	if rec.HeaderCount != count {
		t.Errorf("HeaderCount %d, want %d", rec.HeaderCount, count)
	}
	seen := 0
	rec.eachHeader(func(k, v []byte) bool { seen++; return true })
	if seen != count {
		t.Errorf("eachHeader saw %d headers, want %d", seen, count)
	}
}

func TestDropHeaders(t *testing.T) {
	t.Parallel()
	few := encodeRecord([]byte("a"), []byte("1"), 3)
	if got := dropHeaders(few); &got[0] != &few[0] {
		t.Error("records with few headers were rewritten")
	}
	raw := append(encodeRecord([]byte("a"), []byte("1"), 3), encodeRecord([]byte("b"), []byte("2"), 100_000)...)
	out := dropHeaders(raw)
	if len(out) > 100 {
		t.Errorf("%d bytes after dropping the headers of two tiny records", len(out))
	}
	r := &recordReader{src: out}
	for _, want := range []string{"a", "b"} {
		rec, err := r.next()
		if err != nil {
			t.Fatal(err)
		}
		if string(rec.Key) != want || rec.HeaderCount != 0 {
			t.Errorf("record %q with %d headers, want %q with none", rec.Key, rec.HeaderCount, want)
		}
	}
}

func TestEncodedSizeBoundsJSON(t *testing.T) {
	t.Parallel()
	text := func(s string) *string { return &s }
	tests := []struct {
		name string
		e    Entry
	}{
		{"gap", gapEntry(1<<60, GapBeforeLogStart)},
		{"deleted gap", func() Entry {
			e := gapEntry(3, GapBeforeLogStart)
			e.Deleted = &LogStartMove{At: time.Date(2026, 12, 1, 22, 0, 0, 123456789, time.UTC), From: 0, To: 4}
			return e
		}()},
		{"compacted gap", gapEntry(7, GapCompacted)},
		{"plain", Entry{Offset: 42, Kind: KindData, Txn: TxnNone, Key: text("order-1"), Value: text(`{"id":"O-1"}`), Headers: []Header{}}},
		{"escapes", Entry{Offset: 1, Kind: KindData, Key: text(strings.Repeat("\x00<>&\"\\\n", 100)), Value: text(strings.Repeat("\u2028é", 200)),
			Headers: []Header{{Key: "\xff\xfe bad utf-8", Value: "\x01\x02"}, {Key: "k", Value: "", ValueEncoding: EncodingNull}}}},
		{"flags", Entry{Offset: -1, ProducerID: -9223372036854775808, ProducerEpoch: -32768, Sequence: -2147483648, BatchBaseOffset: 1<<63 - 1, BatchLastOffset: 1<<63 - 1,
			Kind: KindControl, Marker: MarkerCommit, Txn: TxnCommitted, Compression: "snappy", KeyEncoding: EncodingBase64, KeyTruncated: true, ValueEncoding: EncodingBase64,
			ValueTruncated: true, HeadersTruncated: true, HeaderCount: 1 << 30, DuplicateOf: new(int64), ReadCommitted: true, ReadUncommitted: true, Transactional: true, Control: true,
			Headers: []Header{{Key: "k", KeyTruncated: true, Value: "v", ValueEncoding: EncodingBase64, ValueTruncated: true}}}},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.e)
		if err != nil {
			t.Fatal(err)
		}
		if got := EncodedSize(&tt.e); got < len(b) || got > len(b)+600 {
			t.Errorf("%s: EncodedSize %d for %d bytes of JSON", tt.name, got, len(b))
		}
	}
}

// TestHeadersCapped writes a record with more headers than an entry shows
// and a header key longer than it shows: the entry keeps the first
// MaxHeaders, says how many there are, and cuts the key; Search still
// finds a header past the first MaxHeaders.
func TestHeadersCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var headers []kgo.RecordHeader
	headers = append(headers, kgo.RecordHeader{Key: strings.Repeat("k", 1000), Value: []byte("first")})
	for i := range 999 {
		headers = append(headers, kgo.RecordHeader{Key: "h" + strconv.Itoa(i), Value: []byte("v")})
	}
	headers[999].Value = []byte("the-last-header")
	p := e.producer("plain", kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	if err := p.ProduceSync(testCtx(t), &kgo.Record{Value: []byte("x"), Headers: headers}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	log := e.readAll()
	if len(log.Entries) != 1 {
		t.Fatalf("%d entries", len(log.Entries))
	}
	got := log.Entries[0]
	if len(got.Headers) != MaxHeaders || !got.HeadersTruncated || got.HeaderCount != 1000 {
		t.Errorf("%d headers shown, truncated %v, count %d; want %d, true, 1000", len(got.Headers), got.HeadersTruncated, got.HeaderCount, MaxHeaders)
	}
	if h := got.Headers[0]; len(h.Key) != MaxHeaderKeyBytes || !h.KeyTruncated || h.Value != "first" {
		t.Errorf("header 0: key of %d bytes, truncated %v, value %q", len(h.Key), h.KeyTruncated, h.Value)
	}
	res, err := e.ins.Search(testCtx(t), testTopic, 0, SearchRequest{Query: "the-last-header", In: SearchHeader, From: -1, To: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 1 {
		t.Errorf("search in headers found %d records, want the one whose 1000th header matches", len(res.Matches))
	}
}

// TestAnswerBudget reads records of 1 KiB values with an answer budget of
// a few of them: ReadLog, Search and ReadRecordsPage stop at the budget,
// say so and where to go on, and going on from there reads the rest.
func TestAnswerBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	value := []byte(strings.Repeat("v", 1000))
	var recs []*kgo.Record
	for i := range 20 {
		recs = append(recs, &kgo.Record{Key: []byte("k" + strconv.Itoa(i)), Value: value})
	}
	if err := e.producer("plain").ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	e.ins.AnswerBytes = 5 * 1500 // about five entries
	ctx := testCtx(t)

	var all []int64
	for from := int64(0); from < 20; {
		l, err := e.ins.ReadLog(ctx, testTopic, 0, from, 100)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(l.Entries); n == 0 || n > 5 {
			t.Fatalf("a window of %d entries from %d, want 1 to 5", n, from)
		}
		size := 0
		for i := range l.Entries {
			all = append(all, l.Entries[i].Offset)
			size += EncodedSize(&l.Entries[i])
		}
		if size > int(e.ins.AnswerBytes) {
			t.Errorf("a window of %d bytes, over the budget of %d", size, e.ins.AnswerBytes)
		}
		last := l.Entries[len(l.Entries)-1].Offset
		if last < 19 && (!l.Truncated || l.Next == nil || *l.Next != last+1) {
			t.Fatalf("window from %d ends at %d: truncated %v, next %v; want true, %d", from, last, l.Truncated, l.Next, last+1)
		}
		from = last + 1
	}
	if len(all) != 20 || all[19] != 19 {
		t.Errorf("windows read offsets %v, want 0..19", all)
	}

	res, err := e.ins.Search(ctx, testTopic, 0, SearchRequest{Query: "vvv", In: SearchValue, From: -1, To: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Matches); n == 0 || n > 5 || !res.Truncated || res.Next == nil || *res.Next != res.Matches[n-1].Offset+1 {
		t.Errorf("search: %d matches, truncated %v, next %v", n, res.Truncated, res.Next)
	}

	page, err := e.ins.ReadRecordsPage(ctx, testTopic, 0, ReadUncommitted, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(page.Records); n == 0 || n >= 20 || !page.Truncated || page.Next == nil || *page.Next != page.Records[n-1].Offset+1 {
		t.Errorf("records: %d, truncated %v, next %v", n, page.Truncated, page.Next)
	}
}
