#!/usr/bin/env bash
# Offset Lab: the Python environment used by tests that drive Kafka with a
# second, independent client (librdkafka through confluent-kafka, the client
# the seed lessons use). Creates or reuses the venv and prints its path.
#
#   scripts/python-venv.sh          -> prints e.g. /repo/.cache/venv
#   "$(scripts/python-venv.sh)/bin/python" my_check.py
#
# Idempotent: when the venv already has the pinned version it returns in a
# few milliseconds without starting pip.
#
# Environment: OFFSETLAB_CACHE (default <repo>/.cache), OFFSETLAB_VENV
# (default $OFFSETLAB_CACHE/venv), PYTHON (default python3).
set -euo pipefail

CONFLUENT_KAFKA_VERSION=2.15.1
# The Avro, Protobuf and JSON Schema serializers' own needs
# (confluent-kafka[avro,protobuf,json]), pinned: the Schema Registry tests
# write through them.
FASTAVRO_VERSION=1.13.1
PROTOBUF_VERSION=7.36.2
JSONSCHEMA_VERSION=4.26.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
venv="${OFFSETLAB_VENV:-${OFFSETLAB_CACHE:-$repo/.cache}/venv}"
stamp="$venv/.offsetlab-confluent-kafka-$CONFLUENT_KAFKA_VERSION-avro-$FASTAVRO_VERSION-protobuf-$PROTOBUF_VERSION-json-$JSONSCHEMA_VERSION"

if [[ -f "$stamp" && -x "$venv/bin/python" ]]; then
	echo "$venv"
	exit 0
fi

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if [[ ! -f "$stamp" || ! -x "$venv/bin/python" ]]; then
	if [[ ! -x "$venv/bin/python" ]]; then
		"${PYTHON:-python3}" -m venv "$venv" >&2
	fi
	"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
		"confluent-kafka[avro,protobuf,json]==$CONFLUENT_KAFKA_VERSION" "fastavro==$FASTAVRO_VERSION" \
		"protobuf==$PROTOBUF_VERSION" "jsonschema==$JSONSCHEMA_VERSION" >&2
	"$venv/bin/python" -c 'import confluent_kafka, sys; v = confluent_kafka.__version__; sys.exit(0 if v == sys.argv[1] else "confluent-kafka " + v + " installed, wanted " + sys.argv[1])' \
		"$CONFLUENT_KAFKA_VERSION" >&2
	rm -f "$venv"/.offsetlab-confluent-kafka-*
	touch "$stamp"
fi
echo "$venv"
