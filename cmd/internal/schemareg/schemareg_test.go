package schemareg

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

const orderSchema = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"total","type":"long"},{"name":"note","type":["null","string"],"default":null}]}`

// frame is value in Confluent's wire format for schema id.
func frame(id int, payload []byte) []byte {
	out := []byte{0, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(out[1:], uint32(id))
	return append(out, payload...)
}

// TestDecodeValue: a framed Avro value decodes to JSON naming its schema
// (id, subject, version, type), a JSON Schema value is its JSON; an
// JSON value its schema refuses is shown with the sentence saying so; an
// unknown id, a registry that is down, a Protobuf frame without indexes,
// bytes that do not fit the schema, and unframed bytes each keep the raw
// bytes with their sentence (or are not framed at all); Protobuf decodes
// the message its indexes name, nested ones too. A schema that references
// another subject's (an Avro record type, a .proto import, a JSON Schema
// $ref) decodes with it, a .proto and its import registered as base64
// descriptors too; a JSON Schema's $ref to a file is not read.
func TestDecodeValue(t *testing.T) {
	reg := srfake.New()
	t.Cleanup(reg.Close)
	avroID, _, err := reg.RegisterSchema("orders-value", sr.Schema{Schema: orderSchema})
	if err != nil {
		t.Fatal(err)
	}
	jsonID, _, err := reg.RegisterSchema("events-value", sr.Schema{Schema: `{"type":"object","required":["a"]}`, Type: sr.TypeJSON})
	if err != nil {
		t.Fatal(err)
	}
	protoID, _, err := reg.RegisterSchema("prices-value", sr.Schema{Schema: `syntax = "proto3"; message Price { string sku = 1; message Tier { int32 level = 1; } }`, Type: sr.TypeProtobuf})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := avro.Marshal(avro.MustParse(orderSchema), map[string]any{"id": "O-1", "total": int64(30000), "note": nil})
	if err != nil {
		t.Fatal(err)
	}
	refs := registerReferences(t, reg)
	d, err := New(reg.URL(), Auth{})
	if err != nil {
		t.Fatal(err)
	}
	down, err := New("http://127.0.0.1:1", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		dec         *Decoder
		value       []byte
		framed      bool
		wantJSON    string
		wantProblem string
		wantSubject string
	}{
		{"avro", d, frame(avroID, payload), true, `{"id":"O-1","note":null,"total":30000}`, "", "orders-value"},
		{"json schema", d, frame(jsonID, []byte(`{"a":1}`)), true, `{"a":1}`, "", "events-value"},
		{"json its schema refuses, shown and said", d, frame(jsonID, []byte(`{"b":2}`)), true, `{"b":2}`, "schema.invalid", "events-value"},
		{"an unknown id", d, frame(999, payload), true, "", "schema.unknownId", ""},
		{"a registry that is down", down, frame(avroID, payload), true, "", "schema.registryDown", ""},
		{"protobuf without message indexes", d, frame(protoID, nil), true, "", "schema.badFrame", "prices-value"},
		{"protobuf, the first message", d, frame(protoID, []byte{0, 0x0a, 1, 'x'}), true, `{"sku":"x"}`, "", "prices-value"},
		{"protobuf, a nested message", d, frame(protoID, []byte{4, 0, 0, 0x08, 5}), true, `{"level":5}`, "", "prices-value"},
		{"protobuf, an index past the schema", d, frame(protoID, []byte{2, 6, 0x08, 5}), true, "", "schema.decodeFailed", "prices-value"},
		{"bytes that do not fit the schema", d, frame(avroID, []byte{0x80}), true, "", "schema.decodeFailed", "orders-value"},
		{"avro, a record using a type of another subject", d, frame(refs.avroID, refs.avroValue), true, `{"name":"Ada","home":{"city":{"name":"Seoul"}}}`, "", "people-value"},
		{"protobuf, importing another subject's .proto", d, frame(refs.protoID, []byte{0, 0x0a, 3, 0x08, 0x96, 0x01}), true, `{"home":{"zip":150}}`, "", "letters-value"},
		{"protobuf as base64 descriptors, importing another subject's and a well-known type", d, frame(refs.protoDescriptorID, []byte{0, 0x0a, 3, 0x08, 0x96, 0x01, 0x12, 2, 0x08, 0x01}), true, `{"home":{"zip":150},"sent_at":"1970-01-01T00:00:01Z"}`, "", "parcels-value"},
		{"json schema, a $ref to another subject", d, frame(refs.jsonID, []byte(`{"home":{"city":"Seoul"}}`)), true, `{"home":{"city":"Seoul"}}`, "", "visits-value"},
		{"json schema, a $ref to a file on the server's disk", d, frame(refs.jsonFileID, []byte(`"x"`)), true, "", "schema.decodeFailed", "files-value"},
		{"json schema, a value the referenced schema refuses", d, frame(refs.jsonID, []byte(`{"home":{"city":7}}`)), true, `{"home":{"city":7}}`, "schema.invalid", "visits-value"},
		{"plain text", d, []byte("O-1 total=30000"), false, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.dec.DecodeValue(tt.value)
			if ok != tt.framed {
				t.Fatalf("framed %v, want %v", ok, tt.framed)
			}
			if !ok {
				return
			}
			if tt.wantJSON != "" && canonical(t, got.Value) != canonical(t, []byte(tt.wantJSON)) {
				t.Errorf("decoded %s, want %s", got.Value, tt.wantJSON)
			}
			key := ""
			if got.Problem != nil {
				key = got.Problem.Key
			}
			if key != tt.wantProblem {
				t.Errorf("problem %q (%v), want %q", key, got.Problem, tt.wantProblem)
			}
			// A problem's words name the schema, never the server's working directory.
			if wd, _ := os.Getwd(); got.Problem != nil && strings.Contains(fmt.Sprint(got.Problem.Args), wd) {
				t.Errorf("the problem says %v: the server's working directory", got.Problem.Args)
			}
			if got.Schema.Subject != tt.wantSubject {
				t.Errorf("schema %+v, want subject %q", got.Schema, tt.wantSubject)
			}
		})
	}
}

// referencing is what registerReferences registered: one schema of each
// type that references another subject's.
type referencing struct {
	avroID, protoID, protoDescriptorID, jsonID, jsonFileID int
	avroValue                                              []byte
}

// registerReferences registers, in reg, an Avro record whose field is a
// record of another subject (reached through that subject's own
// reference), a .proto importing another subject's (as source, and as
// base64 descriptors), and a JSON Schema
// whose $ref names another subject's; avroValue is a Person written with
// the first.
func registerReferences(t *testing.T, reg *srfake.Registry) referencing {
	t.Helper()
	register := func(subject, schema string, typ sr.SchemaType, refs ...sr.SchemaReference) int {
		t.Helper()
		id, _, err := reg.RegisterSchema(subject, sr.Schema{Schema: schema, Type: typ, References: refs})
		if err != nil {
			t.Fatalf("register %s: %v", subject, err)
		}
		return id
	}
	const (
		city    = `{"type":"record","name":"City","namespace":"lab","fields":[{"name":"name","type":"string"}]}`
		address = `{"type":"record","name":"Address","namespace":"lab","fields":[{"name":"city","type":"lab.City"}]}`
		person  = `{"type":"record","name":"Person","namespace":"lab","fields":[{"name":"name","type":"string"},{"name":"home","type":"lab.Address"}]}`
	)
	register("city", city, sr.TypeAvro)
	register("address", address, sr.TypeAvro, sr.SchemaReference{Name: "lab.City", Subject: "city", Version: 1})
	var out referencing
	out.avroID = register("people-value", person, sr.TypeAvro, sr.SchemaReference{Name: "lab.Address", Subject: "address", Version: 1})
	register("zip.proto", `syntax = "proto3"; package lab; message Zip { int32 zip = 1; }`, sr.TypeProtobuf)
	out.protoID = register("letters-value", `syntax = "proto3"; package lab; import "zip.proto"; message Letter { Zip home = 1; }`, sr.TypeProtobuf,
		sr.SchemaReference{Name: "zip.proto", Subject: "zip.proto", Version: 1})
	// As confluent-kafka's Python serializer registers a .proto and the
	// file it imports: base64 FileDescriptorProtos without json_names;
	// Google's well-known types are not registered.
	zip := &descriptorpb.FileDescriptorProto{Name: proto.String("post/zip.proto"), Package: proto.String("post"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Zip"), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("zip"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()},
		}}}}
	parcel := &descriptorpb.FileDescriptorProto{Name: proto.String("post/parcel.proto"), Package: proto.String("post"), Syntax: proto.String("proto3"),
		Dependency: []string{"post/zip.proto", "google/protobuf/timestamp.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Parcel"), Field: []*descriptorpb.FieldDescriptorProto{
			{Name: proto.String("home"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".post.Zip")},
			{Name: proto.String("sent_at"), Number: proto.Int32(2), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".google.protobuf.Timestamp")},
		}}}}
	base64Of := func(fdp *descriptorpb.FileDescriptorProto) string {
		raw, err := proto.Marshal(fdp)
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	register("post/zip.proto", base64Of(zip), sr.TypeProtobuf)
	out.protoDescriptorID = register("parcels-value", base64Of(parcel), sr.TypeProtobuf,
		sr.SchemaReference{Name: "post/zip.proto", Subject: "post/zip.proto", Version: 1})
	register("address.json", `{"type":"object","properties":{"city":{"type":"string"}}}`, sr.TypeJSON)
	onDisk := filepath.Join(t.TempDir(), "string.json")
	if err := os.WriteFile(onDisk, []byte(`{"type":"string"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out.jsonFileID = register("files-value", `{"$ref":"file://`+filepath.ToSlash(onDisk)+`"}`, sr.TypeJSON)
	out.jsonID = register("visits-value", `{"type":"object","properties":{"home":{"$ref":"address.json"}}}`, sr.TypeJSON,
		sr.SchemaReference{Name: "address.json", Subject: "address.json", Version: 1})

	cache := &avro.SchemaCache{}
	for _, s := range []string{city, address, person} {
		if _, err := avro.ParseWithCache(s, "", cache); err != nil {
			t.Fatal(err)
		}
	}
	value, err := avro.Marshal(cache.Get("lab.Person"), map[string]any{"name": "Ada", "home": map[string]any{"city": map[string]any{"name": "Seoul"}}})
	if err != nil {
		t.Fatal(err)
	}
	out.avroValue = value
	return out
}

