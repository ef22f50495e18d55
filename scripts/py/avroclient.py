"""Offset Lab: confluent-kafka's Avro serializer writing through a Schema
Registry, the witness of the dashboard's decoding (e2e/schema_registry_test.go).

    avroclient.py BOOTSTRAP REGISTRY_URL TOPIC

registers the Order schema (subject TOPIC-value, the serializer's default)
and produces three orders with it, then prints what it wrote as JSON:
{"schemaId": N, "orders": [...]}.
"""
import json
import sys

from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

ORDER = {
    "type": "record",
    "name": "Order",
    "namespace": "lab",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "total", "type": "long"},
        {"name": "items", "type": {"type": "array", "items": "string"}},
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}

ORDERS = [
    {"id": "O-1", "total": 30000, "items": ["S-1", "S-2"], "note": None},
    {"id": "O-2", "total": 42000, "items": ["S-3"], "note": "gift"},
    {"id": "O-3", "total": 27000, "items": [], "note": None},
]


def main():
    bootstrap, registry, topic = sys.argv[1:4]
    client = SchemaRegistryClient({"url": registry})
    serialize = AvroSerializer(client, json.dumps(ORDER))
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    ctx = SerializationContext(topic, MessageField.VALUE)
    for order in ORDERS:
        producer.produce(topic, key=order["id"], value=serialize(order, ctx))
    if producer.flush(30) != 0:
        sys.exit("not every order was delivered")
    schema_id = client.get_latest_version(topic + "-value").schema_id
    print(json.dumps({"schemaId": schema_id, "orders": ORDERS}))


if __name__ == "__main__":
    main()
