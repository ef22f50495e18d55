// Package schemareg decodes record values written through a Confluent
// Schema Registry: the wire format's magic byte 0 and 4-byte schema id,
// the schema fetched from the registry once by id (franz-go's pkg/sr) and
// kept, and the payload decoded as JSON. Avro is decoded with hamba/avro;
// Protobuf's .proto compiled with bufbuild/protocompile and the message its
// indexes name decoded as a dynamic message; JSON Schema values are JSON
// already, validated against their schema (santhosh-tekuri/jsonschema).
//
// A Decoder implements inspect.ValueDecoder. It never fails a read: a bad
// frame, an unknown id, a schema that does not parse or a registry that
// does not answer leave the raw bytes with a catalogue sentence saying
// why. A schema that references others (Confluent's schema references: an
// Avro record using a type registered under another subject, a .proto
// importing another, a JSON Schema's $ref) is parsed with them, fetched by
// subject and version. Costs: two registry requests per schema id (its
// text, its subject and version) and one per schema it references,
// cached for the process's life (at most MaxSchemas ids; an
// unknown id or an unreachable registry is asked again after
// RetryAfter); decoding is in memory, bounded by the value's size.
//
// The embedded registry (Embedded) is franz-go's srfake, served on its own
// port for the embedded broker's clients, its schemas written under the
// data directory so that a restart keeps them (the broker keeps the
// records written with them).
package schemareg

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// Bounds of a Decoder.
const (
	// MaxSchemas is how many schema ids a Decoder keeps.
	MaxSchemas = 1024
	// RetryAfter is how long an unknown id or an unreachable registry
	// is not asked again.
	RetryAfter = 5 * time.Second
	// RequestTimeout bounds one request to the registry: a read of the
	// log waits on it the first time it meets an id.
	RequestTimeout = 3 * time.Second
)

// Decoder decodes framed values with the schemas of one registry. It is
// safe for concurrent use.
type Decoder struct {
	url    string
	client *sr.Client
	now    func() time.Time

	mu      sync.Mutex
	schemas map[int]*schema
}

// schema is one id's schema, parsed, or why it is not known.
type schema struct {
	ref   inspect.SchemaRef
	avro  avro.Schema
	proto protoreflect.FileDescriptor
	json  *jsonschema.Schema
	// problem, when set, is why values of this id stay raw; until is
	// when to ask the registry again (zero: never).
	problem *catalog.Message
	until   time.Time
}

// Auth is how a Decoder logs in to its registry: HTTP basic auth (the
// basic.auth.user.info of a client's properties), or none.
type Auth struct {
	User, Password string
}

// New returns a Decoder for the registry at url.
func New(url string, auth Auth) (*Decoder, error) {
	opts := []sr.ClientOpt{sr.URLs(url), sr.HTTPClient(&http.Client{Timeout: RequestTimeout})}
	if auth.User != "" {
		opts = append(opts, sr.BasicAuth(auth.User, auth.Password))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("schemareg: %s: %w", url, err)
	}
	return &Decoder{url: url, client: cl, now: time.Now, schemas: map[int]*schema{}}, nil
}

// URL is the registry's address.
func (d *Decoder) URL() string { return d.url }

