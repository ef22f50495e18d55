package inspect

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Where Search looks.
const (
	SearchKey    = "key"
	SearchValue  = "value"
	SearchHeader = "header" // a header's name or value
)

// Bounds of a search.
const (
	// DefaultSearchLimit is the number of matches returned when the
	// request asks for zero or fewer.
	DefaultSearchLimit = 50
	// MaxSearchLimit caps the matches of one call.
	MaxSearchLimit = 500
	// MaxQueryBytes is the longest query Search accepts.
	MaxQueryBytes = 4 << 10
	// DefaultSearchBytes is how many record-batch bytes one call reads
	// when the request does not say: the server's cost per request.
	DefaultSearchBytes = 64 << 20
	// MaxSearchBytes caps what a request may ask for.
	MaxSearchBytes = 256 << 20
)

// SearchRequest is a search over part of a partition.
type SearchRequest struct {
	// Query is the text to find (compared byte for byte, case
	// sensitive), or with Path the value the field must equal or contain.
	Query string
	// In is where to look: SearchKey, SearchValue, SearchHeader (a
	// header's name or value), or "" for all three.
	In string
	// Path, when set, is a JSON field path (see ParseJSONPath) into the
	// record value, which is then read as JSON; In must be "" or
	// SearchValue. Records whose value is not JSON do not match.
	Path string
	// Match is MatchEquals (the default) or MatchContains, for Path only.
	Match string
	// From and To bound the search as in MapRequest.
	From, To int64
	// Limit is the most matches returned (DefaultSearchLimit when 0 or
	// less, at most MaxSearchLimit).
	Limit int
	// MaxBytes caps the record-batch bytes read (0: DefaultSearchBytes;
	// at most MaxSearchBytes).
	MaxBytes int64
	// Progress, when set, is told how far the search got, at most every
	// 100 ms, on the searching goroutine.
	Progress func(SearchProgress)
}

// SearchProgress is how far a running search got.
type SearchProgress struct {
	ScannedTo int64 `json:"scannedTo"`
	Matches   int   `json:"matches"`
}

// SearchResult is what one Search call found.
type SearchResult struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Pointers
	// Matches are the matching records in offset order, each as ReadLog
	// reports it (outcome and what each isolation level delivers given
	// Pointers).
	Matches []Entry `json:"matches"`
	// ScannedFrom and ScannedTo are the offsets searched.
	ScannedFrom int64 `json:"scannedFrom"`
	ScannedTo   int64 `json:"scannedTo"`
	// Next is where to go on (the From of the next request): set when
	// the limit or the byte budget ended the call before the range did,
	// null when the range is done.
	Next *int64 `json:"next"`
	// Truncated is set when it was the answer's byte budget
	// (Inspector.AnswerBytes of matches) that ended the call.
	Truncated bool `json:"truncated,omitempty"`
}

// Search finds the records of [req.From, req.To) whose key, value or
// headers contain req.Query, or whose JSON value has the field req.Path
// equal to (or containing) it, and returns them as ReadLog entries: their
// transaction outcome is resolved as ReadLog resolves it (markers,
// aborted-transaction lists, DescribeProducers, the forward scan bounded by
// ScanBudget), so what a read_committed or read_uncommitted consumer would
// deliver is right.
//
// Every record of the range is decompressed and decoded, one batch at a
// time; control records never match. A call stops at req.Limit matches or
// after req.MaxBytes of record batches, whichever comes first, and says
// where to go on (Next), or when its matches would pass AnswerBytes of
// JSON (Truncated, Next at the match left out). Cost: one metadata
// request, three ListOffsets, the fetches, and at most one
// DescribeProducers and ScanBudget bytes to resolve open matches. Memory: one fetch, one decompressed batch and the
// matches (values truncated at MaxValueBytes). It honours ctx.
//
// A query that cannot run (empty, longer than MaxQueryBytes, an unknown In
// or Match, a JSON path that does not parse or used with In key or header)
// fails with ErrInvalidQuery; From after To with ErrInvalidRange. A range at
// or past the high watermark is empty: no matches, Next null.
func (i *Inspector) Search(ctx context.Context, topic string, partition int32, req SearchRequest) (*SearchResult, error) {
	match, err := newRecordMatcher(req)
	if err != nil {
		return nil, fmt.Errorf("inspect: search %s/%d: %w", topic, partition, err)
	}
	match.values = i.Values
	limit := bounded(req.Limit, DefaultSearchLimit, MaxSearchLimit)
	budget := bounded(req.MaxBytes, DefaultSearchBytes, MaxSearchBytes)
	ref, ptrs, from, to, err := i.locateRange(ctx, topic, partition, req.From, req.To)
	if err != nil {
		return nil, err
	}
	sink := &searchSink{match: match, limit: limit, codecs: i.codecs, values: i.Values, matches: []Entry{}, open: map[int64][]int{}, budget: newAnswerBudget(i.AnswerBytes)}
	s := newScanner(i, &ref, ptrs, from, to, sink)
	sink.s, s.maxBytes = s, budget
	if req.Progress != nil {
		var last time.Time // the first fetch reports at once
		s.progress = func() {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				req.Progress(SearchProgress{ScannedTo: min(s.next, s.end), Matches: len(sink.matches)})
			}
		}
	}
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	res := &SearchResult{
		Topic: topic, Partition: partition, Pointers: ptrs,
		Matches:     sink.matches,
		ScannedFrom: from, ScannedTo: s.end,
	}
	for k := range res.Matches {
		setDelivery(&res.Matches[k], ptrs)
	}
	if s.end < to {
		res.Next = &res.ScannedTo
		res.Truncated = sink.cut
	}
	return res, nil
}

