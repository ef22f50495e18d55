#!/usr/bin/env bash
# Offset Lab's whole test suite, the README's test command and what CI runs.
#
# It installs what the suites need (confluent-kafka from PyPI into
# .cache/venv, Apache Kafka 4.3.1 jars from Maven Central into .cache/
# with go run ./cmd/offsetlab-kafka fetch, Apicurio Registry 3.0.9 from
# Maven Central into .cache/ with go run ./cmd/offsetlab-apicurio fetch,
# Debian's chromium for the browser tests when running as root),
# checks formatting, vet, go mod tidy and generated code, runs the page's
# JavaScript unit tests with node and its type check with TypeScript
# (installed with npm ci into web/static/node_modules; both skipped without
# node, except under CI=true), starts a real single-node
# Kafka 4.3.1 (KRaft) on loopback, runs every Go test against the embedded
# broker and against real Kafka, then fuzzes the batch decoder and the
# embedded broker's Kafka port briefly.
# Real Kafka is always stopped on exit, even when a test fails.
#
# The browser tests save screenshots into test-output/screenshots.
#
# Environment: OFFSETLAB_FUZZTIME (default 100000x executions),
# OFFSETLAB_KAFKA_FUZZTIME (default 60000x), OFFSETLAB_CACHE (.cache),
# OFFSETLAB_CHROMIUM (default /usr/bin/chromium).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
started=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - started))"; }

step "format, vet, generated code"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*') | grep -v '_templ\.go$' || true)
if [[ -n "$unformatted" ]]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
go vet ./...
if ! go mod tidy -diff >/dev/null; then
	echo "go.mod/go.sum are not tidy: run go mod tidy and commit" >&2
	go mod tidy -diff >&2 || true
	exit 1
fi
go generate ./...
if git rev-parse --git-dir >/dev/null 2>&1 && ! git diff --exit-code --stat -- '*_templ.go' web/static/types/; then
	echo "generated code (templ, web/static/types/wire.d.ts) is out of date: run go generate ./... and commit" >&2
	exit 1
fi

