package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestSchemaRegistry: confluent-kafka's Avro serializer writes three
// orders through a Schema Registry — on the embedded broker its own
// registry (named in GET /api/cluster), on real Kafka franz-go's srfake
// given as --schema-registry — and a record framed with an id no registry
// knows follows. The log API gives each order its schema (id, subject
// TOPIC-value, version 1, AVRO) and the value decoded as the serializer's
// dict, the raw bytes beside it; the unknown id keeps its bytes with the
// sentence saying so. A JSON path search and the topic-wide search look
// into the decoded values. In Chromium at 1280×720 and 1920×1080 the masthead
// names the registry, Details shows the decoded order and Table its JSON;
// a tombstone (null value) is named as one in the Table. The Protobuf
// serializer's values (a message holding one of an imported file, a
// nested one) decode too, and the JSON Schema serializer's meet their
// schema.
func TestSchemaRegistry(t *testing.T) {
	testenv.Needs(t, testenv.Python)
	python := os.Getenv(pythonEnv)
	if python == "" {
		testenv.MissingSetup(t, "Schema Registry tests skipped: set %s to a python with confluent-kafka[avro] (scripts/python-venv.sh)", pythonEnv)
	}
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			var p *serverProcess
			var bootstrap, registry string
			switch kind {
			case embedded:
				p = startServerProcess(t, "--data-dir", t.TempDir(), "--schema-registry-addr", "127.0.0.1:0")
				bootstrap = p.kafkaAddr
			case realKafka:
				testenv.Needs(t, testenv.JVM)
				bootstrap = os.Getenv(brokersEnv)
				if bootstrap == "" {
					testenv.MissingSetup(t, "real Kafka skipped: set %s", brokersEnv)
				}
				reg := srfake.New()
				t.Cleanup(reg.Close)
				registry = reg.URL()
				p = startServerProcess(t, "--brokers", bootstrap, "--data-dir", t.TempDir(), "--schema-registry", registry)
			}
			a := p.app(randomSuffix(t))
			var cl struct {
				SchemaRegistry *struct {
					URL string `json:"url"`
				} `json:"schemaRegistry"`
			}
			a.do("GET", "/api/cluster", nil, http.StatusOK, &cl)
			if cl.SchemaRegistry == nil || (registry != "" && cl.SchemaRegistry.URL != registry) {
				t.Fatalf("GET /api/cluster names the registry %+v, want %q", cl.SchemaRegistry, registry)
			}
			registry = cl.SchemaRegistry.URL

			topic := a.name("orders-avro")
			kc, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.DefaultProduceTopic(topic))
			if err != nil {
				t.Fatal(err)
			}
			defer kc.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := kadm.NewClient(kc).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = kadm.NewClient(kc).DeleteTopics(context.Background(), topic) })

			wrote := avroWitness(t, python, bootstrap, registry, topic)
			// A frame whose id no registry has (999).
			if err := kc.ProduceSync(ctx, &kgo.Record{Value: []byte{0, 0, 0, 0x03, 0xe7, 0x02, 'x'}}).FirstErr(); err != nil {
				t.Fatal(err)
			}

			var log decodedLog
			a.do("GET", "/api/topics/"+topic+"/partitions/0/log?from=0&limit=10", nil, http.StatusOK, &log)
			if len(log.Entries) != 4 {
				t.Fatalf("the log holds %d entries, want 4", len(log.Entries))
			}
			for i, order := range wrote.Orders {
				e := log.Entries[i]
				if e.Schema == nil || e.Schema.ID != wrote.SchemaID || e.Schema.Subject != topic+"-value" || e.Schema.Version != 1 || e.Schema.Type != "AVRO" {
					t.Errorf("offset %d's schema: %+v, want id %d, %s-value version 1, AVRO", i, e.Schema, wrote.SchemaID, topic)
				}
				if got, want := canonicalJSON(t, e.Decoded), canonicalJSON(t, order); got != want {
					t.Errorf("offset %d decodes to %s, the serializer wrote %s", i, got, want)
				}
				if e.Value == nil {
					t.Errorf("offset %d lost its raw bytes", i)
				}
			}
			if e := log.Entries[3]; e.DecodeProblem == nil || e.DecodeProblem.Key != "schema.unknownId" || e.Decoded != nil || e.Value == nil {
				t.Errorf("the frame with an unknown id: %+v", e)
			}

			// confluent-kafka's Protobuf serializer: a message holding one of
			// the file it imports (registered by the serializer under its own
			// subject, as a reference) and its nested one (message indexes
			// [0] and [0, 0]).
			pbTopic := a.name("prices-pb")
			if _, err := kadm.NewClient(kc).CreateTopic(ctx, 1, 1, nil, pbTopic); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = kadm.NewClient(kc).DeleteTopics(context.Background(), pbTopic) })
			var pb struct {
				SchemaID int `json:"schemaId"`
			}
			if out := registryClient(t, python, bootstrap, registry, pbTopic, "protobuf"); json.Unmarshal(out, &pb) != nil {
				t.Fatalf("registryclient.py protobuf printed %s", out)
			}
			log.Entries = nil // an entry's omitted fields must not keep the last topic's
			a.do("GET", "/api/topics/"+pbTopic+"/partitions/0/log?from=0&limit=10", nil, http.StatusOK, &log)
			for i, want := range []string{`{"cents":"1500","sku":"S-1","zone":{"zone_name":"EU"}}`, `{"level":3}`} {
				if i >= len(log.Entries) {
					t.Fatalf("the Protobuf topic holds %d entries", len(log.Entries))
				}
				e := log.Entries[i]
				if e.Schema == nil || e.Schema.ID != pb.SchemaID || e.Schema.Type != "PROTOBUF" || canonicalJSON(t, e.Decoded) != want {
					t.Errorf("Protobuf offset %d: schema %+v, decoded %s (%+v); want id %d PROTOBUF, %s", i, e.Schema, e.Decoded, e.DecodeProblem, pb.SchemaID, want)
				}
			}

			// confluent-kafka's JSON Schema serializer: the JSON, validated.
			jsTopic := a.name("events-json")
			if _, err := kadm.NewClient(kc).CreateTopic(ctx, 1, 1, nil, jsTopic); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = kadm.NewClient(kc).DeleteTopics(context.Background(), jsTopic) })
			var js struct {
				SchemaID int               `json:"schemaId"`
				Events   []json.RawMessage `json:"events"`
			}
			if out := registryClient(t, python, bootstrap, registry, jsTopic, "json"); json.Unmarshal(out, &js) != nil || len(js.Events) != 2 {
				t.Fatalf("registryclient.py json printed %s", out)
			}
			log.Entries = nil // an entry's omitted fields must not keep the last topic's
			a.do("GET", "/api/topics/"+jsTopic+"/partitions/0/log?from=0&limit=10", nil, http.StatusOK, &log)
			for i, want := range js.Events {
				if i >= len(log.Entries) {
					t.Fatalf("the JSON Schema topic holds %d entries", len(log.Entries))
				}
				e := log.Entries[i]
				if e.Schema == nil || e.Schema.ID != js.SchemaID || e.Schema.Type != "JSON" || e.DecodeProblem != nil || canonicalJSON(t, e.Decoded) != canonicalJSON(t, want) {
					t.Errorf("JSON Schema offset %d: schema %+v, decoded %s (%+v); want id %d JSON, %s", i, e.Schema, e.Decoded, e.DecodeProblem, js.SchemaID, want)
				}
			}

			// Search looks into the decoded values: a JSON path, and a
			// value's text across the topic.
			var found struct {
				Matches []struct {
					Offset int64 `json:"offset"`
				} `json:"matches"`
			}
			a.do("GET", "/api/topics/"+topic+"/partitions/0/search?path=note&q=gift", nil, http.StatusOK, &found)
			if len(found.Matches) != 1 || found.Matches[0].Offset != 1 {
				t.Errorf("a JSON path search of the decoded orders (note = gift): %+v, want offset 1", found.Matches)
			}
			var wide topicSearch
			// "total":42000 is only in the decoded JSON, never in Avro's bytes.
			a.do("GET", "/api/topics/"+topic+"/search?in=value&q="+url.QueryEscape(`"total":42000`), nil, http.StatusOK, &wide)
			if len(wide.Matches) != 1 || wide.Matches[0].Offset != 1 {
				t.Errorf("a topic-wide search of the decoded orders' JSON: %+v, want offset 1", wide.Matches)
			}

			chromium := chromiumPath(t)
			for _, size := range [][2]int{{1280, 720}, {1920, 1080}} {
				pg := openPage(t, a, chromium, size[0], size[1])
				pg.open("/topics/" + topic + "/partitions/0")
				if got := pg.text("schema-registry"); got != registry {
					t.Errorf("at %v the masthead names the registry %q, want %q", size, got, registry)
				}
				pg.wait("the log's cells", `cell(1) !== null`, 15*time.Second)
				pg.eval(`cell(1).click()`, nil)
				pg.openTabOf("details-list")
				pg.wait("the decoded order in Details", `(document.querySelector('[data-testid="details-decoded"]')?.textContent || '').includes('gift')`, 10*time.Second)
				var visible bool
				pg.eval(`(() => { const r = document.querySelector('[data-testid="details-decoded"]').getBoundingClientRect(); return r.height > 0 && r.top < innerHeight; })()`, &visible)
				if !visible {
					t.Errorf("at %v the decoded value is not on screen", size)
				}
				pg.click("table-toggle")
				pg.wait("the table's decoded order", `[...document.querySelectorAll('[data-testid="log-row"][data-offset="1"] [data-testid="row-value"] .tval')].some((v) => v.textContent.includes('"note":"gift"'))`, 10*time.Second)
				if size[0] == 1280 { // a tombstone for O-2, written once, named in the table
					if err := kc.ProduceSync(ctx, &kgo.Record{Key: []byte("O-2")}).FirstErr(); err != nil {
						t.Fatal(err)
					}
				}
				pg.wait("the tombstone named in the table", `(document.querySelector('[data-testid="log-row"][data-offset="4"] [data-testid="row-value"] .tval')?.textContent || '').startsWith('tombstone')`, 15*time.Second)
			}
		})
	}
}

