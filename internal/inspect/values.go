package inspect

import (
	"encoding/json"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// Values framed by a schema registry: Confluent's wire format puts a magic
// byte 0 and a 4-byte schema id (big-endian) before the serialized value
// (and, for Protobuf, the message indexes). The Inspector hands such a
// value to its ValueDecoder, when it has one, and the entry carries the
// schema and the value decoded as JSON beside the raw bytes, which stay
// as they are (text, else base64) whatever the decoding did.

// ValueDecoder decodes Confluent-framed record values; internal/schemareg
// implements it over a Schema Registry. It must be safe for concurrent
// use, answer from its cache for a schema it has seen, and bound what it
// waits for a registry (a read waits on it).
type ValueDecoder interface {
	// DecodeValue decodes value (magic byte 0, schema id, payload). ok
	// is false when value is not framed so; otherwise the answer names
	// the schema and holds the value as JSON, or the problem that kept
	// it raw (an unknown id, a registry that is down, a bad frame).
	DecodeValue(value []byte) (d Decoded, ok bool)
}

// SchemaRef names the schema a value was written with.
type SchemaRef struct {
	ID      int    `json:"id"`
	Subject string `json:"subject,omitempty"`
	Version int    `json:"version,omitempty"`
	// Type is AVRO, PROTOBUF or JSON, as the registry says.
	Type string `json:"type,omitempty"`
}

// Decoded is what a ValueDecoder made of a framed value: Value as JSON,
// and/or Problem (a catalogue sentence) saying why the bytes stay raw, or
// why a decoded value does not meet its schema.
type Decoded struct {
	Schema  SchemaRef
	Value   json.RawMessage
	Problem *catalog.Message
}

// MaxDecodedBytes caps a decoded value's JSON in an entry: a larger one
// is left out with a sentence saying its size (the raw bytes, cut at
// MaxValueBytes, stay).
const MaxDecodedBytes = 16 << 10

// decodeValue sets e's schema and decoded value from the raw value.
func decodeValue(dec ValueDecoder, e *Entry, value []byte) {
	if dec == nil || len(value) < 5 || value[0] != 0 {
		return
	}
	d, ok := dec.DecodeValue(value)
	if !ok {
		return
	}
	ref := d.Schema
	e.Schema = &ref
	e.DecodeProblem = d.Problem // a value may decode and still be refused by its schema
	switch {
	case d.Value == nil:
	case len(d.Value) > MaxDecodedBytes:
		m := catalog.M("schema.tooLarge", "size", strconv.Itoa(len(d.Value)), "max", strconv.Itoa(MaxDecodedBytes))
		e.DecodeProblem = &m
	default:
		e.Decoded = d.Value
	}
}
