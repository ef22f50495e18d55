package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Bounds of a JSON path.
const (
	// MaxJSONPathBytes is the longest path ParseJSONPath accepts.
	MaxJSONPathBytes = 512
	// MaxJSONPathSegments is the most segments a path may have.
	MaxJSONPathSegments = 32
	// maxJSONDepth bounds how deeply nested a value the matcher walks;
	// deeper documents do not match (rather than exhaust the stack).
	maxJSONDepth = 256
)

// JSONPath is a parsed JSON field path: a sequence of object member
// names, array indexes and wildcards that selects values inside a JSON
// document. Build one with ParseJSONPath.
type JSONPath struct {
	text string
	segs []pathSegment
}

type segmentKind uint8

const (
	segmentName segmentKind = iota
	segmentIndex
	segmentWildcard
)

type pathSegment struct {
	kind  segmentKind
	name  string
	index int
}

// String returns the path as it was written.
func (p *JSONPath) String() string { return p.text }

// ParseJSONPath parses a field path in this syntax, a small subset of
// JSONPath (RFC 9535) without filters or slices:
//
//	path    = [ "$" ] [ name ] { segment }
//	segment = "." name | ".*" | "[" index "]" | "[*]" | "[" quoted "]"
//
// A name is one or more characters other than '.', '[', ']', quotes and
// white space; index is a decimal array index (0 is the first element);
// quoted is a JSON string in double quotes, or any text without a single
// quote in single quotes, for member names the plain form cannot spell.
// The leading "$" (the whole document) is optional: "order.id",
// "$.order.id" and `$["order"]['id']` are the same path. "*" selects every
// member of an object or element of an array. "$" alone selects the whole
// document.
//
// It fails with ErrInvalidQuery on an empty path, one longer than
// MaxJSONPathBytes or with more than MaxJSONPathSegments segments, and on
// anything the grammar does not allow.
func ParseJSONPath(text string) (*JSONPath, error) {
	fail := func(at int, format string, args ...any) (*JSONPath, error) {
		return nil, problem.Wrap(ErrInvalidQuery, problem.Invalid, "error.jsonPath", "path", truncate(text, 40), "at", strconv.Itoa(at), "detail", fmt.Sprintf(format, args...))
	}
	switch {
	case text == "":
		return fail(0, "empty path")
	case len(text) > MaxJSONPathBytes:
		return fail(MaxJSONPathBytes, "longer than %d bytes", MaxJSONPathBytes)
	}
	p := &JSONPath{text: text}
	i := 0
	if text[0] == '$' {
		i = 1
	} else if text[0] != '[' {
		// A path may start with a bare name: "order.id".
		n := nameLen(text)
		if n == 0 {
			return fail(0, "a path starts with $, a name or [")
		}
		p.segs = append(p.segs, nameSegment(text[:n]))
		i = n
	}
	for i < len(text) {
		if len(p.segs) == MaxJSONPathSegments {
			return fail(i, "more than %d segments", MaxJSONPathSegments)
		}
		switch text[i] {
		case '.':
			n := nameLen(text[i+1:])
			if n == 0 {
				return fail(i+1, "a name must follow '.'")
			}
			p.segs = append(p.segs, nameSegment(text[i+1:i+1+n]))
			i += 1 + n
		case '[':
			seg, n, err := bracketSegment(text[i:])
			if err != "" {
				return fail(i, "%s", err)
			}
			p.segs = append(p.segs, seg)
			i += n
		default:
			return fail(i, "unexpected %q; a segment starts with '.' or '['", text[i])
		}
	}
	return p, nil
}

// nameLen is the length of the name at the start of s.
func nameLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' || c == '[' || c == ']' || c == '"' || c == '\'' || c <= ' ' || c == 0x7f:
			return i
		}
	}
	return len(s)
}

func nameSegment(name string) pathSegment {
	if name == "*" {
		return pathSegment{kind: segmentWildcard}
	}
	return pathSegment{kind: segmentName, name: name}
}

