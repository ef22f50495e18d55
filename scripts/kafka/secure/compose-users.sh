#!/usr/bin/env bash
# Offset Lab, compose.secure.yaml step "users" (runs once the broker is
# healthy, in the apache/kafka:4.3.1 image): the SCRAM-SHA-512 credentials
# of admin and reader (kafka-configs, passwords read from a file, never from
# argv) and the reader's ACLs from reader.acls (kafka-acls, one call per
# resource). It logs in as the broker's own user (a super user) with PLAIN.
# Idempotent: credentials are set again, existing ACLs are kept.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SECRETS="${SECRETS_DIR:-/etc/kafka/secrets}"
BOOTSTRAP="${BOOTSTRAP:-kafka:9092}"
BIN="${KAFKA_BIN:-/opt/kafka/bin}"
ACLS="${ACLS:-/offsetlab-settings/reader.acls}"
CONFIG="${CLIENT_CONFIG:-$SECRETS/broker-client.properties}"
export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx128m}"

# shellcheck disable=SC1091
source "$SECRETS/passwords.env"
umask 077
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for user in admin reader; do
	var="${user^^}_PASSWORD"
	printf 'SCRAM-SHA-512=password=%s\n' "${!var}" >"$work/$user.scram"
	"$BIN/kafka-configs.sh" --bootstrap-server "$BOOTSTRAP" --command-config "$CONFIG" --alter \
		--entity-type users --entity-name "$user" --add-config-file "$work/$user.scram"
done

# reader.acls: RESOURCE_TYPE NAME PATTERN_TYPE OPERATION per line
declare -A ops
declare -a order
while read -r rtype name pattern op _; do
	[[ -n "${rtype:-}" ]] || continue
	k="$rtype $name $pattern"
	[[ -n "${ops[$k]:-}" ]] || order+=("$k")
	ops[$k]+=" --operation $op"
done < <(sed -e 's/#.*//' "$ACLS")
for k in "${order[@]}"; do
	read -r rtype name pattern <<<"$k"
	case "$rtype" in
	Topic) flag=--topic ;;
	Group) flag=--group ;;
	TransactionalId) flag=--transactional-id ;;
	*) echo "users: $ACLS: unknown resource type $rtype" >&2; exit 1 ;;
	esac
	# shellcheck disable=SC2086
	"$BIN/kafka-acls.sh" --bootstrap-server "$BOOTSTRAP" --command-config "$CONFIG" --add \
		--allow-principal User:reader ${ops[$k]} "$flag" "$name" --resource-pattern-type "${pattern,,}"
done
echo "users: admin and reader have SCRAM-SHA-512 credentials; reader has the ACLs of $(basename "$ACLS")"
