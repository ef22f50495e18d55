#!/usr/bin/env bash
# Offset Lab: a local, real Apache Kafka 4.3.1 (KRaft) without Docker.
#
# The jars come from Maven Central (scripts/kafka/pom.xml); brokers run as
# plain `java -cp '<libs>/*' kafka.Kafka server.properties` processes that
# listen on 127.0.0.1 only. The broker settings mirror compose.yaml (shape
# "single", seed 000), compose.triple.yaml (shape "triple", seed 002) and
# compose.secure.yaml (shape "secure": "single" behind TLS, SASL and ACLs).
#
# Usage: scripts/kafka/harness.sh COMMAND ...
#   fetch                      resolve the Kafka jars into the cache (Maven
#                              Central); a no-op when they are already there
#   props single|triple|secure [N|shared]
#                              print the server.properties node N (default 1)
#                              would get, without starting anything; "shared"
#                              prints only the cluster-wide settings that must
#                              equal the KAFKA_* environment of the compose file
#   start single|triple|secure DIR
#                              format (first time) and start a cluster in DIR,
#                              wait until every broker serves metadata, print
#                              the bootstrap servers as the last stdout line and
#                              write them to DIR/bootstrap. A DIR that already
#                              holds a stopped cluster is restarted as it was.
#                              "secure" is one node whose only client listener
#                              is SASL_SSL (SCRAM-SHA-512 and PLAIN) with ACLs;
#                              see "The secure shape" below.
#   stop DIR                   stop every node (SIGTERM, then SIGKILL after
#                              $OFFSETLAB_KAFKA_STOP_TIMEOUT s)
#   stop-node DIR N [--kill]   stop one node (SIGTERM: controlled shutdown;
#                              --kill: SIGKILL, a crash) and wait until its
#                              process is gone
#   start-node DIR N           start one node again (same config and data) and
#                              wait until it serves metadata
#   status DIR                 one line per node; exit 0 when all nodes serve,
#                              3 when some are down
#   tool NAME [ARGS...]        run a Kafka command line tool from the cache:
#                              topics, console-producer, console-consumer,
#                              consumer-groups, transactions, get-offsets,
#                              broker-api-versions, metadata-quorum, dump-log,
#                              delete-records, storage, or a main class name
#
# Environment:
#   OFFSETLAB_CACHE                 cache root (default <repo>/.cache)
#   OFFSETLAB_KAFKA_LIBS            jar dir (default $OFFSETLAB_CACHE/kafka-4.3.1/libs)
#   OFFSETLAB_KAFKA_PORTS           client ports, comma-separated, one per node
#                                   (default: free ports picked at start)
#   OFFSETLAB_KAFKA_CONTROLLER_PORTS controller ports, likewise
#   OFFSETLAB_KAFKA_EXTRA_PROPS     extra broker settings, "k=v;k=v", appended to
#                                   every node's server.properties when DIR is
#                                   first formatted (a later line wins)
#   OFFSETLAB_KAFKA_HEAP            default "-Xmx384m -Xms128m"
#   OFFSETLAB_KAFKA_JVM_OPTS        extra JVM flags for the brokers
#   OFFSETLAB_KAFKA_START_TIMEOUT   seconds to wait for brokers (default 120)
#   OFFSETLAB_KAFKA_STOP_TIMEOUT    seconds before SIGKILL (default 30)
#   OFFSETLAB_KAFKA_NOQUORUM_STOP_TIMEOUT  the same when at most 1 of 3 nodes
#                                   runs, i.e. no controller can answer a
#                                   controlled shutdown (default 3)
#   OFFSETLAB_KAFKA_CDS=0           do not use/create the class data sharing
#                                   archive (see cds_opts; on by default)
#   OFFSETLAB_KAFKA_WATCH_PID       if set at start: a watchdog stops the
#                                   cluster when this process exits (pass the
#                                   Go test binary's pid so nothing outlives it)
#   JAVA_HOME, MVN                  java and maven to use
#
# The secure shape (start secure DIR), for clients that must authenticate:
#   listener SASL_SSL://127.0.0.1:PORT   TLS 1.2/1.3 with a server certificate
#                                   for 127.0.0.1 and localhost signed by a CA
#                                   made for DIR (openssl, at the first start);
#                                   SASL mechanisms SCRAM-SHA-512 and PLAIN
#   listener CONTROLLER (loopback)  SASL_PLAINTEXT, PLAIN, user "broker"
#   StandardAuthorizer, allow.everyone.if.no.acl.found=false,
#   super.users User:broker (the broker itself) and User:admin; User:reader
#   gets exactly the ALLOW bindings of scripts/kafka/secure/reader.acls
#   (DESCRIBE/READ on topics and groups, DESCRIBE_CONFIGS on topics,
#   DESCRIBE on transactional ids). Passwords are random per DIR.
#   Written into DIR (mode 0600 where a secret is inside, DIR itself 0700):
#   DIR/ca.pem                          the CA certificate clients trust
#   DIR/admin.properties                Java client properties (kafka-*.sh
#   DIR/reader.properties               --command-config): SASL_SSL,
#                                       SCRAM-SHA-512, PEM truststore
#   DIR/reader-plain.properties         the same reader with SASL/PLAIN
#   DIR/reader.librdkafka.properties    the reader in librdkafka's spelling
#                                       (kcat -F, confluent-kafka)
#   DIR/secrets/                        passwords.env, the broker's JAAS file,
#                                       keystore and CA key
#
# SHAPE, NODES, PORTS, CONTROLLER_PORTS, CLUSTER_ID come from DIR/cluster.env:
# shellcheck disable=SC2153,SC2015
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"
REPO="$(cd "$HERE/../.." && pwd)"
SETTINGS="$REPO/internal/localkafka/settings"
KAFKA_VERSION=4.3.1
CACHE_ROOT="${OFFSETLAB_CACHE:-$REPO/.cache}"
LIBS="${OFFSETLAB_KAFKA_LIBS:-$CACHE_ROOT/kafka-$KAFKA_VERSION/libs}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
MVN="${MVN:-mvn}"
PROBE=(python3 "$HERE/kprobe.py")

