package inspect

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// Isolation is a consumer's isolation.level, spelled as Kafka spells it.
type Isolation string

const (
	// ReadCommitted consumers receive records below the last stable
	// offset, minus aborted transactions and control records.
	ReadCommitted Isolation = "read_committed"
	// ReadUncommitted consumers receive every data record below the high
	// watermark, aborted or open ones included; only control records are
	// hidden from them.
	ReadUncommitted Isolation = "read_uncommitted"
)

// Valid reports whether iso is one of the two isolation levels.
func (iso Isolation) Valid() bool { return iso == ReadCommitted || iso == ReadUncommitted }

// Window sizes for ReadLog and ReadRecords.
const (
	// DefaultLimit is the number of offsets (ReadLog) or records
	// (ReadRecords) returned when the caller asks for zero or fewer.
	DefaultLimit = 200
	// MaxLimit caps a window so that memory stays bounded per request.
	MaxLimit = 5000
)

// MaxValueBytes is how many bytes of a record key, value or header value
// the log view shows; longer ones are cut there and flagged as truncated,
// so that a window's memory is bounded by its offsets, not its bytes.
const MaxValueBytes = 1024

// Kinds of Entry.
const (
	KindData    = "data"
	KindControl = "control"
	KindGap     = "gap"
)

// Markers of a control Entry: the transaction marker types.
const (
	MarkerCommit = "COMMIT"
	MarkerAbort  = "ABORT"
)

// Transaction outcomes of an Entry.
const (
	// TxnNone is a record written outside any transaction (or a gap).
	TxnNone = "none"
	// TxnOpen is a transactional record whose marker was not found below
	// the high watermark (or within the forward scan's budget).
	TxnOpen = "open"
	// TxnCommitted is a transactional record followed by its producer's
	// COMMIT marker, and a COMMIT marker itself.
	TxnCommitted = "committed"
	// TxnAborted is a transactional record followed by its producer's
	// ABORT marker, and an ABORT marker itself.
	TxnAborted = "aborted"
)

// EncodingBase64 marks a key or value that is not valid UTF-8 and is
// therefore shown as standard base64.
const EncodingBase64 = "base64"

// EncodingNull marks a header whose value is null on the wire.
const EncodingNull = "null"

// Pointers are a partition's three offsets that decide what consumers see:
// records below LogStartOffset are deleted, read_uncommitted consumers read
// up to HighWatermark, read_committed consumers up to LastStableOffset.
type Pointers struct {
	LogStartOffset   int64 `json:"logStartOffset"`
	LastStableOffset int64 `json:"lastStableOffset"`
	HighWatermark    int64 `json:"highWatermark"`
}

// Log is a window of a partition: one Entry per offset in
// [from, min(from+limit, HighWatermark)), with the partition's pointers as
// they were when the window was read.
//
// A window is also bounded by its decoded size (Inspector.AnswerBytes):
// when the next entry would pass that budget the window ends before it,
// Truncated is set and Next is the offset to ask for next.
type Log struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Pointers
	Entries []Entry `json:"entries"`
	// Truncated and Next are set only when the byte budget ended the
	// window before from+limit (and before the high watermark).
	Truncated bool   `json:"truncated,omitempty"`
	Next      *int64 `json:"next,omitempty"`
}

// Header is a record header. Value follows the same text-or-base64 rule as
// record values; a null header value is "" with ValueEncoding "null".
type Header struct {
	// Key is cut at MaxHeaderKeyBytes, with KeyTruncated set.
	Key            string `json:"key"`
	KeyTruncated   bool   `json:"keyTruncated,omitempty"`
	Value          string `json:"value"`
	ValueEncoding  string `json:"valueEncoding,omitempty"`
	ValueTruncated bool   `json:"valueTruncated,omitempty"`
}

