#!/usr/bin/env python3
"""Tiny stdlib-only Kafka Metadata probe used by harness.sh.

Starting a JVM just to ask "are you up?" costs 1-3 s on a 2-core machine, so
the harness asks with a hand-written Metadata v4 request instead (v4 is the
oldest Metadata version Kafka 4.x still accepts, KIP-896, and the newest one
that needs no tagged fields).

  kprobe.py [SECURITY] meta HOST:PORT [TOPIC...]
      one Metadata request; prints JSON (cluster id, controller, brokers,
      and for each TOPIC its partitions with leader, replicas and ISR).
  kprobe.py [SECURITY] wait --servers H:P,H:P --expect-ids 1,2,3 --timeout S [--pids P,P]
      polls every server until each answers Metadata and lists every
      expected node id among its live (unfenced) brokers; exits 0 when all
      do, 1 on timeout, 2 as soon as one of the given pids has died.
  kprobe.py [SECURITY] acls --server H:P --principal User:NAME --file ACLS [--timeout S]
      creates the ALLOW bindings listed in ACLS for the principal (one
      CreateAcls request) and waits until the broker's authorizer lists
      them all (DescribeAcls); exits 0 when it does, 1 otherwise.
      ACLS lines: RESOURCE_TYPE NAME PATTERN_TYPE OPERATION, e.g.
      "Topic * Literal Read", in kafka-acls' spelling; '#' starts a comment.
  kprobe.py free-ports N
      prints N distinct free TCP ports on 127.0.0.1, one per line.

SECURITY, for the harness's "secure" shape (SASL_SSL):
  --tls-ca FILE       speak TLS and trust the PEM certificates in FILE
                      (hostname checked against the server's SANs)
  --sasl-plain FILE   authenticate with SASL/PLAIN; FILE holds the user
                      name on its first line and the password on its second
                      (a file, so the password never shows in `ps`)
"""

import json
import os
import random
import socket
import ssl
import struct
import sys
import time

METADATA = 3
DESCRIBE_ACLS = 29
CREATE_ACLS = 30
SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
CLIENT_ID = b"offsetlab-harness"

# Kafka's enum codes (org.apache.kafka.common.resource / .acl)
RESOURCE_TYPES = {"any": 1, "topic": 2, "group": 3, "cluster": 4, "transactionalid": 5,
                  "delegationtoken": 6, "user": 7}
PATTERN_TYPES = {"any": 1, "match": 2, "literal": 3, "prefixed": 4}
OPERATIONS = {"any": 1, "all": 2, "read": 3, "write": 4, "create": 5, "delete": 6, "alter": 7,
              "describe": 8, "clusteraction": 9, "describeconfigs": 10, "alterconfigs": 11,
              "idempotentwrite": 12, "createtokens": 13, "describetokens": 14}
ALLOW = 3


