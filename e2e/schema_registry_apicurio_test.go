package e2e

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/offsetlab/offsetlab/internal/apicurio"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestSchemaRegistryApicurio: Apicurio Registry, a registry nobody here
// wrote, is the dashboard's --schema-registry, beside the embedded broker
// and beside real Kafka. For each of the three schema types a Go producer
// registers through Apicurio's Confluent-compatible API (franz-go's sr) a
// schema, and one that references it by subject and version, then writes
// values of the referencing schema, then one of the referenced, in the
// wire format (magic byte 0, the id Apicurio gave, for Protobuf the
// message indexes, the body), each type to a topic of its own:
//
//   - Avro: a Person record whose home is an Address record of another
//     subject (the reference named by the type's full name, lab.Address);
//   - Protobuf: letters.proto importing lab/zip.proto of another subject
//     (the reference named by the import path), a Letter (the file's
//     second message: indexes [1]) and a Letter.Stamp (nested: [1, 0])
//     holding a lab.Zip, then a Zip (the lone 0);
//   - JSON Schema: a Visit whose home is a $ref to address.json, another
//     subject's schema (the reference named by the $ref), and a Visit
//     whose home that schema refuses, shown with the sentence saying so.
//
// The log API shows each value decoded, named by its schema's id,
// subject, version and type: the referencing values, read first, decode
// through the reference alone. Apicurio 3.0.9's ccompat API takes the
// three as Confluent's registry does (schemaType, references by name,
// subject and version, the schema text given back unchanged), but it
// also infers a schema's type from its text and refuses a JSON Schema it
// does not recognise as one: the JSON Schemas here carry $schema
// (docs/divergences.md says what was measured).
func TestSchemaRegistryApicurio(t *testing.T) {
	reg := startApicurio(t)
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			var p *serverProcess
			var bootstrap string
			switch kind {
			case embedded:
				p = startServerProcess(t, "--data-dir", t.TempDir(), "--schema-registry", reg.URL())
				bootstrap = p.kafkaAddr
			case realKafka:
				testenv.Needs(t, testenv.JVM)
				bootstrap = os.Getenv(brokersEnv)
				if bootstrap == "" {
					testenv.MissingSetup(t, "real Kafka skipped: set %s", brokersEnv)
				}
				p = startServerProcess(t, "--brokers", bootstrap, "--data-dir", t.TempDir(), "--schema-registry", reg.URL())
			}
			a := p.app(randomSuffix(t))
			var cl struct {
				SchemaRegistry *struct {
					URL string `json:"url"`
				} `json:"schemaRegistry"`
			}
			a.do("GET", "/api/cluster", nil, http.StatusOK, &cl)
			if cl.SchemaRegistry == nil || cl.SchemaRegistry.URL != reg.URL() {
				t.Fatalf("GET /api/cluster names the registry %+v, want %q", cl.SchemaRegistry, reg.URL())
			}
			kc, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
			if err != nil {
				t.Fatal(err)
			}
			defer kc.Close()
			rc, err := sr.NewClient(sr.URLs(reg.URL()))
			if err != nil {
				t.Fatal(err)
			}

			for _, f := range []struct {
				typ, topic, referenced string
				write                  func(context.Context, *testing.T, *sr.Client, registered) []framedValue
			}{
				{"AVRO", "people-avro", "lab-address", writePeople},
				{"PROTOBUF", "letters-protobuf", "lab-zip", writeLetters},
				{"JSON", "visits-json", "lab-address-json", writeVisits},
			} {
				t.Run(f.typ, func(t *testing.T) {
					topic := a.name(f.topic)
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					if _, err := kadm.NewClient(kc).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { _, _ = kadm.NewClient(kc).DeleteTopics(context.Background(), topic) })

					written := f.write(ctx, t, rc, registered{a.name(f.referenced), topic + "-value", a.suffix})
					for _, v := range written {
						if err := kc.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: v.frame}).FirstErr(); err != nil {
							t.Fatal(err)
						}
					}
					var log decodedLog
					a.do("GET", "/api/topics/"+topic+"/partitions/0/log?from=0&limit=10", nil, http.StatusOK, &log)
					if len(log.Entries) != len(written) {
						t.Fatalf("the log holds %d entries, want %d", len(log.Entries), len(written))
					}
					for i, want := range written {
						e := log.Entries[i]
						if e.Schema == nil || e.Schema.ID != want.id || e.Schema.Subject != want.subject || e.Schema.Version != 1 || e.Schema.Type != f.typ {
							t.Errorf("offset %d's schema: %+v, want id %d, %s version 1, %s", i, e.Schema, want.id, want.subject, f.typ)
						}
						problem := ""
						if e.DecodeProblem != nil {
							problem = e.DecodeProblem.Key
						}
						if got := canonicalJSON(t, e.Decoded); got != canonicalJSON(t, []byte(want.json)) || problem != want.problem {
							t.Errorf("offset %d decodes to %s (problem %q), the producer wrote %s (want problem %q)", i, got, problem, want.json, want.problem)
						}
					}
				})
			}
		})
	}
}

