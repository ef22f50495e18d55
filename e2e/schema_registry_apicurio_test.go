package e2e

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/offsetlab/offsetlab/internal/apicurio"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/testenv"
)

// TestSchemaRegistryApicurio: Apicurio Registry, a registry nobody here
// wrote, is the dashboard's --schema-registry, beside the embedded broker
// and beside real Kafka. A Go producer registers through Apicurio's
// Confluent-compatible API (franz-go's sr) an Address record, and a Person
// record whose home is an Address, referenced by subject and version; it
// writes two Persons, then an Address, in the wire format (magic byte 0,
// the id Apicurio gave, the Avro body). The log API shows each value
// decoded, named by its schema's id, subject, version and type: the
// Persons, read first, decode through the reference alone.
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

			topic := a.name("people-avro")
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

			written := writePeople(ctx, t, kc, reg.URL(), a.name("lab-address"), topic+"-value", a.suffix)
			var log struct {
				Entries []struct {
					Offset int64 `json:"offset"`
					Schema *struct {
						ID      int    `json:"id"`
						Subject string `json:"subject"`
						Version int    `json:"version"`
						Type    string `json:"type"`
					} `json:"schema"`
					Decoded       json.RawMessage `json:"decoded"`
					DecodeProblem any             `json:"decodeProblem"`
				} `json:"entries"`
			}
			a.do("GET", "/api/topics/"+topic+"/partitions/0/log?from=0&limit=10", nil, http.StatusOK, &log)
			if len(log.Entries) != len(written) {
				t.Fatalf("the log holds %d entries, want %d", len(log.Entries), len(written))
			}
			for i, want := range written {
				e := log.Entries[i]
				if e.Schema == nil || e.Schema.ID != want.id || e.Schema.Subject != want.subject || e.Schema.Version != 1 || e.Schema.Type != "AVRO" {
					t.Errorf("offset %d's schema: %+v, want id %d, %s version 1, AVRO", i, e.Schema, want.id, want.subject)
				}
				if got := canonicalJSON(t, e.Decoded); got != canonicalJSON(t, []byte(want.json)) || e.DecodeProblem != nil {
					t.Errorf("offset %d decodes to %s (%v), the producer wrote %s", i, got, e.DecodeProblem, want.json)
				}
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

// framedValue is one value writePeople wrote: the schema id it framed,
// the subject that id was registered under, and the value as JSON.
type framedValue struct {
	id      int
	subject string
	json    string
}

// writePeople registers Address under addressSubject and Person, which
// references it, under personSubject, in the registry at registryURL, and
// writes two Persons and an Address to kc's topic framed with their ids.
// The schemas' docs carry suffix: a registry gives the same content the
// same id, and the test's two brokers must not share one.
func writePeople(ctx context.Context, t *testing.T, kc *kgo.Client, registryURL, addressSubject, personSubject, suffix string) []framedValue {
	t.Helper()
	rc, err := sr.NewClient(sr.URLs(registryURL))
	if err != nil {
		t.Fatal(err)
	}
	address := `{"type":"record","name":"Address","namespace":"lab","doc":"` + suffix + `","fields":[{"name":"city","type":"string"}]}`
	person := `{"type":"record","name":"Person","namespace":"lab","doc":"` + suffix + `","fields":[{"name":"name","type":"string"},{"name":"home","type":"lab.Address"},{"name":"note","type":["null","string"],"default":null}]}`
	addr, err := rc.CreateSchema(ctx, addressSubject, sr.Schema{Schema: address})
	if err != nil {
		t.Fatalf("register %s: %v", addressSubject, err)
	}
	pers, err := rc.CreateSchema(ctx, personSubject, sr.Schema{Schema: person,
		References: []sr.SchemaReference{{Name: "lab.Address", Subject: addressSubject, Version: addr.Version}}})
	if err != nil {
		t.Fatalf("register %s referencing %s: %v", personSubject, addressSubject, err)
	}

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
		schema avro.Schema
		id     int
		value  any
		framed framedValue
	}{
		{persSchema, pers.ID, map[string]any{"name": "Ada", "home": map[string]any{"city": "London"}, "note": nil},
			framedValue{pers.ID, personSubject, `{"name":"Ada","home":{"city":"London"},"note":null}`}},
		{persSchema, pers.ID, map[string]any{"name": "Grace", "home": map[string]any{"city": "Arlington"}, "note": "gift"},
			framedValue{pers.ID, personSubject, `{"name":"Grace","home":{"city":"Arlington"},"note":"gift"}`}},
		{addrSchema, addr.ID, map[string]any{"city": "Seoul"}, framedValue{addr.ID, addressSubject, `{"city":"Seoul"}`}},
	}
	var out []framedValue
	for _, v := range values {
		body, err := avro.Marshal(v.schema, v.value)
		if err != nil {
			t.Fatal(err)
		}
		frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(v.id))
		if err := kc.ProduceSync(ctx, &kgo.Record{Value: append(frame, body...)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.framed)
	}
	return out
}
