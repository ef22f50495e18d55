"""A student doing a hands-on exercise with confluent-kafka (librdkafka),
as a student's own program would: the Go tests run it with the identity the
join gave (JSON on argv[1]) and a run name (argv[2]), then assert what the
grader says of the broker's log.

Runs (print one JSON document on stdout):
  idempotent        five records r0…r4, enable.idempotence=true
  idempotence-off   the same with enable.idempotence=false
  commit            one transaction of three records, committed
  commit-aborted    the same transaction, aborted
  abort             a committed transaction, then an aborted one
  read-committed    a committed transaction, then a read_committed consumer
                    of the group that commits its position
  process [CRASH]   the exactly-once processor: orders → one total per order
                    in transactions with send_offsets_to_transaction; with
                    CRASH it kills itself (SIGKILL) after writing the CRASHth
                    order and before committing
  foreign-topic     write another student's topic (argv[3]): the error
  foreign-txn       use another student's transactional id (argv[3])
"""

import json
import os
import signal
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition


def conf(identity):
    c = {"bootstrap.servers": identity["bootstrap"],
         "security.protocol": identity["securityProtocol"]}
    if identity.get("username"):
        c.update({"sasl.mechanism": identity["saslMechanism"],
                  "sasl.username": identity["username"],
                  "sasl.password": identity["password"]})
    return c


def transaction(p, topic, values, commit):
    p.begin_transaction()
    for v in values:
        p.produce(topic, value=v)
    if commit:
        p.commit_transaction(30)
    else:
        p.flush(30)  # else abort_transaction drops the unsent records
        p.abort_transaction(30)


def main():
    identity, run = json.loads(sys.argv[1]), sys.argv[2]
    names = identity["names"]
    topic, txn_id, group = names["topic"], names["transactionalId"], names["group"]
    c = conf(identity)
    out = {"run": run}
    if run in ("idempotent", "idempotence-off"):
        p = Producer({**c, "enable.idempotence": run == "idempotent"})
        for i in range(5):
            p.produce(topic, value=f"r{i}")
        out["unflushed"] = p.flush(30)
    elif run in ("commit", "commit-aborted", "abort", "read-committed"):
        p = Producer({**c, "transactional.id": txn_id})
        p.init_transactions(30)
        if run == "abort":
            transaction(p, topic, ["first"], True)
            transaction(p, topic, ["second"], False)
        elif run == "read-committed":
            transaction(p, topic, ["a", "b"], True)
        else:
            transaction(p, topic, ["a", "b", "c"], run == "commit")
        if run == "read-committed":
            consumer = Consumer({**c, "group.id": group, "isolation.level": "read_committed",
                                 "auto.offset.reset": "earliest", "enable.auto.commit": False})
            consumer.subscribe([topic])
            got = []
            while len(got) < 2:
                m = consumer.poll(30)
                if m is None:
                    raise SystemExit("read-committed: nothing to read within 30 s")
                if not m.error():
                    got.append(m.offset())
            # Poll once more so that the position moves past the marker,
            # then commit the position, as a consumer that processed all.
            consumer.poll(2)
            consumer.commit(asynchronous=False)
            out["consumed"] = got
            consumer.close()
    elif run == "process":
        crash_at = int(sys.argv[3]) if len(sys.argv) > 3 else 0
        # A short session: the killed run's member leaves the group soon.
        consumer = Consumer({**c, "group.id": group, "isolation.level": "read_committed",
                             "auto.offset.reset": "earliest", "enable.auto.commit": False,
                             "session.timeout.ms": 6000})
        consumer.subscribe(["orders"])
        p = Producer({**c, "transactional.id": txn_id})
        p.init_transactions(30)
        done = 0
        orders = TopicPartition("orders", 0)
        deadline = time.time() + 90
        while time.time() < deadline:
            m = consumer.poll(1)
            if m is None:
                if consumer.assignment():
                    _, end = consumer.get_watermark_offsets(orders, 10)
                    if consumer.position([orders])[0].offset >= end:
                        break  # every order processed
                continue
            if m.error():
                continue
            p.begin_transaction()
            p.produce(topic, key=m.key(), value=b"total of " + m.key())
            done += 1
            if done == crash_at:
                p.flush(30)
                os.kill(os.getpid(), signal.SIGKILL)
            p.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                          consumer.consumer_group_metadata(), 30)
            p.commit_transaction(30)
        out["processed"] = done
        consumer.close()
    elif run == "foreign-topic":
        p = Producer({**c, "message.timeout.ms": 10000})
        errors = []
        p.produce(sys.argv[3], value="not mine", on_delivery=lambda err, msg: errors.append(err and err.name()))
        p.flush(20)
        out["error"] = errors[0] if errors else None
    elif run == "foreign-txn":
        p = Producer({**c, "transactional.id": sys.argv[3]})
        try:
            p.init_transactions(20)
            out["error"] = None
        except KafkaException as e:
            out["error"] = e.args[0].name()
    else:
        raise SystemExit("unknown run " + run)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