// startApicurio starts Apicurio Registry (internal/apicurio) for the test,
// or ends it when Java or the fetched application is missing.
func startApicurio(t *testing.T) *apicurio.Registry {
	t.Helper()
	testenv.Needs(t, testenv.JVM)
	dir := apicurio.DefaultDir(os.Getenv, repoRoot(t))
	if !apicurio.Fetched(dir) {
		testenv.MissingSetup(t, "Apicurio Registry tests skipped: Apicurio Registry %s is not in %s (`go run ./cmd/offsetlab-apicurio fetch` downloads it; OFFSETLAB_CACHE or OFFSETLAB_APICURIO_DIR says where)", apicurio.Version, dir)
	}
	java := localkafka.DefaultJava(os.Getenv)
	if _, err := exec.LookPath(java); err != nil {
		testenv.MissingSetup(t, "Apicurio Registry tests skipped: no java (%v); install Java 17 or later or set JAVA_HOME", err)
	}
	start := time.Now()
	reg, err := apicurio.Start(context.Background(), apicurio.Config{Dir: dir, Java: java, Get: httpGet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := reg.Close(); err != nil {
			t.Errorf("stop Apicurio Registry: %v", err)
		}
	})
	t.Logf("Apicurio Registry %s serves %s (started in %s)", apicurio.Version, reg.URL(), time.Since(start).Round(100*time.Millisecond))
	return reg
}

// httpGet is an apicurio.Getter over net/http.
func httpGet(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}

// registered names what a writer registers: the referenced schema's
// subject, the referencing schema's, and a suffix its schemas carry (a
// registry gives the same content the same id, and the test's two brokers
// must not share one).
type registered struct {
	referenced, referencing, suffix string
}

// framedValue is one value a writer wrote: in the wire format, the schema
// id it framed, the subject that id was registered under, the value as
// JSON, and the catalogue key of the sentence the dashboard says beside it
// (none for most).
type framedValue struct {
	frame   []byte
	id      int
	subject string
	json    string
	problem string
}

// framed is body in Confluent's wire format: magic byte 0, the schema id,
// then (Protobuf only) the message indexes, zig-zag varints.
func framed(id int, indexes []byte, body []byte) []byte {
	out := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
	return append(append(out, indexes...), body...)
}

// register registers schema under subject with rc and returns what the
// registry gave it (its id and version).
func register(ctx context.Context, t *testing.T, rc *sr.Client, subject string, schema sr.Schema) sr.SubjectSchema {
	t.Helper()
	got, err := rc.CreateSchema(ctx, subject, schema)
	if err != nil {
		t.Fatalf("register %s (references %+v): %v", subject, schema.References, err)
	}
	return got
}

// writePeople registers the Avro record Address, and Person, whose home is
// an Address, and frames two Persons and an Address.
func writePeople(ctx context.Context, t *testing.T, rc *sr.Client, r registered) []framedValue {
	t.Helper()
	address := `{"type":"record","name":"Address","namespace":"lab","doc":"` + r.suffix + `","fields":[{"name":"city","type":"string"}]}`
	person := `{"type":"record","name":"Person","namespace":"lab","doc":"` + r.suffix + `","fields":[{"name":"name","type":"string"},{"name":"home","type":"lab.Address"},{"name":"note","type":["null","string"],"default":null}]}`
	addr := register(ctx, t, rc, r.referenced, sr.Schema{Schema: address})
	pers := register(ctx, t, rc, r.referencing, sr.Schema{Schema: person,
		References: []sr.SchemaReference{{Name: "lab.Address", Subject: r.referenced, Version: addr.Version}}})

	cache := &avro.SchemaCache{}
	addrSchema, err := avro.ParseWithCache(address, "", cache)
	if err != nil {
		t.Fatal(err)
	}
	persSchema, err := avro.ParseWithCache(person, "", cache)
	if err != nil {
		t.Fatal(err)
	}
	values := []struct {
		schema  avro.Schema
		subject sr.SubjectSchema
		value   any
		json    string
	}{
		{persSchema, pers, map[string]any{"name": "Ada", "home": map[string]any{"city": "London"}, "note": nil},
			`{"name":"Ada","home":{"city":"London"},"note":null}`},
		{persSchema, pers, map[string]any{"name": "Grace", "home": map[string]any{"city": "Arlington"}, "note": "gift"},
			`{"name":"Grace","home":{"city":"Arlington"},"note":"gift"}`},
		{addrSchema, addr, map[string]any{"city": "Seoul"}, `{"city":"Seoul"}`},
	}
	var out []framedValue
	for _, v := range values {
		body, err := avro.Marshal(v.schema, v.value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, framedValue{framed(v.subject.ID, nil, body), v.subject.ID, v.subject.Subject, v.json, ""})
	}
	return out
}

