package kafkaconfig

import "strings"

// keyClass says what Load does with a setting.
type keyClass int

const (
	unknownKey     keyClass = iota // not a client setting we know: refused
	appliedKey                     // read and applied
	ignoredKey                     // accepted and not applied (listed by Describe)
	unsupportedKey                 // a real client setting Offset Lab cannot honour: refused
)

// classify says what Load does with key. The lists are the documentation
// of what a --command-config file may hold:
//
//   - applied: how to reach and authenticate to the cluster, in Java's and
//     librdkafka's spellings (see the package doc);
//   - ignored: the common producer, consumer and client tuning keys of both
//     clients (acks, group.id, request.timeout.ms, …): Offset Lab decides
//     those per action itself, and their presence changes nothing about how
//     it connects; Kerberos and OAuth settings, which are inert unless
//     sasl.mechanism asks for GSSAPI or OAUTHBEARER (refused on their own);
//     and TLS tuning Go's TLS stack does for itself (protocol versions,
//     cipher suites, Java's key and trust manager algorithms);
//   - unsupported: settings that plug in code or crypto Offset Lab cannot run
//     (Java callback handler and engine classes, OpenSSL engines and
//     providers, CRL files);
//   - unknown: everything else, most often a typo.
func classify(key string) keyClass {
	if c, ok := exactKeys(key); ok {
		return c
	}
	for _, p := range []string{"sasl.kerberos.", "sasl.oauthbearer.", "sasl.login.refresh.", "sasl.login.retry.backoff.", "metrics.", "socket.connection.setup.timeout."} {
		if strings.HasPrefix(key, p) {
			return ignoredKey
		}
	}
	return unknownKey
}

func exactKeys(key string) (keyClass, bool) {
	switch key {
	// how to connect: both spellings
	case "bootstrap.servers", "metadata.broker.list", "client.id", "security.protocol",
		"sasl.mechanism", "sasl.mechanisms", "sasl.jaas.config", "sasl.username", "sasl.password",
		"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
		"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password",
		"ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.key.password",
		"ssl.endpoint.identification.algorithm",
		"ssl.ca.location", "ssl.ca.pem", "ssl.certificate.location", "ssl.certificate.pem",
		"ssl.key.location", "ssl.key.pem", "enable.ssl.certificate.verification",
		// the Schema Registry beside the cluster, as the serializers spell it
		"schema.registry.url", "basic.auth.user.info", "basic.auth.credentials.source",
		"schema.registry.basic.auth.user.info", "schema.registry.basic.auth.credentials.source":
		return appliedKey, true

	// plug in code or crypto we cannot run
	case "sasl.login.class", "sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
		"ssl.engine.factory.class", "ssl.engine.location", "ssl.engine.id", "ssl_engine_callback_data",
		"ssl.providers", "ssl.crl.location":
		return unsupportedKey, true

	// TLS tuning Go does itself
	case "ssl.protocol", "ssl.enabled.protocols", "ssl.cipher.suites", "ssl.keymanager.algorithm",
		"ssl.trustmanager.algorithm", "ssl.secure.random.implementation", "ssl.provider", "security.providers",
		"ssl.curves.list", "ssl.sigalgs.list", "ssl.ca.certificate.stores",
		"sasl.login.connect.timeout.ms", "sasl.login.read.timeout.ms", "enable.sasl.oauthbearer.unsecure.jwt",
		// client, producer and consumer tuning (Java)
		"acks", "enable.idempotence", "linger.ms", "batch.size", "compression.type", "retries",
		"retry.backoff.ms", "retry.backoff.max.ms", "delivery.timeout.ms", "max.in.flight.requests.per.connection",
		"transactional.id", "transaction.timeout.ms", "buffer.memory", "max.block.ms", "max.request.size",
		"partitioner.class", "partitioner.ignore.keys", "partitioner.adaptive.partitioning.enable",
		"key.serializer", "value.serializer", "key.deserializer", "value.deserializer",
		"group.id", "group.instance.id", "group.protocol", "group.remote.assignor", "partition.assignment.strategy",
		"auto.offset.reset", "enable.auto.commit", "auto.commit.interval.ms", "isolation.level",
		"session.timeout.ms", "heartbeat.interval.ms", "max.poll.records", "max.poll.interval.ms",
		"fetch.min.bytes", "fetch.max.bytes", "fetch.max.wait.ms", "max.partition.fetch.bytes",
		"check.crcs", "exclude.internal.topics", "allow.auto.create.topics", "client.rack",
		"request.timeout.ms", "default.api.timeout.ms", "metadata.max.age.ms", "metadata.max.idle.ms",
		"connections.max.idle.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms",
		"receive.buffer.bytes", "send.buffer.bytes", "client.dns.lookup", "interceptor.classes",
		"metric.reporters", "auto.include.jmx.reporter", "enable.metrics.push",
		// client, producer and consumer tuning (librdkafka)
		"debug", "log_level", "log.connection.close", "api.version.request", "api.version.request.timeout.ms",
		"api.version.fallback.ms", "broker.version.fallback", "socket.timeout.ms", "socket.keepalive.enable",
		"socket.nagle.disable", "statistics.interval.ms", "message.timeout.ms", "message.max.bytes",
		"queue.buffering.max.ms", "queue.buffering.max.messages", "queue.buffering.max.kbytes",
		"batch.num.messages", "compression.codec", "enable.auto.offset.store", "enable.partition.eof",
		"topic.metadata.refresh.interval.ms", "fetch.wait.max.ms", "fetch.message.max.bytes",
		"fetch.error.backoff.ms", "queued.min.messages", "queued.max.messages.kbytes",
		"client.software.name", "client.software.version":
		return ignoredKey, true
	}
	return unknownKey, false
}

// knownKeys lists the exact keys a typo is compared with.
func knownKeys() []string {
	return []string{
		"bootstrap.servers", "client.id", "security.protocol", "sasl.mechanism", "sasl.mechanisms",
		"sasl.jaas.config", "sasl.username", "sasl.password", "ssl.truststore.type", "ssl.truststore.location",
		"ssl.truststore.password", "ssl.truststore.certificates", "ssl.keystore.type", "ssl.keystore.location",
		"ssl.keystore.password", "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.key.password",
		"ssl.endpoint.identification.algorithm", "ssl.ca.location", "ssl.ca.pem", "ssl.certificate.location",
		"ssl.certificate.pem", "ssl.key.location", "ssl.key.pem", "enable.ssl.certificate.verification",
	}
}

// suggest returns the known key closest to key when it is a likely typo
// (an edit distance of at most 2), else "".
func suggest(key string) string {
	best, bestDist := "", 3
	for _, k := range knownKeys() {
		if d := editDistance(key, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// secretKey reports whether key's value must never appear anywhere.
func secretKey(key string) bool {
	switch key {
	case "sasl.jaas.config", "sasl.password", "ssl.truststore.password", "ssl.keystore.password",
		"ssl.key.password", "ssl.keystore.key", "ssl.key.pem":
		return true
	}
	return false
}