HEAP_OPTS="${OFFSETLAB_KAFKA_HEAP:--Xmx384m -Xms128m}"
# Serial GC: no parallel GC threads competing for 2 cores; C1 only: the JIT
# work at startup is what makes a broker slow to come up on a small machine,
# and a teaching cluster never needs C2's peak throughput.
BROKER_JVM_OPTS="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:MaxDirectMemorySize=128m -Djava.awt.headless=true ${OFFSETLAB_KAFKA_JVM_OPTS:-}"
TOOL_JVM_OPTS="-Xmx256m -Xms32m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true -Xlog:cds*=off"
START_TIMEOUT="${OFFSETLAB_KAFKA_START_TIMEOUT:-120}"
STOP_TIMEOUT="${OFFSETLAB_KAFKA_STOP_TIMEOUT:-30}"
NOQUORUM_STOP_TIMEOUT="${OFFSETLAB_KAFKA_NOQUORUM_STOP_TIMEOUT:-3}"

die() { echo "harness: $*" >&2; exit 1; }
log() { echo "harness: $*" >&2; }
now_ms() { date +%s%3N; }

# ---------------------------------------------------------------- settings --
# The broker settings and log4j2 configs live in internal/localkafka/settings,
# shared with the Go server (--local-kafka), which writes the same
# server.properties from them (its tests compare the two byte for byte).
settings_file() { sed -e '/^#/d' "$SETTINGS/$1"; }

# The cluster-wide settings. They are the single source for what the
# compose files' KAFKA_* variables must say (KAFKA_FOO_BAR <-> foo.bar);
# `props SHAPE shared` prints exactly these lines.
# single: seed 000, one KRaft node, transaction state log RF 1 / min ISR 1;
# triple: seed 002, three broker+controller nodes in one static quorum.
shared_props() {
	case "$1" in
	single | triple) settings_file "$1.properties" ;;
	secure) # "single" behind TLS, SASL and ACLs (issue 13): SASL_SSL for
		# clients, SASL_PLAINTEXT/PLAIN for the controller, StandardAuthorizer
		shared_props single
		cat <<-'EOF'
		authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
		allow.everyone.if.no.acl.found=false
		super.users=User:broker;User:admin
		sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN
		sasl.mechanism.inter.broker.protocol=PLAIN
		sasl.mechanism.controller.protocol=PLAIN
		listener.name.controller.sasl.enabled.mechanisms=PLAIN
		ssl.keystore.type=PKCS12
		ssl.truststore.type=PEM
		EOF
		;;
	*) die "unknown shape '$1' (single|triple|secure)" ;;
	esac
}

# Settings that exist only because this harness runs brokers as small local
# processes; they change memory and thread counts, not behaviour a lesson
# can observe. Not part of the compose comparison.
local_props() { settings_file local.properties; }

shape_nodes() {
	case "$1" in
	single | secure) echo 1 ;;
	triple) echo 3 ;;
	*) die "unknown shape '$1' (single|triple|secure)" ;;
	esac
}