// writeLetters registers lab/zip.proto, and letters.proto, which imports
// it, and frames a Letter (the second message of its file), a
// Letter.Stamp (nested in it) and a Zip. The producer compiles the two
// sources (bufbuild/protocompile) and marshals dynamic messages built
// from their JSON (google.golang.org/protobuf).
func writeLetters(ctx context.Context, t *testing.T, rc *sr.Client, r registered) []framedValue {
	t.Helper()
	const zipPath = "lab/zip.proto"
	zip := "// " + r.suffix + "\n" + `syntax = "proto3";
package lab;

message Zip {
  int32 code = 1;
}
`
	letters := "// " + r.suffix + "\n" + `syntax = "proto3";
package lab;

import "lab/zip.proto";

message Note {
  string text = 1;
}

message Letter {
  message Stamp {
    int32 cents = 1;
    lab.Zip from = 2;
  }
  string to = 1;
  lab.Zip home = 2;
}
`
	z := register(ctx, t, rc, r.referenced, sr.Schema{Schema: zip, Type: sr.TypeProtobuf})
	l := register(ctx, t, rc, r.referencing, sr.Schema{Schema: letters, Type: sr.TypeProtobuf,
		References: []sr.SchemaReference{{Name: zipPath, Subject: r.referenced, Version: z.Version}}})

	files, err := (&protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{zipPath: zip, "letters.proto": letters}),
	}}).Compile(ctx, "letters.proto")
	if err != nil {
		t.Fatal(err)
	}
	letter := files[0].Messages().ByName("Letter")
	values := []struct {
		message protoreflect.MessageDescriptor
		subject sr.SubjectSchema
		indexes []byte // Confluent's message indexes, zig-zag varints
		json    string
	}{
		{letter, l, []byte{2, 2}, `{"to":"Ada","home":{"code":150}}`},                                // one index: 1
		{letter.Messages().ByName("Stamp"), l, []byte{4, 2, 0}, `{"cents":85,"from":{"code":4000}}`}, // two: 1, 0
		{letter.Fields().ByName("home").Message(), z, []byte{0}, `{"code":6000}`},                    // the first message: a lone 0
	}
	var out []framedValue
	for _, v := range values {
		m := dynamicpb.NewMessage(v.message)
		if err := protojson.Unmarshal([]byte(v.json), m); err != nil {
			t.Fatal(err)
		}
		body, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, framedValue{framed(v.subject.ID, v.indexes, body), v.subject.ID, v.subject.Subject, v.json, ""})
	}
	return out
}

// writeVisits registers the JSON Schema address.json, and a Visit whose
// home is a $ref to it, and frames a Visit, a Visit whose home the
// referenced schema refuses (a number for a city), and an address.
func writeVisits(ctx context.Context, t *testing.T, rc *sr.Client, r registered) []framedValue {
	t.Helper()
	address := `{"$schema":"http://json-schema.org/draft-07/schema#","description":"` + r.suffix + `","type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	visit := `{"$schema":"http://json-schema.org/draft-07/schema#","description":"` + r.suffix + `","type":"object","properties":{"who":{"type":"string"},"home":{"$ref":"address.json"}},"required":["who","home"]}`
	addr := register(ctx, t, rc, r.referenced, sr.Schema{Schema: address, Type: sr.TypeJSON})
	vis := register(ctx, t, rc, r.referencing, sr.Schema{Schema: visit, Type: sr.TypeJSON,
		References: []sr.SchemaReference{{Name: "address.json", Subject: r.referenced, Version: addr.Version}}})
	values := []struct {
		subject       sr.SubjectSchema
		json, problem string
	}{
		{vis, `{"who":"Ada","home":{"city":"London"}}`, ""},
		{vis, `{"who":"Grace","home":{"city":7}}`, "schema.invalid"},
		{addr, `{"city":"Seoul"}`, ""},
	}
	var out []framedValue
	for _, v := range values {
		out = append(out, framedValue{framed(v.subject.ID, nil, []byte(v.json)), v.subject.ID, v.subject.Subject, v.json, v.problem})
	}
	return out
}
