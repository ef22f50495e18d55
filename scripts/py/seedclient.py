"""The seeds' own client, confluent-kafka (librdkafka), used by the Go tests
to prove that a client Offset Lab did not write sees what the dashboard says.

Subcommands (all print one JSON document on stdout):
  read BOOTSTRAP TOPIC ISOLATION       what a consumer at that isolation level
                                       receives from offset 0 (the seed's read.py)
  txn-demo BOOTSTRAP TOPIC TXN_ID      commit one transaction, abort one,
                                       commit another: one record each
  processor BOOTSTRAP MODE INPUT OUTPUT GROUP TXN_ID [CRASH_AT]
                                       the seed's processor.py in tx mode:
                                       crashes with os._exit before
                                       commit_transaction at CRASH_AT
"""

import json
import os
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition


def read(bootstrap, topic, isolation):
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": "offset-lab-reader",
        "enable.auto.commit": False,
        "isolation.level": isolation,
        "auto.offset.reset": "earliest",
        "enable.partition.eof": True,
    })
    consumer.assign([TopicPartition(topic, 0, 0)])
    out = []
    while True:
        msg = consumer.poll(10.0)
        if msg is None:
            raise SystemExit("read: no message and no end of partition within 10s")
        if msg.error():
            if msg.error().code() == -191:  # _PARTITION_EOF
                break
            raise KafkaException(msg.error())
        value = msg.value()
        out.append({"offset": msg.offset(), "value": None if value is None else value.decode("utf-8", "replace")})
    consumer.close()
    print(json.dumps({"records": out}))


def txn_demo(bootstrap, topic, txn_id):
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id})
    producer.init_transactions(30)
    for value, commit in (("first", True), ("second", False), ("third", True)):
        producer.begin_transaction()
        producer.produce(topic, value=value.encode(), partition=0)
        producer.flush(30)
        if commit:
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)
    print(json.dumps({"ok": True}))


def processor(bootstrap, mode, input_topic, output, group, txn_id, crash_at=None):
    """processor.py of seed 000, tx mode: begin, produce, send offsets, commit."""
    if mode != "tx":
        raise SystemExit("only tx mode is implemented here")
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "isolation.level": "read_committed",
        "enable.partition.eof": True,
    })
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id})
    producer.init_transactions(60)
    committed = committed_offset(consumer, input_topic)
    start = committed if committed >= 0 else 0
    consumer.assign([TopicPartition(input_topic, 0, start)])
    lines = []
    while True:
        msg = consumer.poll(10.0)
        if msg is None:
            raise SystemExit("processor: nothing within 10s")
        if msg.error():
            if msg.error().code() == -191:
                break
            raise KafkaException(msg.error())
        order_id, spec = msg.value().decode().split(" ", 1)
        qty, price = spec.split("x")
        total = f"{order_id} total={int(qty) * int(price)}"
        producer.begin_transaction()
        producer.produce(output, value=total.encode(), partition=0)
        producer.flush(30)  # the seed's O-2 reached the partition before the crash
        producer.send_offsets_to_transaction(
            [TopicPartition(input_topic, 0, msg.offset() + 1)],
            consumer.consumer_group_metadata(), 30)
        lines.append(f"offset {msg.offset()} {order_id} processed, wrote '{total}' to {output}")
        if order_id == crash_at:
            lines.append(f"{order_id}: process killed before commit_transaction")
            print(json.dumps({"log": lines, "crashed": True}), flush=True)
            os._exit(1)
        producer.commit_transaction(30)
    print(json.dumps({"log": lines, "crashed": False}))
    os._exit(0)  # like the seed's script ending: no close() niceties needed


def committed_offset(consumer, topic):
    """consumer.committed(), retried while a fresh cluster is still creating
    __consumer_offsets (the coordinator is not available yet)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return consumer.committed([TopicPartition(topic, 0)], 30)[0].offset
        except KafkaException as e:
            err = e.args[0]
            transient = err.retriable() or err.code() in (
                KafkaError.NOT_COORDINATOR,
                KafkaError.COORDINATOR_NOT_AVAILABLE,
                KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
            )
            if time.monotonic() > deadline or not transient:
                raise
            print(f"committed(): {e.args[0]}; retrying", file=sys.stderr)
            time.sleep(0.5)


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "read":
        read(*args)
    elif cmd == "txn-demo":
        txn_demo(*args)
    elif cmd == "processor":
        processor(*args)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
