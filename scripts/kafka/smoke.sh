#!/usr/bin/env bash
# Offset Lab: end-to-end check of the local Kafka harness against real
# Apache Kafka 4.3.1, with Kafka's own tools and with confluent-kafka.
#
#   scripts/kafka/smoke.sh            # ~1 minute once the jars and venv exist
#
# single: topic + console produce/consume, a transactional producer that
#         commits and aborts (transaction state log RF 1 / min ISR 1)
# triple: three live brokers, transactions on RF 3 / min ISR 2, a topic with
#         RF 3 and min.insync.replicas=2 where acks=all fails with
#         NOT_ENOUGH_REPLICAS once nodes 2 and 3 are stopped and works again
#         after they are started (seed 002)
# Also checks compose.yaml / compose.triple.yaml / compose.secure.yaml against
# the harness settings.
# Prints start/stop times and each JVM's RSS. Leaves no JVM behind.
# OFFSETLAB_SMOKE_KEEP=1 keeps the work dirs (server logs) after a success.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
H="$HERE/harness.sh"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/offsetlab-smoke.XXXXXX")"
SINGLE="$WORK/single"
TRIPLE="$WORK/triple"
PROBE=(python3 "$HERE/kprobe.py")

cleanup() {
	local rc=$?
	for d in "$SINGLE" "$TRIPLE"; do
		if [[ -f "$d/cluster.env" ]]; then "$H" stop "$d" >/dev/null 2>&1 || true; fi
	done
	if [[ $rc -ne 0 ]]; then
		echo "smoke: FAILED (rc=$rc); logs kept in $WORK" >&2
	elif [[ -n "${OFFSETLAB_SMOKE_KEEP:-}" ]]; then
		echo "smoke: logs kept in $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
step() { echo; echo "== $*"; }
rss_of() {
	local d="$1" n pid
	while read -r n pid; do
		printf 'node %s %s MiB  ' "$n" "$(($(ps -o rss= -p "$pid") / 1024))"
	done <"$d/pids"
	echo
}
timed() { # timed LABEL CMD...: run, print elapsed ms
	local t0 rc=0
	t0="$(now_ms)"
	"${@:2}" || rc=$?
	echo "TIME $1: $(($(now_ms) - t0)) ms" >&2
	return $rc
}

step "fetch + venv"
timed fetch "$H" fetch
VENV="$("$REPO/scripts/python-venv.sh")"
PY="$VENV/bin/python"

step "compose files vs harness settings"
python3 "$HERE/check_compose.py" "$REPO/compose.yaml" single
python3 "$HERE/check_compose.py" "$REPO/compose.triple.yaml" triple
python3 "$HERE/check_compose.py" "$REPO/compose.secure.yaml" secure

step "single: start"
timed "start single" "$H" start single "$SINGLE" >/dev/null
B="$(cat "$SINGLE/bootstrap")"
echo "bootstrap $B"
sleep 2
echo "RSS single: $(rss_of "$SINGLE")"
"$H" tool topics --bootstrap-server "$B" --create --topic orders --partitions 1
printf 'O-1 2x15000\nO-2 1x42000\nO-3 3x9000\n' | "$H" tool console-producer --bootstrap-server "$B" --topic orders
got="$("$H" tool console-consumer --bootstrap-server "$B" --topic orders --from-beginning --max-messages 3 --timeout-ms 20000 2>/dev/null)"
echo "$got"
[[ "$got" == $'O-1 2x15000\nO-2 1x42000\nO-3 3x9000' ]] || { echo "console round trip failed" >&2; exit 1; }
"$H" tool topics --bootstrap-server "$B" --create --topic txn-check --partitions 1
"$PY" "$HERE/smoke_client.py" txn "$B" txn-check
"$H" tool topics --bootstrap-server "$B" --describe --topic __transaction_state | head -1
echo "RSS single after traffic: $(rss_of "$SINGLE")"
timed "stop single" "$H" stop "$SINGLE"

step "triple: start"
timed "start triple" "$H" start triple "$TRIPLE" >/dev/null
B="$(cat "$TRIPLE/bootstrap")"
P1="${B%%,*}"
echo "bootstrap $B"
"$H" status "$TRIPLE"
sleep 2
echo "RSS triple: $(rss_of "$TRIPLE")"
"$H" tool topics --bootstrap-server "$B" --create --topic txn-check --partitions 1
"$PY" "$HERE/smoke_client.py" txn "$B" txn-check
"$H" tool topics --bootstrap-server "$B" --describe --topic __transaction_state | head -1
# replicas 1,2,3 with 1 preferred: node 1 leads, 2 and 3 follow (the seed
# stops the two followers)
"$H" tool topics --bootstrap-server "$B" --create --topic reliable-orders \
	--replica-assignment 1:2:3 --config min.insync.replicas=2
"$H" tool topics --bootstrap-server "$B" --describe --topic reliable-orders
"$PY" "$HERE/smoke_client.py" acks-all "$B" reliable-orders ok

step "triple: stop nodes 2 and 3"
timed "stop-node 2" "$H" stop-node "$TRIPLE" 2
timed "stop-node 3" "$H" stop-node "$TRIPLE" 3
"$H" status "$TRIPLE" || echo "(status exit $? = some nodes down, as intended)"
"${PROBE[@]}" meta "$P1" reliable-orders
"$PY" "$HERE/smoke_client.py" acks-all "$B" reliable-orders NOT_ENOUGH_REPLICAS

step "triple: start nodes 2 and 3 again"
timed "start-node 2" "$H" start-node "$TRIPLE" 2
timed "start-node 3" "$H" start-node "$TRIPLE" 3
t0="$(now_ms)"
deadline=$((t0 + 60000))
until "${PROBE[@]}" meta "$P1" reliable-orders | grep -q '"isr": \[1, 2, 3\]'; do
	(($(now_ms) < deadline)) || { echo "ISR did not grow back to 1,2,3" >&2; exit 1; }
	sleep 0.2
done
echo "TIME ISR back to 1,2,3 after start-node 3: $(($(now_ms) - t0)) ms"
"$PY" "$HERE/smoke_client.py" acks-all "$B" reliable-orders ok
echo "RSS triple after traffic: $(rss_of "$TRIPLE")"
timed "stop triple" "$H" stop "$TRIPLE"

step "no JVM left behind"
if pgrep -f -- "$WORK/" >/dev/null; then
	pgrep -af -- "$WORK/" >&2
	echo "JVMs left behind" >&2
	exit 1
fi
echo "smoke: OK"
