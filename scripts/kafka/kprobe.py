#!/usr/bin/env python3
"""Tiny stdlib-only Kafka Metadata probe used by harness.sh.

Starting a JVM just to ask "are you up?" costs 1-3 s on a 2-core machine, so
the harness asks with a hand-written Metadata v4 request instead (v4 is the
oldest Metadata version Kafka 4.x still accepts, KIP-896, and the newest one
that needs no tagged fields).

  kprobe.py meta HOST:PORT [TOPIC...]
      one Metadata request; prints JSON (cluster id, controller, brokers,
      and for each TOPIC its partitions with leader, replicas and ISR).
  kprobe.py wait --servers H:P,H:P --expect-ids 1,2,3 --timeout S [--pids P,P]
      polls every server until each answers Metadata and lists every
      expected node id among its live (unfenced) brokers; exits 0 when all
      do, 1 on timeout, 2 as soon as one of the given pids has died.
  kprobe.py free-ports N
      prints N distinct free TCP ports on 127.0.0.1, one per line.
"""

import json
import os
import random
import socket
import struct
import sys
import time

METADATA = 3
CLIENT_ID = b"offsetlab-harness"


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


def metadata_request(correlation_id, topics):
    header = struct.pack(">hhi", METADATA, 4, correlation_id)
    header += struct.pack(">h", len(CLIENT_ID)) + CLIENT_ID
    body = struct.pack(">i", len(topics)) + b"".join(encode_string(t) for t in topics)
    body += struct.pack(">b", 0)  # allow_auto_topic_creation = false
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


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


def metadata(server, topics=(), timeout=2.0):
    host, port = split_hostport(server)
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(metadata_request(7, list(topics)))
        size = struct.unpack(">i", recv_exact(sock, 4))[0]
        r = Reader(recv_exact(sock, size))
    if r.i32() != 7:
        raise ValueError("correlation id mismatch")
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


def cmd_wait(args):
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
                md = metadata(s, timeout=1.0)
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
    if len(argv) >= 2 and argv[0] == "meta":
        try:
            print(json.dumps(metadata(argv[1], argv[2:])))
        except (OSError, ValueError, struct.error) as e:
            print(f"{argv[1]}: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        return 0
    if argv and argv[0] == "wait":
        return cmd_wait(argv[1:])
    if len(argv) == 2 and argv[0] == "free-ports":
        return cmd_free_ports(int(argv[1]))
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
