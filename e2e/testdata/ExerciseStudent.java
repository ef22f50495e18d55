// A student doing a hands-on exercise with Kafka's own Java client: the Go
// tests compile it with javac against kafka-clients, run it with the
// student's identity and a run name, and assert what the grader says.
//
// java ExerciseStudent BOOTSTRAP PROTOCOL MECHANISM USER PASSWORD TOPIC TXN_ID GROUP RUN
// RUN: commit | commit-aborted | zombie | read-committed
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ExerciseStudent {
    public static void main(String[] a) throws Exception {
        String topic = a[5], txnId = a[6], group = a[7], run = a[8];
        Properties base = new Properties();
        base.put("bootstrap.servers", a[0]);
        base.put("security.protocol", a[1]);
        if (!a[3].isEmpty()) {
            base.put("sasl.mechanism", a[2]);
            base.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + a[3] + "\" password=\"" + a[4] + "\";");
        }
        switch (run) {
            case "commit", "commit-aborted" -> {
                try (var p = producer(base, txnId)) {
                    p.initTransactions();
                    p.beginTransaction();
                    for (var v : List.of("a", "b", "c")) p.send(new ProducerRecord<>(topic, v));
                    if (run.equals("commit")) p.commitTransaction();
                    else { p.flush(); p.abortTransaction(); } // unflushed records are dropped at abort
                }
            }
            case "zombie" -> {
                var first = producer(base, txnId);
                first.initTransactions();
                first.beginTransaction();
                first.send(new ProducerRecord<>(topic, "zombie")).get();
                try (var second = producer(base, txnId)) {
                    second.initTransactions(); // fences the first, aborts its transaction
                    second.beginTransaction();
                    second.send(new ProducerRecord<>(topic, "successor"));
                    second.commitTransaction();
                }
                String refused = "none";
                try {
                    first.send(new ProducerRecord<>(topic, "late")).get();
                    first.commitTransaction();
                } catch (Exception e) {
                    Throwable c = e.getCause() != null ? e.getCause() : e;
                    refused = (e instanceof ProducerFencedException || c instanceof ProducerFencedException
                        || e instanceof InvalidProducerEpochException || c instanceof InvalidProducerEpochException) ? "fenced" : c.toString();
                }
                first.close(Duration.ofSeconds(5));
                System.out.println("{\"late\":\"" + refused + "\"}");
                return;
            }
            case "read-committed" -> {
                try (var p = producer(base, txnId)) {
                    p.initTransactions();
                    p.beginTransaction();
                    for (var v : List.of("a", "b")) p.send(new ProducerRecord<>(topic, v));
                    p.commitTransaction();
                }
                Properties c = (Properties) base.clone();
                c.put("group.id", group);
                c.put("isolation.level", "read_committed");
                c.put("auto.offset.reset", "earliest");
                c.put("enable.auto.commit", "false");
                c.put("key.deserializer", StringDeserializer.class.getName());
                c.put("value.deserializer", StringDeserializer.class.getName());
                try (var consumer = new KafkaConsumer<String, String>(c)) {
                    consumer.subscribe(List.of(topic));
                    int got = 0;
                    long deadline = System.currentTimeMillis() + 30_000;
                    while (got < 2 && System.currentTimeMillis() < deadline) got += consumer.poll(Duration.ofMillis(500)).count();
                    consumer.poll(Duration.ofMillis(500));
                    consumer.commitSync(); // the position: past the COMMIT marker
                }
            }
            default -> throw new IllegalArgumentException("unknown run " + run);
        }
        System.out.println("{}");
    }

    static KafkaProducer<String, String> producer(Properties base, String txnId) {
        Properties p = (Properties) base.clone();
        p.put("transactional.id", txnId);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        return new KafkaProducer<>(p);
    }
}