# node_props SHAPE N CLIENT_PORTS CONTROLLER_PORTS LOG_DIR [WORKDIR KEYSTORE_PASSWORD]
# (the last two only for the secure shape; placeholders when absent)
node_props() {
	local shape="$1" n="$2" log_dir="$5" sdir="${6:-<workdir>}" kpass="${7:-<keystore-password>}"
	local -a cports kports
	IFS=, read -r -a cports <<<"$3"
	IFS=, read -r -a kports <<<"$4"
	local nodes i voters=""
	nodes="$(shape_nodes "$shape")"
	for ((i = 1; i <= nodes; i++)); do
		voters+="${voters:+,}$i@127.0.0.1:${kports[i - 1]}"
	done
	echo "# Offset Lab harness: Apache Kafka $KAFKA_VERSION KRaft, shape=$shape, node $n of $nodes"
	echo "# --- shared: must equal the KAFKA_* environment of the compose file ---"
	shared_props "$shape"
	echo "# --- topology: node-specific, loopback only ---"
	echo "node.id=$n"
	if [[ "$shape" == secure ]]; then
		echo "listeners=SASL_SSL://127.0.0.1:${cports[n - 1]},CONTROLLER://127.0.0.1:${kports[n - 1]}"
		echo "advertised.listeners=SASL_SSL://127.0.0.1:${cports[n - 1]}"
		echo "listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
		echo "inter.broker.listener.name=SASL_SSL"
	else
		echo "listeners=PLAINTEXT://127.0.0.1:${cports[n - 1]},CONTROLLER://127.0.0.1:${kports[n - 1]}"
		echo "advertised.listeners=PLAINTEXT://127.0.0.1:${cports[n - 1]}"
		echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
		echo "inter.broker.listener.name=PLAINTEXT"
	fi
	echo "controller.quorum.voters=$voters"
	echo "log.dirs=$log_dir"
	if [[ "$shape" == secure ]]; then
		# SASL users and passwords live in the JAAS file the JVM is given
		# (-Djava.security.auth.login.config, as the apache/kafka image does)
		echo "# --- per deployment: files and secrets, not compared with compose ---"
		echo "ssl.keystore.location=$sdir/secrets/server.p12"
		echo "ssl.keystore.password=$kpass"
		echo "ssl.key.password=$kpass"
		echo "ssl.truststore.location=$sdir/ca.pem"
	fi
	echo "# --- harness-only: process resources ---"
	local_props
	if [[ -n "${OFFSETLAB_KAFKA_EXTRA_PROPS:-}" ]]; then
		echo "# --- extra: OFFSETLAB_KAFKA_EXTRA_PROPS (later lines win) ---"
		tr ';' '\n' <<<"$OFFSETLAB_KAFKA_EXTRA_PROPS" | sed -e 's/^[[:space:]]*//' -e '/^$/d'
	fi
}

# ------------------------------------------------------------------ fetch --
have_libs() {
	[[ -f "$LIBS/.offsetlab-complete" ]] &&
		[[ "$(cat "$LIBS/.offsetlab-complete")" == "$(pom_hash)" ]] &&
		[[ -f "$LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]]
}
pom_hash() { sha256sum "$HERE/pom.xml" | cut -d' ' -f1; }

cmd_fetch() {
	have_libs && return 0
	mkdir -p "$(dirname "$LIBS")"
	# one fetch at a time, even from parallel test packages
	exec 8>"$(dirname "$LIBS")/.fetch.lock"
	flock 8
	if have_libs; then exec 8>&-; return 0; fi
	command -v "$MVN" >/dev/null || die "maven ($MVN) not found; install maven or set MVN"
	local work="$LIBS.tmp.$$"
	rm -rf "$work"
	mkdir -p "$work/project"
	# build from a copy so Maven leaves no target/ behind in the repo
	cp "$HERE/pom.xml" "$work/project/pom.xml"
	log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $LIBS"
	"$MVN" -q -B -Dstyle.color=never -f "$work/project/pom.xml" dependency:copy-dependencies \
		-DincludeScope=runtime -DoutputDirectory="$work/libs" >&2 ||
		{ rm -rf "$work"; die "maven could not resolve the Kafka jars"; }
	[[ -f "$work/libs/kafka_2.13-$KAFKA_VERSION.jar" && -f "$work/libs/kafka-tools-$KAFKA_VERSION.jar" ]] ||
		{ rm -rf "$work"; die "maven finished but the Kafka jars are missing"; }
	pom_hash >"$work/libs/.offsetlab-complete"
	rm -rf "$LIBS"
	mv "$work/libs" "$LIBS"
	rm -rf "$work"
	exec 8>&-
	log "fetched $(find "$LIBS" -name '*.jar' | wc -l) jars"
}

# -------------------------------------------------------------------- cds --
# Application class data sharing: the first broker this harness runs for a
# given JDK dumps the classes it loaded into $LIBS/.cds/<jdk>.jsa when it
# exits; later brokers and tools map that archive instead of parsing ~5000
# classes from the jars. Measured here: a single node starts in ~2.7 s
# instead of ~4.5 s, and the three JVMs of a triple share those pages.
# A missing or stale archive only costs speed (the JVM falls back quietly);
# refetching the jars deletes it with the old libs dir.
cds_archive() {
	local java_bin key
	java_bin="$(readlink -f "$(command -v "$JAVA")")" || return 1
	key="$(echo "$java_bin $(stat -c %Y "$java_bin" 2>/dev/null)" | sha256sum | cut -c1-12)"
	echo "$LIBS/.cds/jdk-$key.jsa"
}

# cds_opts dump|use : JVM flags for the broker (dump) or a tool (use)
cds_opts() {
	[[ "${OFFSETLAB_KAFKA_CDS:-1}" != 0 ]] || return 0
	local jsa
	jsa="$(cds_archive)" || return 0
	if [[ -s "$jsa" ]]; then
		echo "-XX:SharedArchiveFile=$jsa"
	elif [[ "$1" == dump ]]; then
		mkdir -p "$(dirname "$jsa")"
		echo "-XX:ArchiveClassesAtExit=$jsa.tmp.$BASHPID"
	fi
}

# After a JVM that was dumping has exited, publish its archive atomically.
cds_publish() {
	local f jsa
	jsa="$(cds_archive)" || return 0
	for f in "$jsa".tmp.*; do
		[[ -e "$f" ]] || continue
		# still being written by a running JVM?
		if pgrep -f -- "-XX:ArchiveClassesAtExit=$f" >/dev/null 2>&1; then continue; fi
		# -Xshare:on makes the JVM refuse an archive it cannot map (e.g. one
		# cut short by SIGKILL during the dump)
		if [[ -s "$f" ]] && "$JAVA" -XX:ErrorFile=/dev/null -XX:SharedArchiveFile="$f" -Xshare:on -cp "$LIBS/*" -version >/dev/null 2>&1; then
			mv -f "$f" "$jsa"
		else
			rm -f "$f"
		fi
	done
}

# ------------------------------------------------------------------ tools --
tool_class() {
	case "$1" in
	topics) echo org.apache.kafka.tools.TopicCommand ;;
	console-producer) echo org.apache.kafka.tools.ConsoleProducer ;;
	console-consumer) echo org.apache.kafka.tools.consumer.ConsoleConsumer ;;
	consumer-groups) echo org.apache.kafka.tools.consumer.group.ConsumerGroupCommand ;;
	transactions) echo org.apache.kafka.tools.TransactionsCommand ;;
	get-offsets) echo org.apache.kafka.tools.GetOffsetShell ;;
	broker-api-versions) echo org.apache.kafka.tools.BrokerApiVersionsCommand ;;
	metadata-quorum) echo org.apache.kafka.tools.MetadataQuorumCommand ;;
	dump-log) echo org.apache.kafka.tools.DumpLogSegments ;;
	delete-records) echo org.apache.kafka.tools.DeleteRecordsCommand ;;
	storage) echo kafka.tools.StorageTool ;;
	*.*) echo "$1" ;;
	*) die "unknown tool '$1'" ;;
	esac
}

