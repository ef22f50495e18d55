# shellcheck shell=bash
# Offset Lab: the client properties files of compose.secure.yaml's cluster
# (its certs step), as internal/localkafka/secure.go writes them for the
# secure shape without Docker. Sourced, not run. Passwords go only into files made with umask
# 077; nothing is printed.
#
#   write_client_files OUT_DIR BOOTSTRAP CA_PEM_PATH ADMIN_PASSWORD READER_PASSWORD [WHAT]
#
# OUT_DIR receives admin.properties, reader.properties (Java spelling,
# SCRAM-SHA-512), reader-plain.properties (Java spelling, PLAIN) and
# reader.librdkafka.properties (librdkafka's spelling, SCRAM-SHA-512);
# CA_PEM_PATH is how those files name the CA certificate (absolute, or
# relative to where the client runs). WHAT names the cluster in the
# files' first comment line.

# java_client_props USER PASSWORD MECHANISM LOGIN_MODULE BOOTSTRAP CA_PEM_PATH WHAT
java_client_props() {
	cat <<-EOF
	# Offset Lab: user $1 of $7
	# (kafka-*.sh --command-config FILE, go run ./cmd/server --command-config FILE)
	bootstrap.servers=$5
	security.protocol=SASL_SSL
	sasl.mechanism=$3
	sasl.jaas.config=org.apache.kafka.common.security.$4 required username="$1" password="$2";
	ssl.truststore.type=PEM
	ssl.truststore.location=$6
	EOF
}

write_client_files() {
	local out="$1" bs="$2" ca="$3" admin_pw="$4" reader_pw="$5" what="${6:-a secure Kafka cluster}"
	(
		umask 077
		java_client_props admin "$admin_pw" SCRAM-SHA-512 scram.ScramLoginModule "$bs" "$ca" "$what" >"$out/admin.properties"
		java_client_props reader "$reader_pw" SCRAM-SHA-512 scram.ScramLoginModule "$bs" "$ca" "$what" >"$out/reader.properties"
		java_client_props reader "$reader_pw" PLAIN plain.PlainLoginModule "$bs" "$ca" "$what" >"$out/reader-plain.properties"
		cat >"$out/reader.librdkafka.properties" <<-EOF
		# Offset Lab: user reader of $what, in librdkafka's
		# spelling (kcat -F FILE, confluent-kafka, go run ./cmd/server --command-config FILE)
		bootstrap.servers=$bs
		security.protocol=SASL_SSL
		sasl.mechanisms=SCRAM-SHA-512
		sasl.username=reader
		sasl.password=$reader_pw
		ssl.ca.location=$ca
		EOF
	)
}

# write_broker_jaas FILE BROKER_PASSWORD ADMIN_PASSWORD READER_PASSWORD: the
# broker's JAAS file (given to its JVM with -Djava.security.auth.login.config).
# PLAIN users are checked against it; SCRAM users live in the cluster
# metadata. The broker also logs in to the controller and to itself with
# the username/password of its PlainLoginModule.
write_broker_jaas() {
	(
		umask 077
		cat >"$1" <<-EOF
		KafkaServer {
		  org.apache.kafka.common.security.plain.PlainLoginModule required
		    username="broker" password="$2"
		    user_broker="$2" user_admin="$3" user_reader="$4";
		  org.apache.kafka.common.security.scram.ScramLoginModule required;
		};
		EOF
	)
}