func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestEmbeddedKeepsSchemas: a schema registered with the embedded registry
// is there, under the same id, after it restarts on the same directory.
func TestEmbeddedKeepsSchemas(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := StartEmbedded("127.0.0.1:0", dir)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := sr.NewClient(sr.URLs(first.URL()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.CreateSchema(ctx, "warmup-value", sr.Schema{Schema: `"string"`}); err != nil {
		t.Fatal(err)
	}
	ss, err := cl.CreateSchema(ctx, "orders-value", sr.Schema{Schema: orderSchema})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()

	again, err := StartEmbedded("127.0.0.1:0", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	d, err := New(again.URL(), Auth{})
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := avro.Marshal(avro.MustParse(orderSchema), map[string]any{"id": "O-2", "total": int64(42000), "note": "gift"})
	got, ok := d.DecodeValue(frame(ss.ID, payload))
	if !ok || got.Problem != nil || got.Schema.Subject != "orders-value" {
		t.Fatalf("after a restart, id %d: %+v %v", ss.ID, got, got.Problem)
	}
}

// TestJSONName: a field's JSON name as protoc writes it into descriptors.
func TestJSONName(t *testing.T) {
	for field, want := range map[string]string{"sku": "sku", "sent_at": "sentAt", "zone__name_2": "zoneName2", "_x": "X", "Zip_code": "ZipCode"} {
		if got := jsonName(field); got != want {
			t.Errorf("jsonName(%q) = %q, want %q", field, got, want)
		}
	}
}
