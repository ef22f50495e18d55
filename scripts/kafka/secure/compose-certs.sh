#!/usr/bin/env bash
# Offset Lab, compose.secure.yaml step "certs" (runs once, as root, in the
# apache/kafka:4.3.1 image, before the broker): random passwords, a CA and
# the broker's certificate (SANs kafka, localhost, 127.0.0.1) made with
# keytool, the broker's PKCS12 keystore and JAAS file, and the users'
# client properties files. A second run finds them and changes nothing.
#
# Writes into $SECRETS_DIR (the broker's volume, /etc/kafka/secrets, owned
# by the image's appuser): server.p12, keystore.pass, ca.pem,
# broker_jaas.conf, broker-client.properties, passwords.env.
# Writes into $OUT_DIR (./secure on the host, owned by that directory's
# owner): ca.pem, admin.properties, reader.properties,
# reader-plain.properties, reader.librdkafka.properties, which name the
# host listener localhost:$HOST_PORT and the CA as $CA_PATH (relative:
# clients run from the repo root).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SECRETS="${SECRETS_DIR:-/etc/kafka/secrets}"
OUT="${OUT_DIR:-/out}"
HOST_PORT="${HOST_PORT:-9544}"
CA_PATH="${CA_PATH:-secure/ca.pem}"
BROKER_USER="${BROKER_USER:-appuser}"
# shellcheck source-path=SCRIPTDIR source=client-files.sh
source "$HERE/client-files.sh"

if [[ -s "$SECRETS/passwords.env" && -s "$SECRETS/server.p12" && -s "$OUT/reader.properties" ]]; then
	echo "certs: $SECRETS and $OUT already hold the cluster's certificates and passwords"
	exit 0
fi
mkdir -p "$SECRETS" "$OUT"
umask 077
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

random_password() { head -c 18 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n'; }
BROKER_PASSWORD="$(random_password)"
ADMIN_PASSWORD="$(random_password)"
READER_PASSWORD="$(random_password)"
KEYSTORE_PASSWORD="$(random_password)"
CA_PASSWORD="$(random_password)" # the CA's own store lives in $work only
export KEYSTORE_PASSWORD CA_PASSWORD # keytool reads them with -storepass:env, never from argv

san="SAN=dns:kafka,dns:localhost,ip:127.0.0.1"
kt() { keytool "$@" 2>>"$work/keytool.log" || { cat "$work/keytool.log" >&2; exit 1; }; }
kt -genkeypair -alias ca -keyalg EC -groupname secp256r1 -validity 3650 \
	-dname "CN=Offset Lab compose CA,O=Offset Lab" -ext bc:c -ext KU=keyCertSign,cRLSign \
	-keystore "$work/ca.p12" -storetype PKCS12 -storepass:env CA_PASSWORD
kt -exportcert -rfc -alias ca -keystore "$work/ca.p12" -storepass:env CA_PASSWORD -file "$work/ca.pem"
kt -genkeypair -alias broker -keyalg EC -groupname secp256r1 -validity 825 -dname "CN=kafka,O=Offset Lab" \
	-keystore "$work/server.p12" -storetype PKCS12 -storepass:env KEYSTORE_PASSWORD
kt -certreq -alias broker -keystore "$work/server.p12" -storepass:env KEYSTORE_PASSWORD -file "$work/server.csr"
kt -gencert -alias ca -keystore "$work/ca.p12" -storepass:env CA_PASSWORD -infile "$work/server.csr" \
	-outfile "$work/server.crt" -rfc -validity 825 -ext "$san" -ext KU=digitalSignature -ext EKU=serverAuth,clientAuth
kt -importcert -noprompt -alias ca -file "$work/ca.pem" -keystore "$work/server.p12" -storepass:env KEYSTORE_PASSWORD
kt -importcert -alias broker -file "$work/server.crt" -keystore "$work/server.p12" -storepass:env KEYSTORE_PASSWORD

cp "$work/server.p12" "$work/ca.pem" "$SECRETS/"
printf '%s\n' "$KEYSTORE_PASSWORD" >"$SECRETS/keystore.pass"
printf 'BROKER_PASSWORD=%s\nADMIN_PASSWORD=%s\nREADER_PASSWORD=%s\n' \
	"$BROKER_PASSWORD" "$ADMIN_PASSWORD" "$READER_PASSWORD" >"$SECRETS/passwords.env"
write_broker_jaas "$SECRETS/broker_jaas.conf" "$BROKER_PASSWORD" "$ADMIN_PASSWORD" "$READER_PASSWORD"
# the broker's own user, PLAIN over the in-network listener: for the
# healthcheck and the "users" step
{
	echo "security.protocol=SASL_SSL"
	echo "sasl.mechanism=PLAIN"
	echo "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" password=\"$BROKER_PASSWORD\";"
	echo "ssl.truststore.type=PEM"
	echo "ssl.truststore.location=$SECRETS/ca.pem"
} >"$SECRETS/broker-client.properties"
if id "$BROKER_USER" >/dev/null 2>&1; then chown "$BROKER_USER" "$SECRETS"/*; fi

cp "$work/ca.pem" "$OUT/ca.pem"
chmod 644 "$OUT/ca.pem"
write_client_files "$OUT" "localhost:$HOST_PORT" "$CA_PATH" "$ADMIN_PASSWORD" "$READER_PASSWORD" \
	"compose.secure.yaml's cluster (its SCRAM users exist once the \"users\" step has run)"
owner="$(stat -c %u:%g "$OUT")"
chown "$owner" "$OUT"/ca.pem "$OUT"/*.properties
if [[ "$owner" == 0:0 ]]; then
	echo "certs: $OUT belongs to root, and so do the files in it; create it yourself first (mkdir -p secure) to own them" >&2
fi
echo "certs: made a CA, the broker's keystore and random passwords; client files in $OUT"