// recordMatcher decides whether a record matches a search.
type recordMatcher struct {
	query               []byte
	key, value, headers bool
	path                *JSONPath
	field               valueMatcher
	// values, when set, decodes values framed by a schema registry: a
	// JSON path and a value search then look into the decoded value too.
	values ValueDecoder
}

func newRecordMatcher(req SearchRequest) (*recordMatcher, error) {
	switch {
	case req.Query == "":
		return nil, problem.Wrap(ErrInvalidQuery, problem.Invalid, "error.queryEmpty")
	case len(req.Query) > MaxQueryBytes:
		return nil, problem.Wrap(ErrInvalidQuery, problem.TooLarge, "error.queryTooLong", "size", strconv.Itoa(len(req.Query)), "max", strconv.Itoa(MaxQueryBytes))
	}
	m := &recordMatcher{query: []byte(req.Query)}
	switch req.In {
	case "":
		m.key, m.value, m.headers = true, true, true
	case SearchKey:
		m.key = true
	case SearchValue:
		m.value = true
	case SearchHeader:
		m.headers = true
	default:
		return nil, problem.Wrap(ErrInvalidQuery, problem.Invalid, "error.searchIn", "in", string(req.In))
	}
	if req.Path == "" {
		if req.Match != "" && req.Match != MatchContains {
			return nil, problem.Wrap(ErrInvalidQuery, problem.Invalid, "error.matchNeedsPath", "match", string(req.Match))
		}
		return m, nil
	}
	if req.In != "" && req.In != SearchValue {
		return nil, problem.Wrap(ErrInvalidQuery, problem.Invalid, "error.pathOnlyValue", "in", string(req.In))
	}
	var err error
	if m.path, err = ParseJSONPath(req.Path); err != nil {
		return nil, err
	}
	switch req.Match {
	case "", MatchEquals:
		m.field = newValueMatcher(req.Query, false)
	case MatchContains:
		m.field = newValueMatcher(req.Query, true)
	default:
		return nil, problem.Wrap(ErrInvalidQuery, problem.Invalid, "error.matchUnknown", "match", string(req.Match))
	}
	return m, nil
}

func (m *recordMatcher) matches(rec *rawRecord) bool {
	if m.path != nil {
		if decoded := m.decoded(rec.Value); decoded != nil {
			return m.path.each(decoded, m.field.match)
		}
		return rec.Value != nil && m.path.each(rec.Value, m.field.match)
	}
	if m.key && bytes.Contains(rec.Key, m.query) || m.value && bytes.Contains(rec.Value, m.query) {
		return true
	}
	if m.value && bytes.Contains(m.decoded(rec.Value), m.query) {
		return true
	}
	found := false
	if m.headers {
		rec.eachHeader(func(k, v []byte) bool {
			found = bytes.Contains(k, m.query) || bytes.Contains(v, m.query)
			return !found
		})
	}
	return found
}

// decoded is value decoded as JSON with its schema, nil when it is not
// framed by a schema registry or does not decode.
func (m *recordMatcher) decoded(value []byte) []byte {
	if m.values == nil || len(value) < 5 || value[0] != 0 {
		return nil
	}
	d, ok := m.values.DecodeValue(value)
	if !ok {
		return nil
	}
	return d.Value
}

// searchSink decodes the data batches of a scan and keeps the records that
// match, as entries.
type searchSink struct {
	s       *scanner
	match   *recordMatcher
	limit   int
	codecs  *codecs
	values  ValueDecoder
	matches []Entry
	open    map[int64][]int // producer id -> indexes of its open matches
	budget  answerBudget    // the matches' decoded bytes
	cut     bool            // the budget ended the range
}

func (*searchSink) gap(int64, int64, class)          {}
func (*searchSink) control(*rawBatch, int64, string) {}

func (k *searchSink) resolve(pid int64, txn string) {
	for _, idx := range k.open[pid] {
		k.matches[idx].Txn = txn
	}
	delete(k.open, pid)
}

func (k *searchSink) data(b *rawBatch, lo, hi int64, txn string) (first, last int64, err error) {
	first, last = -1, -1
	err = recordsIn(k.codecs, b, nil, lo, hi, func(o int64, rec *rawRecord) bool {
		if !k.match.matches(rec) {
			if first < 0 {
				first = o
			}
			last = o
			return true
		}
		e := recordEntry(b, rec, o, txn)
		decodeValue(k.values, &e, rec.Value)
		if !k.budget.take(EncodedSize(&e)) {
			// The answer is full: end the range before this match.
			k.cut = true
			k.s.stopAt(o)
			return false
		}
		if first < 0 {
			first = o
		}
		last = o
		k.matches = append(k.matches, e)
		if txn == TxnOpen {
			k.open[b.ProducerID] = append(k.open[b.ProducerID], len(k.matches)-1)
		}
		if len(k.matches) == k.limit {
			k.s.stopAt(o + 1)
			return false
		}
		return true
	})
	if err != nil {
		return -1, -1, err
	}
	return first, last, nil
}
