package inspect

import (
	"unicode/utf8"
)

// A window of N offsets can hold gigabytes once decoded: a record of a few
// kilobytes on the wire (zstd) can carry millions of empty headers, each
// of which would cost an Entry ~60 bytes of JSON and ~100 of memory. So
// what one entry shows is capped (values at MaxValueBytes, header keys at
// MaxHeaderKeyBytes, headers at MaxHeaders), and what one answer holds is
// capped by its decoded size (Inspector.AnswerBytes), as Kafka's
// fetch.max.bytes caps a fetch: a read stops at the first entry that would
// pass the budget — never before the first one — and says where to go on.
const (
	// MaxHeaders is how many headers of a record an entry shows; the
	// rest are left out, with Entry.HeadersTruncated set and the true
	// number in Entry.HeaderCount. Search still looks at every header.
	MaxHeaders = 64
	// MaxHeaderKeyBytes is how many bytes of a header key an entry
	// shows; a longer key is cut (on a UTF-8 rune boundary) and flagged
	// with Header.KeyTruncated.
	MaxHeaderKeyBytes = 256
	// DefaultAnswerBytes is the default of Inspector.AnswerBytes: a
	// window of 5,000 records whose key and value take up to 1,000 bytes
	// (MaxLimit of ordinary records) fits, while a hostile one costs at
	// most this. Eight reads at once (the web's default) hold ~100 MiB.
	DefaultAnswerBytes = 8 << 20
)

// Fixed parts of EncodedSize: an entry's JSON without its key, value and
// headers (every field at its widest: 19-digit offsets, a timestamp, the
// flags; a gap's reason and deleted fit well inside it), and a header's
// without its key and value.
const (
	entryOverhead  = 640
	headerOverhead = 96
	recordOverhead = 120
	// schemaOverhead is a schema reference's or a decoding problem's
	// JSON without its subject or arguments.
	schemaOverhead = 128
)

// EncodedSize is an upper bound of the bytes e takes as JSON (as
// encoding/json writes it): what the byte budgets of answers, websocket
// messages and history steps count. It is exact to a few hundred bytes for
// an entry: strings are counted with JSON's escapes.
func EncodedSize(e *Entry) int {
	n := entryOverhead + jsonSize(e.Key) + jsonSize(e.Value) + len(e.Decoded)
	if e.Schema != nil {
		n += schemaOverhead + jsonStringSize(e.Schema.Subject)
	}
	if e.DecodeProblem != nil {
		n += schemaOverhead
		for _, v := range e.DecodeProblem.Args {
			n += jsonStringSize(v) + 32
		}
	}
	for i := range e.Headers {
		h := &e.Headers[i]
		n += headerOverhead + jsonStringSize(h.Key) + jsonStringSize(h.Value)
	}
	return n
}

// recordSize is EncodedSize for a Record.
func recordSize(r *Record) int {
	return recordOverhead + jsonSize(r.Key) + jsonSize(r.Value)
}

func jsonSize(s *string) int {
	if s == nil {
		return 4 // null
	}
	return jsonStringSize(*s)
}

// jsonStringSize is the length of s as a JSON string, quotes included,
// with encoding/json's escapes: \n \r \t \" \\ take two bytes, other
// control bytes, <, >, &, U+2028, U+2029 and each byte of invalid UTF-8
// (written \ufffd) six.
func jsonStringSize(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5
		case r == '\u2028' || r == '\u2029':
			n += 3
		}
		i += size
	}
	return n
}

// cutText is b as a string of at most max bytes, cut on a rune boundary
// when b is valid UTF-8, and whether it was cut.
func cutText(b []byte, max int) (string, bool) {
	if len(b) <= max {
		return string(b), false
	}
	cut := max
	if utf8.Valid(b) {
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
	}
	return string(b[:cut]), true
}

// answerBudget counts the decoded bytes an answer holds against its
// budget. The first item is always taken, however large (each is bounded
// by the caps above), so that a read always makes progress.
type answerBudget struct {
	max, used int64
	items     int
}

func newAnswerBudget(max int64) answerBudget {
	if max <= 0 {
		max = DefaultAnswerBytes
	}
	return answerBudget{max: max}
}

// take counts an item of size bytes, unless it would pass the budget
// after at least one item was taken: then it reports false.
func (b *answerBudget) take(size int) bool {
	if b.items > 0 && b.used+int64(size) > b.max {
		return false
	}
	b.used += int64(size)
	b.items++
	return true
}
