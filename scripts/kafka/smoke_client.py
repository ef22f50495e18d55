#!/usr/bin/env python3
"""Client-side checks for scripts/kafka/smoke.sh, using confluent-kafka
(librdkafka), i.e. a client independent of both Kafka's Java tools and the
project's Go code.

  smoke_client.py txn BOOTSTRAP TOPIC
      a transactional producer commits one transaction and aborts another;
      a read_committed consumer must see only the committed records and a
      read_uncommitted one both (proves the transaction coordinator works,
      i.e. __transaction_state could be created with the configured RF/ISR).
  smoke_client.py acks-all BOOTSTRAP TOPIC EXPECT
      produces 3 records with acks=all, no retries; EXPECT is "ok" or an
      error name such as NOT_ENOUGH_REPLICAS that every delivery must report.
"""
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition


def read_all(bootstrap, topic, isolation):
    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"smoke-{uuid.uuid4()}",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "isolation.level": isolation,
    })
    c.assign([TopicPartition(topic, 0, 0)])
    got, deadline, idle_since = [], time.time() + 20, None
    while time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            if got and idle_since and time.time() - idle_since > 1.5:
                break
            idle_since = idle_since or time.time()
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                continue
            raise SystemExit(f"consume error: {m.error()}")
        idle_since = time.time()
        got.append((m.offset(), m.value().decode()))
    c.close()
    return got


def txn(bootstrap, topic):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"smoke-{uuid.uuid4()}"})
    t0 = time.time()
    p.init_transactions(30)
    print(f"init_transactions: {time.time() - t0:.2f}s")
    p.begin_transaction()
    p.produce(topic, b"committed-1")
    p.produce(topic, b"committed-2")
    p.commit_transaction(30)
    p.begin_transaction()
    p.produce(topic, b"aborted-1")
    p.flush(30)
    p.abort_transaction(30)
    p.begin_transaction()
    p.produce(topic, b"committed-3")
    p.commit_transaction(30)
    rc = read_all(bootstrap, topic, "read_committed")
    ru = read_all(bootstrap, topic, "read_uncommitted")
    print("read_committed:  ", rc)
    print("read_uncommitted:", ru)
    assert [v for _, v in rc] == ["committed-1", "committed-2", "committed-3"], rc
    assert [v for _, v in ru] == ["committed-1", "committed-2", "aborted-1", "committed-3"], ru
    # offsets: 0,1 data, 2 COMMIT marker, 3 aborted data, 4 ABORT marker, 5 data, 6 COMMIT
    assert [o for o, _ in ru] == [0, 1, 3, 5], ru
    print("txn: OK")


def acks_all(bootstrap, topic, expect):
    p = Producer({
        "bootstrap.servers": bootstrap,
        "acks": "all",
        "enable.idempotence": False,
        "retries": 0,
        "delivery.timeout.ms": 10000,
    })
    results = []

    def report(err, msg):
        results.append("ok" if err is None else err.name())
        print(f"delivery: {'ok offset=%d' % msg.offset() if err is None else err}")

    for i in range(3):
        p.produce(topic, key=b"order-1001", value=f"event-{i}".encode(), callback=report)
    p.flush(20)
    assert results == [expect] * 3, (results, expect)
    print(f"acks-all: all {len(results)} deliveries -> {expect}: OK")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "txn" and len(sys.argv) == 4:
        txn(sys.argv[2], sys.argv[3])
    elif cmd == "acks-all" and len(sys.argv) == 5:
        acks_all(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