// DecodeValue implements inspect.ValueDecoder.
func (d *Decoder) DecodeValue(value []byte) (inspect.Decoded, bool) {
	if len(value) < 5 || value[0] != 0 {
		return inspect.Decoded{}, false
	}
	id := int(binary.BigEndian.Uint32(value[1:5]))
	s := d.schema(id)
	out := inspect.Decoded{Schema: s.ref}
	if s.problem != nil {
		out.Problem = s.problem
		return out, true
	}
	payload := value[5:]
	switch s.ref.Type {
	case "AVRO":
		// A Reader, not avro.Unmarshal, which takes bytes that end
		// early for a nil value without an error.
		var v any
		r := avro.NewReader(nil, 0).Reset(payload)
		if r.ReadVal(s.avro, &v); r.Error != nil {
			out.Problem = msg("schema.decodeFailed", "id", strconv.Itoa(id), "type", s.ref.Type, "detail", r.Error.Error())
			return out, true
		}
		out.Value, out.Problem = asJSON(id, s.ref.Type, v)
	case "JSON":
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
		if err != nil {
			out.Problem = msg("schema.decodeFailed", "id", strconv.Itoa(id), "type", s.ref.Type, "detail", "not JSON")
			return out, true
		}
		out.Value = json.RawMessage(payload)
		// Shown either way; a value its schema refuses says so.
		if err := s.json.Validate(v); err != nil {
			out.Problem = msg("schema.invalid", "id", strconv.Itoa(id), "detail", firstLine(err.Error()))
		}
	case "PROTOBUF":
		if _, _, err := messageIndexes(payload); err != nil {
			out.Problem = msg("schema.badFrame", "detail", err.Error())
			return out, true
		}
		b, err := decodeProto(s.proto, payload)
		if err != nil {
			out.Problem = msg("schema.decodeFailed", "id", strconv.Itoa(id), "type", s.ref.Type, "detail", err.Error())
			return out, true
		}
		out.Value = b
	default:
		out.Problem = msg("schema.unsupported", "id", strconv.Itoa(id), "type", s.ref.Type)
	}
	return out, true
}

// asJSON is v (as hamba/avro decodes it) as JSON.
func asJSON(id int, typ string, v any) (json.RawMessage, *catalog.Message) {
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return nil, msg("schema.decodeFailed", "id", strconv.Itoa(id), "type", typ, "detail", err.Error())
	}
	return b, nil
}

// jsonable turns what hamba/avro decodes into what encoding/json writes:
// maps keyed by anything become maps keyed by strings.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonable(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = jsonable(e)
		}
		return t
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	}
	return v
}

// schema is id's schema: from the cache, else from the registry.
func (d *Decoder) schema(id int) *schema {
	d.mu.Lock()
	s, ok := d.schemas[id]
	d.mu.Unlock()
	if ok && (s.problem == nil || s.until.IsZero() || d.now().Before(s.until)) {
		return s
	}
	s = d.fetch(id)
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.schemas) >= MaxSchemas {
		for k := range d.schemas { // forget one: ids are rarely this many
			delete(d.schemas, k)
			break
		}
	}
	d.schemas[id] = s
	return s
}

// fetch asks the registry for id's schema and its first subject and
// version.
func (d *Decoder) fetch(id int) *schema {
	ctx, cancel := context.WithTimeout(context.Background(), RequestTimeout)
	defer cancel()
	s := &schema{ref: inspect.SchemaRef{ID: id}}
	got, err := d.client.SchemaByID(ctx, id)
	if err != nil {
		var re *sr.ResponseError
		if errors.As(err, &re) && re.StatusCode == http.StatusNotFound {
			s.problem = msg("schema.unknownId", "id", strconv.Itoa(id), "url", d.url)
		} else {
			s.problem = msg("schema.registryDown", "url", d.url, "detail", err.Error())
		}
		s.until = d.now().Add(RetryAfter)
		return s
	}
	s.ref.Type = got.Type.String()
	if versions, err := d.client.SchemaVersionsByID(ctx, id); err == nil && len(versions) > 0 {
		s.ref.Subject, s.ref.Version = versions[0].Subject, versions[0].Version
	}
	refs, err := d.references(ctx, got.References)
	if err != nil {
		s.problem = msg("schema.decodeFailed", "id", strconv.Itoa(id), "type", s.ref.Type, "detail", err.Error())
		s.until = d.now().Add(RetryAfter)
		return s
	}
	switch s.ref.Type {
	case "AVRO":
		s.avro, err = parseAvro(got.Schema, refs)
	case "PROTOBUF":
		s.proto, err = compileProto(got.Schema, refs)
	case "JSON":
		s.json, err = compileJSONSchema(got.Schema, refs)
	}
	if err != nil {
		s.problem = msg("schema.decodeFailed", "id", strconv.Itoa(id), "type", s.ref.Type, "detail", err.Error())
	}
	return s
}