// Entry describes one offset of a partition: a data record, a control
// record (a transaction marker) or a gap (an offset no batch holds: below
// the log start, removed by compaction or deleted).
//
// For gaps the producer and batch fields are -1, Compression is "none",
// Timestamp is omitted and Reason says why the offset is empty.
type Entry struct {
	Offset int64 `json:"offset"`
	// Kind is "data", "control" or "gap".
	Kind string `json:"kind"`
	// Reason is set on gaps only: "compacted" (removed by the log
	// cleaner), "beforeLogStart" (deleted: retention or DeleteRecords)
	// or "unknown" (see GapCompacted for the rule).
	Reason string `json:"reason,omitempty"`
	// Deleted, on a gap below the log start, is when the log start
	// offset moved past it and from where to where, as the partition's
	// recorded history saw it (internal/live); nil when no history knows.
	Deleted *LogStartMove `json:"deleted,omitempty"`
	// Marker is "COMMIT" or "ABORT" for a control record. A control
	// record of another type leaves it empty.
	Marker string `json:"marker,omitempty"`
	// Txn is "none", "open", "committed" or "aborted". For a control
	// record it is the marker's own outcome.
	Txn string `json:"txn"`

	ProducerID    int64 `json:"producerId"`
	ProducerEpoch int16 `json:"producerEpoch"`
	// Sequence is the batch's base sequence plus the record's offset
	// delta (wrapping as Kafka does), or -1 when the batch has none.
	Sequence        int32 `json:"sequence"`
	BatchBaseOffset int64 `json:"batchBaseOffset"`
	BatchLastOffset int64 `json:"batchLastOffset"`
	Transactional   bool  `json:"transactional"`
	Control         bool  `json:"control"`
	// Compression is the batch codec: none, gzip, snappy, lz4 or zstd.
	Compression string `json:"compression"`
	// Timestamp is the record's timestamp (the batch's max timestamp when
	// the topic uses LogAppendTime). It is omitted when the record has
	// none (negative, as Kafka's -1) or one past year 9999.
	Timestamp time.Time `json:"timestamp,omitzero"`

	// Key and Value hold the bytes as text when they are valid UTF-8,
	// else as base64 with the matching encoding field set to "base64".
	// A null key or value is JSON null. Each is cut at MaxValueBytes.
	Key            *string  `json:"key"`
	KeyEncoding    string   `json:"keyEncoding,omitempty"`
	KeyTruncated   bool     `json:"keyTruncated,omitempty"`
	Value          *string  `json:"value"`
	ValueEncoding  string   `json:"valueEncoding,omitempty"`
	ValueTruncated bool     `json:"valueTruncated,omitempty"`
	Headers        []Header `json:"headers"`
	// Schema, Decoded and DecodeProblem are set for a value framed by a
	// schema registry (see ValueDecoder): the schema it names, the value
	// decoded as JSON, or why it could not be (the raw bytes stay in
	// Value either way).
	Schema        *SchemaRef       `json:"schema,omitempty"`
	Decoded       json.RawMessage  `json:"decoded,omitempty"`
	DecodeProblem *catalog.Message `json:"decodeProblem,omitempty"`
	// HeadersTruncated is set when the record has more than MaxHeaders
	// headers: Headers holds the first MaxHeaders, and HeaderCount (set
	// only then) how many the record has.
	HeadersTruncated bool `json:"headersTruncated,omitempty"`
	HeaderCount      int  `json:"headerCount,omitempty"`
	// DuplicateOf is the offset of the nearest earlier data record of the
	// same window with the same key and value (neither cut): the copy a
	// retry without idempotence or an application's double send leaves.
	DuplicateOf *int64 `json:"duplicateOf,omitempty"`

	// ReadCommitted and ReadUncommitted say whether a consumer at that
	// isolation level receives this offset, given the pointers of the
	// Log it belongs to.
	ReadCommitted   bool `json:"readCommitted"`
	ReadUncommitted bool `json:"readUncommitted"`
}

// LogStartMove is the log start offset of a partition moving up, From to
// To, at At: the offsets [From, To) were deleted (retention,
// DeleteRecords, or on the embedded broker a compaction of the first
// batches).
type LogStartMove struct {
	At   time.Time `json:"at"`
	From int64     `json:"from"`
	To   int64     `json:"to"`
}

// Record is one record as a consumer received it.
type Record struct {
	Offset         int64   `json:"offset"`
	Key            *string `json:"key"`
	KeyEncoding    string  `json:"keyEncoding,omitempty"`
	KeyTruncated   bool    `json:"keyTruncated,omitempty"`
	Value          *string `json:"value"`
	ValueEncoding  string  `json:"valueEncoding,omitempty"`
	ValueTruncated bool    `json:"valueTruncated,omitempty"`
}

// gapEntry is the Entry of an offset that no batch holds, for reason why.
func gapEntry(offset int64, why string) Entry {
	return Entry{
		Offset:          offset,
		Kind:            KindGap,
		Reason:          why,
		Txn:             TxnNone,
		ProducerID:      -1,
		ProducerEpoch:   -1,
		Sequence:        -1,
		BatchBaseOffset: -1,
		BatchLastOffset: -1,
		Compression:     "none",
		Headers:         []Header{}, // [] in JSON; a zero-length literal does not allocate
	}
}

// encodeBytes renders b for JSON: nil stays nil, valid UTF-8 is text, other
// bytes are base64. Only the first max bytes are kept when max > 0; text is
// cut on a rune boundary.
func encodeBytes(b []byte, max int) (s *string, encoding string, truncated bool) {
	if b == nil {
		return nil, "", false
	}
	if utf8.Valid(b) {
		if max > 0 && len(b) > max {
			cut := max
			for cut > 0 && !utf8.RuneStart(b[cut]) {
				cut--
			}
			b, truncated = b[:cut], true
		}
		text := string(b)
		return &text, "", truncated
	}
	if max > 0 && len(b) > max {
		b, truncated = b[:max], true
	}
	text := base64.StdEncoding.EncodeToString(b)
	return &text, EncodingBase64, truncated
}

// clampLimit applies DefaultLimit and MaxLimit.
func clampLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultLimit
	case limit > MaxLimit:
		return MaxLimit
	}
	return limit
}

// SameRecord reports whether a and b are data records with the same key
// and value, byte for byte (neither of them cut at MaxValueBytes).
func SameRecord(a, b Entry) bool {
	if a.Kind != KindData || b.Kind != KindData || a.KeyTruncated || b.KeyTruncated || a.ValueTruncated || b.ValueTruncated {
		return false
	}
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.KeyEncoding == b.KeyEncoding && a.ValueEncoding == b.ValueEncoding && eq(a.Key, b.Key) && eq(a.Value, b.Value)
}

// MarkDuplicates sets DuplicateOf on each data record of entries (in
// offset order) that has an earlier twin among them.
func MarkDuplicates(entries []Entry) {
	last := map[string]int64{} // a record's key and value -> its latest offset
	for i := range entries {
		e := &entries[i]
		if e.Kind != KindData || e.KeyTruncated || e.ValueTruncated {
			continue
		}
		id := recordID(*e)
		if o, ok := last[id]; ok {
			e.DuplicateOf = &o
		}
		last[id] = e.Offset
	}
}

// recordID is a data record's key and value as one comparable string.
func recordID(e Entry) string {
	part := func(enc string, v *string) string {
		if v == nil {
			return "\x00"
		}
		return enc + "\x01" + *v
	}
	k, v := part(e.KeyEncoding, e.Key), part(e.ValueEncoding, e.Value)
	return strconv.Itoa(len(k)) + ":" + k + v
}
