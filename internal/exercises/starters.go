package exercises

import (
	"strings"
	"text/template"
)

// Starter is starter code for one client, filled in with a student's
// address, credentials and names.
type Starter struct {
	// Client is "python" (confluent-kafka), "java" (Kafka's Java client),
	// "kcat" or "go" (franz-go).
	Client string `json:"client"`
	Code   string `json:"code"`
}

// starterData is what a starter template is filled with.
type starterData struct {
	Bootstrap, SecurityProtocol, SASLMechanism, Username, Password string
	Topic, Group, TransactionalID                                  string
	SASL                                                           bool
}

// Starters are e's starter code for a student of identity id (the
// teacher's page passes placeholders).
func (e Exercise) Starters(id Identity, n Names) []Starter {
	d := starterData{
		Bootstrap: id.Bootstrap, SecurityProtocol: id.SecurityProtocol, SASLMechanism: id.SASLMechanism,
		Username: id.Username, Password: id.Password,
		Topic: n.Topic, Group: n.Group, TransactionalID: n.TransactionalID,
		SASL: strings.HasPrefix(id.SecurityProtocol, "SASL"),
	}
	kind := starterKind(e.ID)
	var out []Starter
	for _, client := range []string{"python", "java", "kcat", "go"} {
		var b strings.Builder
		if err := starterTemplates.ExecuteTemplate(&b, client+"."+kind, d); err != nil {
			continue // every client has every kind; a missing one is left out
		}
		out = append(out, Starter{Client: client, Code: strings.TrimLeft(b.String(), "\n")})
	}
	return out
}

// starterKind is the starter code an exercise begins from.
func starterKind(id string) string {
	switch id {
	case "idempotent":
		return "idempotent"
	case "read-committed":
		return "consume"
	default:
		return "transaction"
	}
}

var starterTemplates = template.Must(template.New("starters").Parse(`
{{define "python.conf"}}from confluent_kafka import Consumer, Producer

conf = {
    "bootstrap.servers": "{{.Bootstrap}}",
    "security.protocol": "{{.SecurityProtocol}}",{{if .SASL}}
    "sasl.mechanism": "{{.SASLMechanism}}",
    "sasl.username": "{{.Username}}",
    "sasl.password": "{{.Password}}",{{end}}
}
topic = "{{.Topic}}"
{{end}}
{{define "python.idempotent"}}{{template "python.conf" .}}
p = Producer({**conf, "enable.idempotence": True})
for i in range(5):
    p.produce(topic, value=f"r{i}")
p.flush()
{{end}}
{{define "python.transaction"}}{{template "python.conf" .}}
p = Producer({**conf, "transactional.id": "{{.TransactionalID}}"})
p.init_transactions()
p.begin_transaction()
for v in ("a", "b", "c"):
    p.produce(topic, value=v)
p.commit_transaction()  # or p.flush(); p.abort_transaction()
{{end}}
{{define "python.consume"}}{{template "python.transaction" .}}
c = Consumer({**conf, "group.id": "{{.Group}}", "isolation.level": "read_committed",
              "auto.offset.reset": "earliest", "enable.auto.commit": False})
c.subscribe([topic])
while (m := c.poll(5)) is not None:
    print(m.offset(), m.value())
c.commit(asynchronous=False)  # the position: past the COMMIT marker
c.close()
{{end}}
{{define "java.conf"}}# client.properties
bootstrap.servers={{.Bootstrap}}
security.protocol={{.SecurityProtocol}}{{if .SASL}}
sasl.mechanism={{.SASLMechanism}}
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="{{.Username}}" password="{{.Password}}";{{end}}
{{end}}
{{define "java.idempotent"}}{{template "java.conf" .}}
# five lines, r0 … r4, then Ctrl-D:
kafka-console-producer.sh --bootstrap-server {{.Bootstrap}} --topic {{.Topic}} \
  --command-config client.properties --producer-property enable.idempotence=true
{{end}}
{{define "java.transaction"}}{{template "java.conf" .}}
// Java: props loaded from client.properties
props.put("transactional.id", "{{.TransactionalID}}");
props.put("key.serializer", StringSerializer.class.getName());
props.put("value.serializer", StringSerializer.class.getName());
try (var p = new KafkaProducer<String, String>(props)) {
    p.initTransactions();
    p.beginTransaction();
    for (var v : List.of("a", "b", "c")) p.send(new ProducerRecord<>("{{.Topic}}", v));
    p.commitTransaction(); // or p.abortTransaction()
}
{{end}}
{{define "java.consume"}}{{template "java.transaction" .}}
// then a consumer: group.id={{.Group}}, isolation.level=read_committed,
// auto.offset.reset=earliest, enable.auto.commit=false; poll, then
// consumer.commitSync(); // the position: past the COMMIT marker
{{end}}
{{define "kcat.conf"}}kcat -b {{.Bootstrap}} -X security.protocol={{.SecurityProtocol}}{{if .SASL}} \
  -X sasl.mechanisms={{.SASLMechanism}} -X sasl.username={{.Username}} -X sasl.password={{.Password}}{{end}}{{end}}
{{define "kcat.idempotent"}}printf 'r0\nr1\nr2\nr3\nr4\n' | {{template "kcat.conf" .}} \
  -X enable.idempotence=true -P -t {{.Topic}}
{{end}}
{{define "kcat.transaction"}}# kcat writes no transactions; read what read_committed receives:
{{template "kcat.conf" .}} \
  -X isolation.level=read_committed -C -t {{.Topic}} -e -f '%o %s\n'
{{end}}
{{define "kcat.consume"}}{{template "kcat.transaction" .}}{{end}}
{{define "go.conf"}}cl, err := kgo.NewClient(
	kgo.SeedBrokers("{{.Bootstrap}}"),{{if .SASL}}
	kgo.SASL(scram.Auth{User: "{{.Username}}", Pass: "{{.Password}}"}.AsSha256Mechanism()),{{end}}
	kgo.AllowAutoTopicCreation(),{{end}}
{{define "go.idempotent"}}{{template "go.conf" .}}
) // franz-go is idempotent by default
for i := range 5 {
	cl.ProduceSync(ctx, &kgo.Record{Topic: "{{.Topic}}", Value: []byte(fmt.Sprintf("r%d", i))})
}
{{end}}
{{define "go.transaction"}}{{template "go.conf" .}}
	kgo.TransactionalID("{{.TransactionalID}}"),
)
cl.BeginTransaction()
for _, v := range []string{"a", "b", "c"} {
	cl.ProduceSync(ctx, &kgo.Record{Topic: "{{.Topic}}", Value: []byte(v)})
}
cl.EndTransaction(ctx, kgo.TryCommit) // or kgo.TryAbort
{{end}}
{{define "go.consume"}}{{template "go.transaction" .}}
// then a consumer: kgo.ConsumerGroup("{{.Group}}"), kgo.ConsumeTopics("{{.Topic}}"),
// kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.DisableAutoCommit();
// PollFetches, then cl.CommitUncommittedOffsets(ctx)
{{end}}
`))
