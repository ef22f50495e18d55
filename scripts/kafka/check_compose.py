#!/usr/bin/env python3
"""Checks that a compose file's broker settings equal the harness's.

  check_compose.py COMPOSE_FILE SHAPE

For every broker service (one whose environment sets KAFKA_PROCESS_ROLES;
one-shot helpers such as compose.secure.yaml's certs and users are not
brokers), its KAFKA_* environment, named as the apache/kafka image names it
(KAFKA_FOO_BAR -> foo.bar, ___ -> '-', __ -> '_'), minus the topology keys
that necessarily differ between containers and loopback processes (node
id, listeners, quorum voters, log dirs), minus the per-deployment files and
secrets (keystore and truststore locations and passwords, JAAS lines, the
image's *_FILENAME / *_CREDENTIALS helpers) and minus the JVM options
(KAFKA_HEAP_OPTS, KAFKA_OPTS, ...), must be exactly the lines of
`harness.sh props SHAPE shared`. Stdlib only: the compose files are written
without YAML anchors so a line scan is enough; a Go test
(e2e/compose_test.go) does the same thing the same way.
"""
import os
import re
import subprocess
import sys

TOPOLOGY = {
    "node.id",
    "listeners",
    "advertised.listeners",
    "listener.security.protocol.map",
    "inter.broker.listener.name",
    "controller.quorum.voters",
    "log.dirs",
}
# files and secrets: where each deployment keeps them, not how Kafka behaves
PER_DEPLOYMENT = {
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.key.password",
    "ssl.truststore.location",
    "ssl.truststore.password",
}
NOT_PROPERTIES = {
    "KAFKA_HEAP_OPTS", "KAFKA_OPTS", "KAFKA_JMX_OPTS", "KAFKA_LOG4J_OPTS",
    # the apache/kafka image's helpers: file names it turns into the
    # keystore location and passwords
    "KAFKA_SSL_KEYSTORE_FILENAME", "KAFKA_SSL_KEYSTORE_CREDENTIALS", "KAFKA_SSL_KEY_CREDENTIALS",
    "KAFKA_SSL_TRUSTSTORE_FILENAME", "KAFKA_SSL_TRUSTSTORE_CREDENTIALS",
}


def property_name(env):
    """KAFKA_FOO_BAR -> foo.bar, as the apache/kafka image converts names."""
    name = env[len("KAFKA_"):]
    name = re.sub(r"(?<=[^_])_(?=[^_])", ".", name)
    return name.replace("___", "-").replace("__", "_").lower()


def compared(prop):
    return prop not in TOPOLOGY and prop not in PER_DEPLOYMENT and not prop.endswith(".sasl.jaas.config")


def services(path):
    """{service: {ENV: value}} from the environment maps of a compose file."""
    out, svc, in_env, env_indent = {}, None, False, 0
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        m = re.match(r"^  ([A-Za-z0-9_.-]+):\s*$", line)
        if m:
            svc, in_env = m.group(1), False
            out[svc] = {}
            continue
        if svc is None:
            continue
        if re.match(r"^\s+environment:\s*$", line):
            in_env, env_indent = True, indent
            continue
        if in_env:
            if indent <= env_indent:
                in_env = False
                continue
            m = re.match(r"^\s+([A-Z0-9_]+):\s*(.*?)\s*$", line)
            if not m:
                raise SystemExit(f"{path}: cannot read environment line {line!r} (use KEY: value)")
            value = m.group(2)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            out[svc][m.group(1)] = value
    return out


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    path, shape = sys.argv[1], sys.argv[2]
    harness = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness.sh")
    shared = subprocess.run([harness, "props", shape, "shared"], check=True,
                            capture_output=True, text=True).stdout
    want = dict(l.split("=", 1) for l in shared.splitlines() if l and not l.startswith("#"))
    svcs = {name: env for name, env in services(path).items() if "KAFKA_PROCESS_ROLES" in env}
    if not svcs:
        raise SystemExit(f"{path}: no broker services found (none sets KAFKA_PROCESS_ROLES)")
    bad = 0
    for name, env in svcs.items():
        got = {}
        for k, v in env.items():
            if not k.startswith("KAFKA_") or k in NOT_PROPERTIES:
                continue
            prop = property_name(k)
            if compared(prop):
                got[prop] = v
        for k in sorted(set(want) | set(got)):
            if want.get(k) != got.get(k):
                bad += 1
                print(f"{path} {name}: {k}: harness={want.get(k)!r} compose={got.get(k)!r}")
    if bad:
        raise SystemExit(1)
    print(f"{path}: {len(svcs)} broker service(s) match `harness.sh props {shape} shared` ({len(want)} settings)")


if __name__ == "__main__":
    main()