// bracketSegment parses "[...]" at the start of s, returning the segment,
// its length, or why it does not parse.
func bracketSegment(s string) (pathSegment, int, string) {
	end := 0
	switch {
	case len(s) < 3:
		return pathSegment{}, 0, "unterminated '['"
	case s[1] == '*':
		end = 2
		if s[end] != ']' {
			return pathSegment{}, 0, "expected ']' after '[*'"
		}
		return pathSegment{kind: segmentWildcard}, end + 1, ""
	case s[1] >= '0' && s[1] <= '9':
		end = 1
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		if end-1 > 9 {
			return pathSegment{}, 0, "array index too large"
		}
		if end == len(s) || s[end] != ']' {
			return pathSegment{}, 0, "expected ']' after an array index"
		}
		if end > 2 && s[1] == '0' {
			return pathSegment{}, 0, "an array index has no leading zeros"
		}
		n, _ := strconv.Atoi(s[1:end])
		return pathSegment{kind: segmentIndex, index: n}, end + 1, ""
	case s[1] == '\'':
		q := strings.IndexByte(s[2:], '\'')
		if q < 0 {
			return pathSegment{}, 0, "unterminated quoted name"
		}
		end = 2 + q + 1
		if end == len(s) || s[end] != ']' {
			return pathSegment{}, 0, "expected ']' after a quoted name"
		}
		return pathSegment{kind: segmentName, name: s[2 : 2+q]}, end + 1, ""
	case s[1] == '"':
		q := 2
		for q < len(s) && s[q] != '"' {
			if s[q] == '\\' {
				q++
			}
			q++
		}
		if q >= len(s) {
			return pathSegment{}, 0, "unterminated quoted name"
		}
		var name string
		if err := json.Unmarshal([]byte(s[1:q+1]), &name); err != nil {
			return pathSegment{}, 0, "quoted name is not a JSON string"
		}
		end = q + 1
		if end == len(s) || s[end] != ']' {
			return pathSegment{}, 0, "expected ']' after a quoted name"
		}
		return pathSegment{kind: segmentName, name: name}, end + 1, ""
	}
	return pathSegment{}, 0, "expected an index, '*' or a quoted name after '['"
}

// each calls fn with the raw bytes of every value the path selects in doc,
// in document order, until fn returns true; it reports whether fn did. It
// reads doc only as far as it must: doc need not be valid JSON past the
// values found, and a malformed document simply selects nothing more.
// Duplicate member names are all followed.
func (p *JSONPath) each(doc []byte, fn func(v []byte) bool) bool {
	d := jsonDoc{b: doc}
	d.space()
	return p.walk(&d, 0, 0, fn)
}

// walk applies segments i.. to the value at d's position.
func (p *JSONPath) walk(d *jsonDoc, i, depth int, fn func(v []byte) bool) bool {
	if i == len(p.segs) {
		start := d.i
		if !d.skipValue(depth) {
			return false
		}
		return fn(d.b[start:d.i])
	}
	if depth >= maxJSONDepth {
		return false
	}
	seg := p.segs[i]
	switch d.peek() {
	case '{':
		if seg.kind == segmentIndex {
			return false
		}
		stop, _ := d.members(func(key []byte, escaped bool) (bool, bool) {
			if seg.kind == segmentName && !keyIs(key, escaped, seg.name) {
				return false, d.skipValue(depth + 1)
			}
			at := d.i
			if p.walk(d, i+1, depth+1, fn) {
				return true, true
			}
			d.i = at
			return false, d.skipValue(depth + 1)
		})
		return stop
	case '[':
		if seg.kind == segmentName {
			return false
		}
		n := 0
		stop, _ := d.elements(func() (bool, bool) {
			n++
			if seg.kind == segmentIndex && n-1 != seg.index {
				return false, d.skipValue(depth + 1)
			}
			at := d.i
			if p.walk(d, i+1, depth+1, fn) {
				return true, true
			}
			if seg.kind == segmentIndex {
				return false, false // the one element did not match: done
			}
			d.i = at
			return false, d.skipValue(depth + 1)
		})
		return stop
	}
	return false
}

// keyIs compares a member name as it lies in the document (escaped or
// not) with name.
func keyIs(raw []byte, escaped bool, name string) bool {
	if !escaped {
		return string(raw) == name
	}
	s, ok := unescapeJSON(raw)
	return ok && s == name
}

// unescapeJSON decodes the content of a JSON string that holds escapes.
func unescapeJSON(raw []byte) (string, bool) {
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", false
	}
	return s, true
}

// valueMatcher compares the values a JSON path selects with a query.
type valueMatcher struct {
	query    []byte
	contains bool
	number   float64
	isNumber bool
}

func newValueMatcher(query string, contains bool) valueMatcher {
	m := valueMatcher{query: []byte(query), contains: contains}
	if f, err := strconv.ParseFloat(query, 64); err == nil && json.Valid(m.query) {
		m.number, m.isNumber = f, true
	}
	return m
}

// match compares one selected value (raw JSON) with the query.
func (m *valueMatcher) match(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	switch c := v[0]; {
	case c == '"':
		text := v[1 : len(v)-1]
		if bytes.IndexByte(text, '\\') >= 0 {
			s, ok := unescapeJSON(text)
			if !ok {
				return false
			}
			text = []byte(s)
		}
		if m.contains {
			return bytes.Contains(text, m.query)
		}
		return bytes.Equal(text, m.query)
	case m.contains:
		return bytes.Contains(v, m.query)
	case bytes.Equal(v, m.query):
		return true
	case m.isNumber && (c == '-' || c >= '0' && c <= '9'):
		f, err := strconv.ParseFloat(string(v), 64)
		return err == nil && f == m.number
	}
	return false
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