class Reader:
    def __init__(self, buf):
        self.buf = buf
        self.pos = 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        val = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return val[0] if len(val) == 1 else val

    def i8(self):
        return self.take(">b")

    def i16(self):
        return self.take(">h")

    def i32(self):
        return self.take(">i")

    def string(self):
        n = self.i16()
        if n < 0:
            return None
        s = self.buf[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return s

    def array(self, item):
        n = self.i32()
        if n < 0:
            return None
        return [item() for _ in range(n)]


def encode_string(s):
    b = s.encode("utf-8")
    return struct.pack(">h", len(b)) + b


def request_frame(api_key, version, correlation_id, body):
    header = struct.pack(">hhi", api_key, version, correlation_id)
    header += struct.pack(">h", len(CLIENT_ID)) + CLIENT_ID
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def metadata_request_body(topics):
    body = struct.pack(">i", len(topics)) + b"".join(encode_string(t) for t in topics)
    return body + struct.pack(">b", 0)  # allow_auto_topic_creation = false


def encode_bytes(b):
    return struct.pack(">i", len(b)) + b


def encode_nullable_string(s):
    return struct.pack(">h", -1) if s is None else encode_string(s)


def recv_exact(sock, n):
    chunks = []
    while n > 0:
        chunk = sock.recv(n)
        if not chunk:
            raise ConnectionError("connection closed by broker")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def split_hostport(server):
    host, _, port = server.rpartition(":")
    return host, int(port)


class Security:
    """How to reach a listener: plaintext, or TLS with SASL/PLAIN."""

    def __init__(self, ca=None, plain_file=None):
        self.ca = ca
        self.user = self.password = None
        if plain_file:
            with open(plain_file, encoding="utf-8") as f:
                lines = f.read().splitlines()
            if len(lines) < 2:
                raise SystemExit(f"{plain_file}: want the user name and the password on two lines")
            self.user, self.password = lines[0], lines[1]


class Conn:
    """One connection to a broker; call() sends a request, returns a Reader."""

    def __init__(self, server, timeout, security):
        host, port = split_hostport(server)
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.settimeout(timeout)
        try:
            if security.ca:
                ctx = ssl.create_default_context(cafile=security.ca)
                sock = ctx.wrap_socket(sock, server_hostname=host)
            self.sock = sock
            self.correlation = 0
            if security.user is not None:
                self.sasl_plain(security.user, security.password)
        except BaseException:
            sock.close()
            raise

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def call(self, api_key, version, body):
        self.correlation += 1
        self.sock.sendall(request_frame(api_key, version, self.correlation, body))
        size = struct.unpack(">i", recv_exact(self.sock, 4))[0]
        r = Reader(recv_exact(self.sock, size))
        if r.i32() != self.correlation:
            raise ValueError("correlation id mismatch")
        return r

    def sasl_plain(self, user, password):
        r = self.call(SASL_HANDSHAKE, 1, encode_string("PLAIN"))
        err = r.i16()
        if err != 0:
            raise ValueError(f"SaslHandshake PLAIN: error code {err}, broker offers {r.array(r.string)}")
        token = b"\0" + user.encode("utf-8") + b"\0" + password.encode("utf-8")
        r = self.call(SASL_AUTHENTICATE, 1, encode_bytes(token))
        err = r.i16()
        msg = r.string()
        if err != 0:
            raise ValueError(f"SaslAuthenticate as {user}: error code {err}: {msg}")


def metadata(server, topics=(), timeout=2.0, security=None):
    with Conn(server, timeout, security or Security()) as conn:
        r = conn.call(METADATA, 4, metadata_request_body(list(topics)))
    r.i32()  # throttle_time_ms
    brokers = r.array(lambda: {"id": r.i32(), "host": r.string(), "port": r.i32(), "rack": r.string()})
    cluster_id = r.string()
    controller_id = r.i32()

    def partition():
        err = r.i16()
        idx = r.i32()
        leader = r.i32()
        replicas = r.array(r.i32)
        isr = r.array(r.i32)
        return {"partition": idx, "error_code": err, "leader": leader, "replicas": replicas, "isr": isr}

    def topic():
        err = r.i16()
        name = r.string()
        internal = r.i8() != 0
        parts = r.array(partition)
        return {"name": name, "error_code": err, "internal": internal, "partitions": parts}

    topics_out = r.array(topic)
    return {
        "server": server,
        "cluster_id": cluster_id,
        "controller_id": controller_id,
        "brokers": sorted(brokers, key=lambda b: b["id"]),
        "topics": topics_out,
    }


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child still answers kill(0); look at its state
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def cmd_wait(args, security):
    opts = {}
    it = iter(args)
    for a in it:
        opts[a.lstrip("-")] = next(it)
    servers = [s for s in opts["servers"].split(",") if s]
    expect = {int(i) for i in opts.get("expect-ids", "").split(",") if i}
    pids = [int(p) for p in opts.get("pids", "").split(",") if p]
    deadline = time.monotonic() + float(opts.get("timeout", "90"))
    pending = list(servers)
    last = {}
    while True:
        for pid in pids:
            if not pid_alive(pid):
                print(f"process {pid} exited while waiting for the broker", file=sys.stderr)
                return 2
        still = []
        for s in pending:
            try:
                md = metadata(s, timeout=1.0, security=security)
                ids = {b["id"] for b in md["brokers"]}
                if expect <= ids:
                    continue
                last[s] = f"answers, live brokers {sorted(ids)}"
            except (OSError, ValueError, struct.error) as e:
                last[s] = f"{type(e).__name__}: {e}"
            still.append(s)
        pending = still
        if not pending:
            return 0
        if time.monotonic() >= deadline:
            for s in pending:
                print(f"{s}: not ready: {last.get(s)}", file=sys.stderr)
            return 1
        time.sleep(0.1)


def read_acls(path):
    """[(resource_type, name, pattern_type, operation)] as Kafka's codes."""
    out = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            try:
                rtype, name, pattern, op = parts
                out.append((RESOURCE_TYPES[rtype.lower()], name, PATTERN_TYPES[pattern.lower()],
                            OPERATIONS[op.lower()]))
            except (ValueError, KeyError):
                raise SystemExit(f"{path}:{no}: want RESOURCE_TYPE NAME PATTERN_TYPE OPERATION, got {line!r}")
    return out


def create_acls(conn, principal, acls):
    body = struct.pack(">i", len(acls))
    for rtype, name, pattern, op in acls:
        body += struct.pack(">b", rtype) + encode_string(name) + struct.pack(">b", pattern)
        body += encode_string(principal) + encode_string("*") + struct.pack(">bb", op, ALLOW)
    r = conn.call(CREATE_ACLS, 1, body)
    r.i32()  # throttle_time_ms
    results = r.array(lambda: (r.i16(), r.string()))
    bad = [f"{acls[i]}: error {err} {msg}" for i, (err, msg) in enumerate(results) if err != 0]
    if bad:
        raise ValueError("CreateAcls: " + "; ".join(bad))


def described_acls(conn, principal):
    """The set of (resource_type, name, pattern_type, operation) ALLOWed to principal."""
    body = struct.pack(">b", RESOURCE_TYPES["any"]) + encode_nullable_string(None)
    body += struct.pack(">b", PATTERN_TYPES["any"]) + encode_nullable_string(principal)
    body += encode_nullable_string(None) + struct.pack(">bb", OPERATIONS["any"], 1)
    r = conn.call(DESCRIBE_ACLS, 1, body)
    r.i32()  # throttle_time_ms
    err, msg = r.i16(), r.string()
    if err != 0:
        raise ValueError(f"DescribeAcls: error {err} {msg}")
    found = set()

    def resource():
        rtype, name, pattern = r.i8(), r.string(), r.i8()
        for _principal, _host, op, perm in r.array(lambda: (r.string(), r.string(), r.i8(), r.i8())):
            if perm == ALLOW:
                found.add((rtype, name, pattern, op))

    r.array(resource)
    return found


def cmd_acls(args, security):
    opts = {}
    it = iter(args)
    for a in it:
        opts[a.lstrip("-")] = next(it)
    acls = read_acls(opts["file"])
    principal = opts["principal"]
    deadline = time.monotonic() + float(opts.get("timeout", "30"))
    with Conn(opts["server"], 5.0, security) as conn:
        create_acls(conn, principal, acls)
        # CreateAcls answers once the controller committed the records; the
        # broker's authorizer applies them a moment later
        while True:
            missing = set(acls) - described_acls(conn, principal)
            if not missing:
                return 0
            if time.monotonic() >= deadline:
                print(f"ACLs for {principal} not visible yet: {sorted(missing)}", file=sys.stderr)
                return 1
            time.sleep(0.05)


def cmd_free_ports(n):
    """Prints n distinct free ports below the kernel's ephemeral range.

    A port from bind(0) is ephemeral: between this check and the JVM's own
    bind, any process asking for port 0 (a test's listener, an outgoing
    connection) may be handed the same port. Ports below the ephemeral
    range are never handed out that way, so only a process choosing ports
    as we do could collide.
    """
    low, high = 20000, ephemeral_low() - 1
    rng = random.SystemRandom()
    socks, seen = [], set()
    try:
        while len(socks) < n:
            port = rng.randint(low, high)
            if port in seen:
                continue
            seen.add(port)
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            socks.append(s)
        for s in socks:
            print(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return 0


def ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def main(argv):
    ca = plain = None
    while len(argv) >= 2 and argv[0] in ("--tls-ca", "--sasl-plain"):
        if argv[0] == "--tls-ca":
            ca = argv[1]
        else:
            plain = argv[1]
        argv = argv[2:]
    security = Security(ca, plain)
    if len(argv) >= 2 and argv[0] == "meta":
        try:
            print(json.dumps(metadata(argv[1], argv[2:], security=security)))
        except (OSError, ValueError, struct.error) as e:
            print(f"{argv[1]}: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        return 0
    if argv and argv[0] == "wait":
        return cmd_wait(argv[1:], security)
    if argv and argv[0] == "acls":
        try:
            return cmd_acls(argv[1:], security)
        except (OSError, ValueError, struct.error) as e:
            print(f"acls: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
    if len(argv) == 2 and argv[0] == "free-ports":
        return cmd_free_ports(int(argv[1]))
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
