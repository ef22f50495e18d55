package inspect

import (
	"bytes"
	"strings"
)

// jsonDoc is a cursor over a JSON document that checks only what it reads.
type jsonDoc struct {
	b []byte
	i int
}

func (d *jsonDoc) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *jsonDoc) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// str reads a string at d's position and returns its content (between the
// quotes) and whether it holds escapes.
func (d *jsonDoc) str() (content []byte, escaped, ok bool) {
	if d.peek() != '"' {
		return nil, false, false
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			d.i = j + 1
			return d.b[start:j], escaped, true
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

// members walks the object at d's position: for each member it reads the
// name and the ':' and calls fn at the value, which must leave d after the
// value and returns (stop, ok). The walk ends with stop when fn stops it,
// and otherwise reports in ok whether the object was well formed up to
// and including its closing brace (fn's ok false makes it false).
func (d *jsonDoc) members(fn func(key []byte, escaped bool) (stop, ok bool)) (stop, ok bool) {
	d.i++ // '{'
	d.space()
	if d.peek() == '}' {
		d.i++
		return false, true
	}
	for {
		key, escaped, ok := d.str()
		if !ok {
			return false, false
		}
		d.space()
		if d.peek() != ':' {
			return false, false
		}
		d.i++
		d.space()
		if stop, ok := fn(key, escaped); stop || !ok {
			return stop, ok
		}
		d.space()
		switch d.peek() {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			return false, true
		default:
			return false, false
		}
	}
}

// elements walks the array at d's position as members walks an object.
func (d *jsonDoc) elements(fn func() (stop, ok bool)) (stop, ok bool) {
	d.i++ // '['
	d.space()
	if d.peek() == ']' {
		d.i++
		return false, true
	}
	for {
		if stop, ok := fn(); stop || !ok {
			return stop, ok
		}
		d.space()
		switch d.peek() {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			return false, true
		default:
			return false, false
		}
	}
}

// skipValue moves d past the value at its position, reporting whether it
// is well formed (leniently for numbers).
func (d *jsonDoc) skipValue(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	skip := func() (bool, bool) { return false, d.skipValue(depth + 1) }
	switch c := d.peek(); {
	case c == '{':
		_, ok := d.members(func([]byte, bool) (bool, bool) { return skip() })
		return ok
	case c == '[':
		_, ok := d.elements(skip)
		return ok
	case c == '"':
		_, _, ok := d.str()
		return ok
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		for d.i < len(d.b) && strings.IndexByte("+-.eE0123456789", d.b[d.i]) >= 0 {
			d.i++
		}
		return d.i > start
	}
	return false
}

func (d *jsonDoc) literal(word string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		return false
	}
	d.i += len(word)
	return true
}

// Match modes of a JSON path search.
const (
	// MatchEquals selects records whose field equals the query: a string
	// field by its decoded text, a number by its text or numeric value,
	// true/false/null by their literal, an object or array by its JSON
	// text exactly as written.
	MatchEquals = "equals"
	// MatchContains selects records whose field contains the query: a
	// string field's decoded text, or any other value's JSON text.
	MatchContains = "contains"
)