// MaxReferences bounds the schemas one schema may reference, directly or
// through the schemas it references.
const MaxReferences = 64

// referenced is a schema another one references: the name it is
// referenced by (an Avro type's full name, a .proto's import path, a JSON
// Schema's $ref) and its text.
type referenced struct {
	name, schema string
}

// references fetches the schemas refs name, each subject and version once,
// and the schemas they reference in turn: every schema comes after the
// ones it references, the order in which Avro must parse them. A
// reference the registry does not give (or a chain of more than
// MaxReferences) is an error naming it.
func (d *Decoder) references(ctx context.Context, refs []sr.SchemaReference) ([]referenced, error) {
	var out []referenced
	seen := map[string]bool{}
	var visit func(refs []sr.SchemaReference) error
	visit = func(refs []sr.SchemaReference) error {
		for _, ref := range refs {
			key := ref.Subject + "\x00" + strconv.Itoa(ref.Version)
			if seen[key] {
				continue
			}
			if seen[key] = true; len(seen) > MaxReferences {
				return fmt.Errorf("more than %d referenced schemas", MaxReferences)
			}
			got, err := d.client.SchemaByVersion(ctx, ref.Subject, ref.Version)
			if err != nil {
				return fmt.Errorf("reference %s (subject %s version %d): %w", ref.Name, ref.Subject, ref.Version, err)
			}
			if err := visit(got.References); err != nil {
				return err
			}
			out = append(out, referenced{name: ref.Name, schema: got.Schema.Schema})
		}
		return nil
	}
	return out, visit(refs)
}

// parseAvro parses an Avro schema after the schemas it references, whose
// named types it may use by their full names. Each id gets a cache of its
// own: hamba/avro's default one is shared by the whole process, where one
// schema's "Order" would resolve another's.
func parseAvro(text string, refs []referenced) (avro.Schema, error) {
	cache := &avro.SchemaCache{}
	for _, r := range refs {
		if _, err := avro.ParseWithCache(r.schema, "", cache); err != nil {
			return nil, fmt.Errorf("reference %s: %w", r.name, err)
		}
	}
	return avro.ParseWithCache(text, "", cache)
}

// compileJSONSchema compiles a JSON Schema as the registry gives it
// (santhosh-tekuri/jsonschema: drafts 4 to 2020-12), its $refs to the
// schemas it references resolved by their reference names and no others
// loaded from anywhere.
func compileJSONSchema(text string, refs []referenced) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{}) // the default reads any file:// $ref from this machine's disk
	for _, r := range append(refs, referenced{name: "schema.json", schema: text}) {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(r.schema))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		if err := c.AddResource(schemaURL(r.name), doc); err != nil {
			return nil, err
		}
	}
	return c.Compile(schemaURL("schema.json"))
}

// schemaBase is where a JSON Schema and the schemas it references are
// named, relative names resolved against it: not the server's working
// directory, which a name relative to nothing would be under file://
// (and which error messages would then show).
const schemaBase = "registry:///"

// schemaURL is a reference's name as an absolute URL: as given when it is
// one, else under schemaBase.
func schemaURL(name string) string {
	if strings.Contains(name, "://") {
		return name
	}
	return schemaBase + strings.TrimPrefix(name, "/")
}

// noLoader loads no schema: a JSON Schema's $ref resolves only to the
// schemas its registry references name.
type noLoader struct{}

// Load implements jsonschema.URLLoader.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is not a schema this one references in the registry", url)
}

// firstLine is an error's first line (a validation error lists every
// failing keyword below it).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func msg(key string, kv ...string) *catalog.Message {
	m := catalog.M(key, kv...)
	return &m
}