// avroWritten is what registryclient.py wrote.
type avroWritten struct {
	SchemaID int               `json:"schemaId"`
	Orders   []json.RawMessage `json:"orders"`
}

// avroWitness runs scripts/py/registryclient.py: confluent-kafka's
// AvroSerializer registering its schema and writing three orders.
func avroWitness(t *testing.T, python, bootstrap, registry, topic string) avroWritten {
	t.Helper()
	out := registryClient(t, python, bootstrap, registry, topic)
	var w avroWritten
	if err := json.Unmarshal(out, &w); err != nil || len(w.Orders) != 3 {
		t.Fatalf("registryclient.py printed %s: %v", out, err)
	}
	return w
}

// registryClient runs scripts/py/registryclient.py and returns what it
// printed.
func registryClient(t *testing.T, python string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := filepath.Join(repoRoot(t), "scripts", "py", "registryclient.py")
	cmd := exec.CommandContext(ctx, python, append([]string{script}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("registryclient.py %v: %v\n%s%s", args, err, out, stderr.String())
	}
	return out
}

// canonicalJSON is raw re-encoded with sorted keys.
func canonicalJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Sprintf("not JSON (%v): %s", err, raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// decodedLog is a partition's log as the API answers it, with what the
// dashboard decoded of each value through the schema registry.
type decodedLog struct {
	Entries []struct {
		Offset int64 `json:"offset"`
		Schema *struct {
			ID      int    `json:"id"`
			Subject string `json:"subject"`
			Version int    `json:"version"`
			Type    string `json:"type"`
		} `json:"schema"`
		Decoded       json.RawMessage `json:"decoded"`
		DecodeProblem *struct {
			Key string `json:"key"`
		} `json:"decodeProblem"`
		Value         *string `json:"value"`
		ValueEncoding string  `json:"valueEncoding"`
	} `json:"entries"`
}