run_tool() {
	local class
	class="$(tool_class "$1")"
	shift
	# shellcheck disable=SC2086,SC2046
	"$JAVA" $TOOL_JVM_OPTS $(cds_opts use) -Dlog4j2.configurationFile="$SETTINGS/tools-log4j2.properties" \
		-cp "$LIBS/*" "$class" "$@"
}

cmd_tool() {
	[[ $# -ge 1 ]] || die "usage: tool NAME [ARGS...]"
	cmd_fetch
	local class
	class="$(tool_class "$1")"
	shift
	# shellcheck disable=SC2086,SC2046
	exec "$JAVA" $TOOL_JVM_OPTS $(cds_opts use) -Dlog4j2.configurationFile="$SETTINGS/tools-log4j2.properties" \
		-cp "$LIBS/*" "$class" "$@"
}

# -------------------------------------------------------------- processes --
WORKDIR=""
load_cluster() {
	[[ -n "${1:-}" ]] || die "missing workdir"
	[[ -f "$1/cluster.env" ]] || die "$1 holds no harness cluster (no cluster.env)"
	WORKDIR="$(cd "$1" && pwd)"
	# shellcheck disable=SC1091
	source "$WORKDIR/cluster.env"
}

props_file() { echo "$WORKDIR/node-$1/server.properties"; }

node_pid() {
	[[ -f "$WORKDIR/pids" ]] || return 0
	awk -v n="$1" '$1 == n { print $2 }' "$WORKDIR/pids" | tail -n 1
}

set_node_pid() {
	local tmp="$WORKDIR/pids.tmp.$$"
	{ [[ -f "$WORKDIR/pids" ]] && awk -v n="$1" '$1 != n' "$WORKDIR/pids"; [[ -n "$2" ]] && echo "$1 $2"; } >"$tmp" || true
	sort -n "$tmp" >"$WORKDIR/pids"
	rm -f "$tmp"
}

# A pid counts as node N's only while it is alive (not a zombie) and its
# command line names node N's properties file: a recycled pid is never killed.
pid_is_node() {
	local pid="$1" n="$2" state
	[[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
	state="$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$pid/stat" 2>/dev/null)" || return 1
	[[ "$state" != Z ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(props_file "$n")"
}

node_running() {
	local pid
	pid="$(node_pid "$1")"
	pid_is_node "$pid" "$1"
}

client_port() { local -a p; IFS=, read -r -a p <<<"$PORTS"; echo "${p[$1 - 1]}"; }

bootstrap() {
	local i out=""
	for ((i = 1; i <= NODES; i++)); do out+="${out:+,}127.0.0.1:$(client_port "$i")"; done
	echo "$out"
}

launch_node() {
	local n="$1" dir="$WORKDIR/node-$1" pid
	node_running "$n" && die "node $n is already running (pid $(node_pid "$n"))"
	echo "===== harness: starting node $n at $(date -Is) =====" >>"$dir/server.log"
	# only node 1 may dump a class archive (one writer per cluster)
	local cds=""
	if [[ "$n" == 1 ]]; then cds="$(cds_opts dump)"; else cds="$(cds_opts use)"; fi
	local jaas=""
	[[ "$SHAPE" == secure ]] && jaas="-Djava.security.auth.login.config=$WORKDIR/secrets/broker_jaas.conf"
	# shellcheck disable=SC2086
	"$JAVA" $HEAP_OPTS $BROKER_JVM_OPTS $cds $jaas \
		-Dlog4j2.configurationFile="$SETTINGS/server-log4j2.properties" \
		-Dkafka.logs.dir="$dir" -XX:ErrorFile="$dir/hs_err_pid%p.log" \
		-cp "$LIBS/*" kafka.Kafka "$(props_file "$n")" \
		</dev/null >>"$dir/server.log" 2>&1 &
	pid=$!
	set_node_pid "$n" "$pid"
	echo "$pid" >"$dir/pid"
}

# wait_ready "N..." : every listed node answers metadata listing every listed id
wait_ready() {
	local servers="" ids="" pids="" n rc=0
	for n in $1; do
		servers+="${servers:+,}127.0.0.1:$(client_port "$n")"
		ids+="${ids:+,}$n"
		pids+="${pids:+,}$(node_pid "$n")"
	done
	# shellcheck disable=SC2046
	"${PROBE[@]}" $(probe_security) wait --servers "$servers" --expect-ids "$ids" --pids "$pids" --timeout "$START_TIMEOUT" || rc=$?
	if [[ $rc -ne 0 ]]; then
		for n in $1; do
			log "---- node $n: errors and last lines of $WORKDIR/node-$n/server.log ----"
			grep -E '^\[[^]]*\] (ERROR|FATAL) |^[A-Za-z.]+(Exception|Error)' "$WORKDIR/node-$n/server.log" | tail -n 8 >&2 || true
			echo "..." >&2
			tail -n 8 "$WORKDIR/node-$n/server.log" >&2 || true
		done
	fi
	return $rc
}

# stop_nodes "N..." [KILL]: SIGTERM all at once, wait, SIGKILL what is left
# (or SIGKILL straight away: a crash, for lessons about fencing).
stop_nodes() {
	local n pid deadline left grace="$STOP_TIMEOUT" sig=TERM running=0
	[[ "${2:-}" == KILL ]] && sig=KILL
	for ((n = 1; n <= NODES; n++)); do node_running "$n" && running=$((running + 1)); done
	if [[ $sig == TERM ]] && ((NODES > 1 && running <= NODES / 2)); then
		# The controller quorum is already lost, so a broker's controlled
		# shutdown waits for a controller that never answers (it would hang
		# until SIGKILL). Killing is safe for the data: everything written is
		# in the page cache; the next start just runs log recovery.
		grace="$NOQUORUM_STOP_TIMEOUT"
		log "controller quorum lost ($running of $NODES nodes running): SIGKILL after ${grace}s"
	fi
	for n in $1; do
		pid="$(node_pid "$n")"
		if pid_is_node "$pid" "$n"; then kill "-$sig" "$pid" 2>/dev/null || true; fi
	done
	deadline=$(($(now_ms) + grace * 1000))
	local watch_quorum=0 still m
	[[ $sig == TERM ]] && ((NODES > 1 && running > NODES / 2)) && watch_quorum=1
	while :; do
		left=""
		for n in $1; do node_running "$n" && left+=" $n"; done
		[[ -z "$left" ]] && break
		if ((watch_quorum)); then
			# Stopping several nodes at once can lose the quorum half-way: a
			# node whose controlled shutdown was not granted before the other
			# controllers exited would wait for ever. Give what is left the
			# time a Raft leader needs to resign (5 s in Kafka), then kill.
			still=0
			for ((m = 1; m <= NODES; m++)); do node_running "$m" && still=$((still + 1)); done
			if ((still <= NODES / 2)); then
				watch_quorum=0
				if ((deadline > $(now_ms) + 6000)); then deadline=$(($(now_ms) + 6000)); fi
			fi
		fi
		if (($(now_ms) >= deadline)); then
			log "node(s)$left did not stop in time; sending SIGKILL"
			for n in $left; do
				pid="$(node_pid "$n")"
				if pid_is_node "$pid" "$n"; then kill -KILL "$pid" 2>/dev/null || true; fi
			done
			deadline=$(($(now_ms) + 10000))
			while :; do
				left=""
				for n in $1; do node_running "$n" && left+=" $n"; done
				[[ -z "$left" ]] && break
				(($(now_ms) < deadline)) || die "node(s)$left survived SIGKILL"
				sleep 0.1
			done
			break
		fi
		sleep 0.1
	done
	for n in $1; do set_node_pid "$n" ""; rm -f "$WORKDIR/node-$n/pid"; done
	cds_publish
}

start_watchdog() {
	local watch="${OFFSETLAB_KAFKA_WATCH_PID:-}"
	[[ -n "$watch" ]] || return 0
	kill -0 "$watch" 2>/dev/null || die "OFFSETLAB_KAFKA_WATCH_PID=$watch is not a running process"
	stop_watchdog
	bash "$SELF" _watch "$WORKDIR" "$watch" </dev/null >>"$WORKDIR/watchdog.log" 2>&1 &
	echo $! >"$WORKDIR/watchdog.pid"
}

stop_watchdog() {
	local f="$WORKDIR/watchdog.pid" pid
	[[ -f "$f" ]] || return 0
	pid="$(cat "$f")"
	rm -f "$f"
	[[ "$pid" == "$$" ]] && return 0
	if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "_watch $WORKDIR "; then
		kill -TERM "$pid" 2>/dev/null || true
	fi
}

# ----------------------------------------------------------------- secure --
# write_client_files, write_broker_jaas: shared with compose.secure.yaml
# shellcheck source-path=SCRIPTDIR source=secure/client-files.sh
source "$HERE/secure/client-files.sh"

# Probe flags for the cluster in WORKDIR: TLS + SASL/PLAIN as the broker's
# own user for the secure shape, nothing for the others.
probe_security() {
	[[ "${SHAPE:-}" == secure ]] || return 0
	echo "--tls-ca $WORKDIR/ca.pem --sasl-plain $WORKDIR/secrets/broker.plain"
}

random_password() {
	python3 -c 'import secrets; print(secrets.token_urlsafe(18))'
}

# secure_init DIR PORT: passwords, CA and server certificate, the broker's
# JAAS file and the client properties files. Everything secret is 0600 in a
# 0700 directory; DIR's own mode is set to 0700 by the caller.
secure_init() {
	local dir="$1" port="$2" s="$1/secrets"
	command -v openssl >/dev/null || die "the secure shape needs openssl (apt-get install openssl)"
	mkdir -p "$s"
	chmod 700 "$s"
	local broker_pw admin_pw reader_pw keystore_pw
	broker_pw="$(random_password)"
	admin_pw="$(random_password)"
	reader_pw="$(random_password)"
	keystore_pw="$(random_password)"
	(
		umask 077
		cat >"$s/passwords.env" <<-EOF
		# Offset Lab harness, secure cluster in $dir: random per DIR
		BROKER_PASSWORD=$broker_pw
		ADMIN_PASSWORD=$admin_pw
		READER_PASSWORD=$reader_pw
		KEYSTORE_PASSWORD=$keystore_pw
		EOF
		printf 'broker\n%s\n' "$broker_pw" >"$s/broker.plain"
		printf '%s\n' "$keystore_pw" >"$s/keystore.pass"
	)
	write_broker_jaas "$s/broker_jaas.conf" "$broker_pw" "$admin_pw" "$reader_pw"
	# A CA made for this DIR only, and the broker's certificate (SANs
	# 127.0.0.1 and localhost) signed by it. EC P-256: instant to generate,
	# spoken by Java, Go and librdkafka alike.
	local tag
	tag="$(basename "$dir")"
	openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
		-keyout "$s/ca.key" -out "$dir/ca.pem" -days 3650 \
		-subj "/O=Offset Lab harness/CN=Offset Lab harness CA $tag" \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
		2>"$s/openssl.log" || { cat "$s/openssl.log" >&2; die "openssl could not create the CA"; }
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
		-keyout "$s/server.key" -out "$s/server.csr" -subj "/O=Offset Lab harness/CN=localhost" \
		2>>"$s/openssl.log" || { cat "$s/openssl.log" >&2; die "openssl could not create the server key"; }
	cat >"$s/server.ext" <<-'EOF'
	basicConstraints=critical,CA:FALSE
	keyUsage=critical,digitalSignature
	extendedKeyUsage=serverAuth,clientAuth
	subjectAltName=IP:127.0.0.1,DNS:localhost
	EOF
	openssl x509 -req -sha256 -in "$s/server.csr" -CA "$dir/ca.pem" -CAkey "$s/ca.key" \
		-CAserial "$s/ca.srl" -CAcreateserial -days 825 -extfile "$s/server.ext" -out "$s/server.pem" \
		2>>"$s/openssl.log" || { cat "$s/openssl.log" >&2; die "openssl could not sign the server certificate"; }
	openssl pkcs12 -export -name broker -in "$s/server.pem" -inkey "$s/server.key" -certfile "$dir/ca.pem" \
		-passout "file:$s/keystore.pass" -out "$s/server.p12" \
		2>>"$s/openssl.log" || { cat "$s/openssl.log" >&2; die "openssl could not write the broker keystore"; }
	chmod 600 "$s"/*
	chmod 644 "$dir/ca.pem"
	write_client_files "$dir" "127.0.0.1:$port" "$dir/ca.pem" "$admin_pw" "$reader_pw" "the harness's secure cluster in $dir"
}

# The SCRAM-SHA-512 users, as kafka-storage format arguments.
secure_scram_args() {
	local dir="$1"
	# shellcheck disable=SC1091
	(source "$dir/secrets/passwords.env" && printf '%s\n' \
		--add-scram "SCRAM-SHA-512=[name=admin,password=$ADMIN_PASSWORD]" \
		--add-scram "SCRAM-SHA-512=[name=reader,password=$READER_PASSWORD]")
}

# Grants the reader its ACLs (idempotent: an existing binding is kept) and
# waits until the broker's authorizer lists them.
secure_acls() {
	# shellcheck disable=SC2046
	"${PROBE[@]}" $(probe_security) acls --server "127.0.0.1:$(client_port 1)" \
		--principal User:reader --file "$HERE/secure/reader.acls" --timeout "$START_TIMEOUT"
}

# --------------------------------------------------------------- commands --
cmd_props() {
	local shape="${1:-}" which="${2:-1}" nodes ports cports
	[[ -n "$shape" ]] || die "usage: props single|triple|secure [N|shared]"
	nodes="$(shape_nodes "$shape")"
	if [[ "$which" == shared ]]; then
		shared_props "$shape"
		return
	fi
	[[ "$which" =~ ^[0-9]+$ ]] && ((which >= 1 && which <= nodes)) || die "node must be 1..$nodes"
	# without a running cluster: ports from the environment, else the compose
	# files' host ports (9541 / 19092,29092,39092) as stand-ins
	if [[ "$shape" == single ]]; then
		ports="${OFFSETLAB_KAFKA_PORTS:-9541}"
		cports="${OFFSETLAB_KAFKA_CONTROLLER_PORTS:-9543}"
	elif [[ "$shape" == secure ]]; then
		ports="${OFFSETLAB_KAFKA_PORTS:-9544}"
		cports="${OFFSETLAB_KAFKA_CONTROLLER_PORTS:-9545}"
	else
		ports="${OFFSETLAB_KAFKA_PORTS:-19092,29092,39092}"
		cports="${OFFSETLAB_KAFKA_CONTROLLER_PORTS:-19093,29093,39093}"
	fi
	node_props "$shape" "$which" "$ports" "$cports" "<workdir>/node-$which/data"
}

pick_ports() {
	local count="$1" given="$2" what="$3" n
	if [[ -n "$given" ]]; then
		IFS=, read -r -a _p <<<"$given"
		[[ ${#_p[@]} -eq "$count" ]] || die "$what needs $count port(s), got '$given'"
		for n in "${_p[@]}"; do [[ "$n" =~ ^[0-9]+$ ]] || die "$what: bad port '$n'"; done
		echo "$given"
	else
		"${PROBE[@]}" free-ports "$count" | paste -sd, -
	fi
}

new_cluster_id() {
	# a Kafka Uuid: 16 random bytes, URL-safe base64 without padding; like
	# `kafka-storage random-uuid` it never starts with '-' (and saves a JVM)
	python3 -c 'import base64, os
while True:
    s = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
    if not s.startswith("-"):
        print(s); break'
}

cmd_start() {
	local shape="${1:-}" dir="${2:-}" t0 nodes n all="" rc
	[[ -n "$shape" && -n "$dir" ]] || die "usage: start single|triple|secure DIR"
	nodes="$(shape_nodes "$shape")"
	t0="$(now_ms)"
	cmd_fetch
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	local fresh=0
	if [[ -f "$dir/cluster.env" ]]; then
		load_cluster "$dir"
		[[ "$SHAPE" == "$shape" ]] || die "$dir holds a $SHAPE cluster, not $shape"
		for ((n = 1; n <= NODES; n++)); do
			node_running "$n" && die "$dir: node $n is already running; stop it first"
		done
		log "restarting the existing $SHAPE cluster $CLUSTER_ID in $dir"
	else
		WORKDIR="$dir"
		fresh=1
		local ports cports cid
		ports="$(pick_ports "$nodes" "${OFFSETLAB_KAFKA_PORTS:-}" OFFSETLAB_KAFKA_PORTS)"
		cports="$(pick_ports "$nodes" "${OFFSETLAB_KAFKA_CONTROLLER_PORTS:-}" OFFSETLAB_KAFKA_CONTROLLER_PORTS)"
		cid="$(new_cluster_id)"
		local kpass=""
		local -a scram=()
		if [[ "$shape" == secure ]]; then
			chmod 700 "$dir"
			rm -rf "$dir/secrets"
			secure_init "$dir" "$ports"
			kpass="$(cat "$dir/secrets/keystore.pass")"
			mapfile -t scram < <(secure_scram_args "$dir")
		fi
		for ((n = 1; n <= nodes; n++)); do
			# no cluster.env: any data here is a half-done earlier format
			rm -rf "$dir/node-$n/data"
			mkdir -p "$dir/node-$n/data"
			(umask 077 && node_props "$shape" "$n" "$ports" "$cports" "$dir/node-$n/data" "$dir" "$kpass" >"$dir/node-$n/server.properties")
		done
		# format all nodes in parallel: one JVM each, ~2 s of CPU apiece
		local -a fpids=()
		for ((n = 1; n <= nodes; n++)); do
			run_tool storage format --cluster-id "$cid" --config "$dir/node-$n/server.properties" "${scram[@]}" \
				>"$dir/node-$n/format.log" 2>&1 &
			fpids+=($!)
		done
		for ((n = 1; n <= nodes; n++)); do
			wait "${fpids[n - 1]}" || { cat "$dir/node-$n/format.log" >&2; die "storage format failed for node $n"; }
		done
		# written last: a cluster.env means "formatted and ready to start"
		cat >"$dir/cluster.env" <<-EOF
		SHAPE=$shape
		NODES=$nodes
		CLUSTER_ID=$cid
		PORTS=$ports
		CONTROLLER_PORTS=$cports
		EOF
		load_cluster "$dir"
	fi
	: >"$WORKDIR/pids"
	# before the JVMs exist, so a caller killed while we wait leaks nothing
	start_watchdog
	for ((n = 1; n <= NODES; n++)); do
		launch_node "$n"
		all+=" $n"
	done
	rc=0
	wait_ready "$all" || rc=$?
	if [[ $rc -ne 0 ]]; then
		stop_nodes "$all"
		stop_watchdog
		if ((fresh)); then
			# never served: forget it, so a retry in DIR formats anew (new ports)
			rm -rf "$WORKDIR"/node-*/data "$WORKDIR/cluster.env" "$WORKDIR/pids"
			# a port taken between our check and the JVM's bind: once more, with new ports
			if [[ -z "${OFFSETLAB_KAFKA_RETRIED:-}" ]] && grep -qs "Address already in use" "$WORKDIR"/node-*/server.log; then
				log "a port was taken before a broker could bind it; starting again with new ports"
				OFFSETLAB_KAFKA_RETRIED=1 exec "$SELF" start "$shape" "$WORKDIR"
			fi
		fi
		die "the $SHAPE cluster in $WORKDIR did not come up (logs: $WORKDIR/node-*/server.log)"
	fi
	if [[ "$SHAPE" == secure ]] && ! secure_acls; then
		stop_nodes "$all"
		stop_watchdog
		die "the secure cluster in $WORKDIR came up but the reader's ACLs could not be created"
	fi
	bootstrap >"$WORKDIR/bootstrap"
	log "$SHAPE cluster $CLUSTER_ID up in $(($(now_ms) - t0)) ms; pids: $(awk '{printf "%s ", $2}' "$WORKDIR/pids")"
	bootstrap
}

cmd_stop() {
	load_cluster "${1:-}"
	stop_watchdog
	local n all=""
	for ((n = 1; n <= NODES; n++)); do all+=" $n"; done
	stop_nodes "$all"
	rm -f "$WORKDIR/pids"
	log "stopped $SHAPE cluster in $WORKDIR"
}

check_node_arg() {
	[[ "${1:-}" =~ ^[0-9]+$ ]] && (($1 >= 1 && $1 <= NODES)) || die "node must be 1..$NODES"
}

cmd_stop_node() {
	load_cluster "${1:-}"
	check_node_arg "${2:-}"
	local t0 how=""
	case "${3:-}" in
	"") ;;
	--kill) how=KILL ;;
	*) die "usage: stop-node DIR N [--kill]" ;;
	esac
	t0="$(now_ms)"
	node_running "$2" || { log "node $2 is not running"; return 0; }
	stop_nodes "$2" "$how"
	log "node $2 ${how:+killed and }stopped in $(($(now_ms) - t0)) ms"
}

cmd_start_node() {
	load_cluster "${1:-}"
	check_node_arg "${2:-}"
	local t0 rc=0
	t0="$(now_ms)"
	cmd_fetch
	launch_node "$2"
	wait_ready "$2" || rc=$?
	if [[ $rc -ne 0 ]]; then
		stop_nodes "$2"
		die "node $2 did not come up (log: $WORKDIR/node-$2/server.log)"
	fi
	log "node $2 serving again in $(($(now_ms) - t0)) ms"
}

cmd_status() {
	load_cluster "${1:-}"
	local n pid up=0 state md
	echo "cluster $CLUSTER_ID shape=$SHAPE dir=$WORKDIR bootstrap=$(bootstrap)"
	for ((n = 1; n <= NODES; n++)); do
		pid="$(node_pid "$n")"
		if pid_is_node "$pid" "$n"; then
			# shellcheck disable=SC2046
			if md="$("${PROBE[@]}" $(probe_security) meta "127.0.0.1:$(client_port "$n")" 2>/dev/null)"; then
				state="serving live-brokers=$(python3 -c 'import json,sys; print(",".join(str(b["id"]) for b in json.loads(sys.argv[1])["brokers"]))' "$md")"
				up=$((up + 1))
			else
				state="running, not answering metadata"
			fi
			echo "node $n pid $pid port $(client_port "$n") $state"
		else
			echo "node $n stopped port $(client_port "$n")"
		fi
	done
	((up == NODES)) || return 3
}

cmd_watch() {
	# internal: stop the cluster in $1 once process $2 is gone
	WORKDIR="$1"
	while kill -0 "$2" 2>/dev/null; do sleep 1; done
	[[ -f "$WORKDIR/cluster.env" ]] || exit 0
	echo "$(date -Is) watched process $2 exited; stopping the cluster"
	cmd_stop "$WORKDIR"
}

main() {
	local cmd="${1:-}"
	[[ $# -gt 0 ]] && shift
	case "$cmd" in
	fetch) cmd_fetch ;;
	props) cmd_props "$@" ;;
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	stop-node) cmd_stop_node "$@" ;;
	start-node) cmd_start_node "$@" ;;
	status) cmd_status "$@" ;;
	tool) cmd_tool "$@" ;;
	_watch) cmd_watch "$@" ;;
	-h | --help | help | "") sed -n '2,/^# SHAPE, NODES/p' "$SELF" | sed -e '$d' -e 's/^# \{0,1\}//' | sed -e '$d' ;;
	*) die "unknown command '$cmd' (try --help)" ;;
	esac
}

main "$@"
