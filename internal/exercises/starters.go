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
// teacher's page passes placeholders): one per client that has the
// exercise's kind (the share exercise: Java and Go only).
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
			continue // a client without the kind is left out
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
	case "share":
		return "share" // Java and Go only: confluent-kafka's share consumer is a preview
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
{{define "java.share"}}// ShareJobs.java, run with Kafka 4.3's client jars:
//   java -cp 'kafka_2.13-4.3.1/libs/*' ShareJobs.java
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

public class ShareJobs {
    public static void main(String[] args) {
        var props = new Properties();
        props.put("bootstrap.servers", "{{.Bootstrap}}");
        props.put("security.protocol", "{{.SecurityProtocol}}");{{if .SASL}}
        props.put("sasl.mechanism", "{{.SASLMechanism}}");
        props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"{{.Username}}\" password=\"{{.Password}}\";");{{end}}
        props.put("group.id", "{{.Group}}"); // your share group
        props.put("share.acknowledgement.mode", "explicit");
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        try (var consumer = new KafkaShareConsumer<String, String>(props)) {
            consumer.subscribe(List.of("{{.Topic}}"));
            var deadline = Instant.now().plusSeconds(60);
            for (int done = 0; done < 10 && Instant.now().isBefore(deadline); ) {
                for (var r : consumer.poll(Duration.ofSeconds(1))) {
                    done++;
                    System.out.println(r.offset() + " " + r.value());
                    if ("poison".equals(r.value())) {
                        consumer.acknowledge(r, AcknowledgeType.REJECT); // archived: never delivered again
                    } else {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT); // processed
                    }
                }
                consumer.commitSync(); // send the acknowledgements now
            }
        }
    }
}
{{end}}
{{define "go.share"}}cl, err := kgo.NewClient(
	kgo.SeedBrokers("{{.Bootstrap}}"),{{if .SASL}}
	kgo.SASL(scram.Auth{User: "{{.Username}}", Pass: "{{.Password}}"}.AsSha256Mechanism()),{{end}}
	kgo.ShareGroup("{{.Group}}"), // your share group
	kgo.ConsumeTopics("{{.Topic}}"),
)
if err != nil {
	panic(err)
}
defer cl.Close()
for done := 0; done < 10; {
	for _, r := range cl.PollFetches(ctx).Records() {
		done++
		fmt.Println(r.Offset, string(r.Value))
		if string(r.Value) == "poison" {
			r.Ack(kgo.AckReject) // archived: never delivered again
			continue
		}
		r.Ack(kgo.AckAccept) // processed
	}
}
cl.FlushAcks(ctx) // send the acknowledgements now
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