step "JavaScript unit tests (node --test)"
# The page's pure modules (the catalogue's rendering, the log's geometry
# and lanes, the heat strip, the cache) against node's own test runner: nothing to
# install beyond node itself.
if command -v node >/dev/null; then
	node --test web/static/test/*.test.js
elif [[ "${CI:-}" == "true" ]]; then
	echo "node is missing: the JavaScript unit tests need it under CI (install nodejs)" >&2
	exit 1
else
	echo "node is missing, so the JavaScript unit tests are skipped (install nodejs to run them)." >&2
fi

step "the page's type check (tsc --noEmit over the modules' JSDoc)"
# TypeScript checks the page's JavaScript as written (web/static/tsconfig.json,
# checkJs): nothing is compiled, so the served files stay the sources. The
# pinned compiler (web/static/package-lock.json) is installed from the npm
# registry into web/static/node_modules (ignored by git) when missing.
if command -v npm >/dev/null; then
	if [[ ! -x web/static/node_modules/.bin/tsc ]] || ! cmp -s web/static/package-lock.json web/static/node_modules/.package-lock.json.src 2>/dev/null; then
		(cd web/static && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.package-lock.json.src)
	fi
	web/static/node_modules/.bin/tsc -p web/static       # the page: DOM, no node
	web/static/node_modules/.bin/tsc -p web/static/test  # the node tests (each // @ts-check)
elif [[ "${CI:-}" == "true" ]]; then
	echo "npm is missing: the page's type check needs it under CI (install nodejs and npm)" >&2
	exit 1
else
	echo "npm is missing, so the page's type check is skipped (install npm to run it)." >&2
fi

step "Chromium (the browser tests) and kcat (an outside Kafka client)"
if [[ -z "${OFFSETLAB_CHROMIUM:-}" ]] || ! command -v kcat >/dev/null; then
	# fonts-nanum draws the Korean lesson texts in the screenshots; kcat is
	# one of the clients nobody here wrote that the e2e suites drive.
	if [[ ! -x /usr/bin/chromium ]] || ! dpkg -s fonts-nanum >/dev/null 2>&1 || ! command -v kcat >/dev/null; then
		if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
			apt-get update -qq
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core fonts-nanum kcat >/dev/null
		else
			echo "Chromium or kcat is missing, so the browser and kcat tests will be skipped. Install them with" >&2
			echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium fonts-dejavu-core fonts-nanum kcat" >&2
			echo "or point OFFSETLAB_CHROMIUM at a Chromium or Chrome binary." >&2
		fi
	fi
	if [[ -z "${OFFSETLAB_CHROMIUM:-}" && -x /usr/bin/chromium ]]; then
		export OFFSETLAB_CHROMIUM=/usr/bin/chromium
	fi
fi
echo "Chromium: ${OFFSETLAB_CHROMIUM:-none (browser tests skip)}"

step "Python confluent-kafka (the seeds' client)"
venv="$(scripts/python-venv.sh)"
export OFFSETLAB_PYTHON="$venv/bin/python"

step "Apache Kafka 4.3.1 jars"
# One Kafka runner, in Go: cmd/offsetlab-kafka (internal/localkafka).
kafka_bin="$(mktemp -d "${TMPDIR:-/tmp}/offsetlab-kafka-bin.XXXXXX")"
go build -o "$kafka_bin/offsetlab-kafka" ./cmd/offsetlab-kafka
kafka() { "$kafka_bin/offsetlab-kafka" "$@"; }
kafka fetch >/dev/null

step "Apicurio Registry 3.0.9 (a Schema Registry nobody here wrote)"
# Unpacked once into the cache (104 MiB); TestSchemaRegistryApicurio
# starts and stops its own, in memory (internal/apicurio).
go run ./cmd/offsetlab-apicurio fetch >/dev/null

step "start single-node Kafka 4.3.1 (KRaft)"
# JVMs running before we start are not ours; any other one left at the end is.
jvms_before="$(pgrep -f 'kafka\.Kafka' | sort || true)"
kafka_dir="$(mktemp -d "${TMPDIR:-/tmp}/offsetlab-kafka.XXXXXX")"
cleanup() {
	kafka stop "$kafka_dir" >/dev/null 2>&1 || true
	rm -rf "$kafka_dir" "$kafka_bin"
}
trap cleanup EXIT
# the watchdog stops it should this script die without running the trap
OFFSETLAB_KAFKA_WATCH_PID=$$ kafka start single "$kafka_dir" >/dev/null
export OFFSETLAB_KAFKA_BROKERS="$(cat "$kafka_dir/bootstrap")"
echo "real Kafka at $OFFSETLAB_KAFKA_BROKERS"

step "go test (embedded broker, real Kafka single node and three nodes)"
# The three-node and secure tests start and stop their own clusters (with
# cmd/offsetlab-kafka, or with internal/localkafka as --local-kafka does).
export OFFSETLAB_KAFKA_TRIPLE=1
# Four tests at a time rather than one per core: the browser and Kafka
# tests mostly wait on a browser, a broker or a timer, not on the CPU.
# (Three were run while every lesson step on the one real broker took
# seconds: each step waits for its partition's next poll, and that poll
# described all share groups in one request, which Kafka 4.3.1 answered in
# 2 to 6 s now and then once the suite had made a few share groups — lesson
# 2 took 93 s in the suite, 0.9 s alone. Described one group per request,
# lesson 2 takes about a second on that broker.)
#
# Each test that fails is run again, once, on a fresh broker; a test that
# fails again fails the suite, one that passes is listed as flaky.
# gotestsum (a Go tool of go.mod) runs go test and keeps its events in
# test-output/go-test.json; scripts/failed-tests.py names the failures.
mkdir -p test-output
if ! go tool gotestsum --format pkgname-and-test-fails --jsonfile test-output/go-test.json \
	--packages=./... -- -count=1 -timeout 60m -parallel 4; then
	failed="$(python3 scripts/failed-tests.py test-output/go-test.json)" || {
		echo "a package failed without a failed test to name (a build error, a panic or a time-out): not run again" >&2
		exit 1
	}
	if [[ -z "$failed" ]]; then
		echo "go test failed with no failed test named in test-output/go-test.json" >&2
		exit 1
	fi
	step "run the failed tests again on a fresh broker"
	kafka stop "$kafka_dir" >/dev/null 2>&1 || true
	rm -rf "$kafka_dir" && mkdir -p "$kafka_dir"
	OFFSETLAB_KAFKA_WATCH_PID=$$ kafka start single "$kafka_dir" >/dev/null
	export OFFSETLAB_KAFKA_BROKERS="$(cat "$kafka_dir/bootstrap")"
	while IFS=$'\t' read -r pkg run; do
		go test -count=1 -timeout 30m -parallel 3 -run "$run" "$pkg"
		echo "flaky under the whole suite's load (failed, then passed on a fresh broker): $pkg $run"
	done <<<"$failed"
fi
echo "the slowest tests:"
go tool gotestsum tool slowest --jsonfile test-output/go-test.json --threshold 60s | head -20

step "the live hub under the race detector"
go test -count=1 -race ./internal/live/

step "stop Kafka; no JVM left behind"
cleanup
trap - EXIT
left="$(comm -13 <(echo "$jvms_before") <(pgrep -f 'kafka\.Kafka' | sort || true) | grep . || true)"
if [[ -n "$left" ]]; then
	echo "Kafka JVMs left running after the suite: $left" >&2
	ps -o pid,args -p $(echo $left) >&2 || true
	exit 1
fi
echo "no Kafka JVM left"

step "fuzz the record batch decoder"
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
# report its own deadline as a failure with no crasher (golang/go#75804,
# fixed in Go 1.27). 100,000 executions take 15 to 35 s here; more are a
# longer run by hand (OFFSETLAB_FUZZTIME=1000000x).
go test -run '^$' -fuzz '^FuzzDecodeBatches$' -fuzztime "${OFFSETLAB_FUZZTIME:-100000x}" -fuzzminimizetime 5s ./internal/inspect

step "fuzz the embedded broker's Kafka port"
# Random byte streams through the port's guard into a running embedded
# broker, which must keep answering (60,000 executions: 20 to 30 s on two
# cores; the whole command stays within a quarter of an hour).
go test -run '^$' -fuzz '^FuzzKafkaFrames$' -fuzztime "${OFFSETLAB_KAFKA_FUZZTIME:-60000x}" -fuzzminimizetime 5s ./internal/embedded

step "done"
