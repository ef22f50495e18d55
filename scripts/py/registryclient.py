"""Offset Lab: confluent-kafka's serializers writing through a Schema
Registry, the witness of the dashboard's decoding (e2e/schema_registry_test.go).

    registryclient.py BOOTSTRAP REGISTRY_URL TOPIC            # Avro
    registryclient.py BOOTSTRAP REGISTRY_URL TOPIC protobuf   # Protobuf

Avro: registers the Order schema (subject TOPIC-value, the serializer's
default) and produces three orders with it, then prints what it wrote as
JSON: {"schemaId": N, "orders": [...]}. Protobuf: a Price, whose zone is a
Zone of the file it imports (the serializer registers lab/zone.proto under
its own subject and references it), and its nested Tier message (message
indexes [0] and [0, 0]), built from descriptors (no protoc), printing
{"schemaId": N}. JSON Schema: two events the
schema accepts, printing {"schemaId": N, "events": [...]}.
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


def protobuf(bootstrap, registry, topic):
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    field = descriptor_pb2.FieldDescriptorProto
    zone_fdp = descriptor_pb2.FileDescriptorProto(name="lab/zone.proto", package="lab", syntax="proto3")
    zone = zone_fdp.message_type.add(name="Zone")
    zone.field.add(name="zone_name", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    fdp = descriptor_pb2.FileDescriptorProto(name="lab/price.proto", package="lab", syntax="proto3",
                                             dependency=["lab/zone.proto"])
    price = fdp.message_type.add(name="Price")
    price.field.add(name="sku", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    price.field.add(name="cents", number=2, type=field.TYPE_INT64, label=field.LABEL_OPTIONAL)
    price.field.add(name="zone", number=3, type=field.TYPE_MESSAGE, type_name=".lab.Zone", label=field.LABEL_OPTIONAL)
    tier = price.nested_type.add(name="Tier")
    tier.field.add(name="level", number=1, type=field.TYPE_INT32, label=field.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(zone_fdp)
    pool.Add(fdp)
    Price = message_factory.GetMessageClass(pool.FindMessageTypeByName("lab.Price"))
    Tier = message_factory.GetMessageClass(pool.FindMessageTypeByName("lab.Price.Tier"))
    Zone = message_factory.GetMessageClass(pool.FindMessageTypeByName("lab.Zone"))
    client = SchemaRegistryClient({"url": registry})
    conf = {"use.deprecated.format": False}
    producer = Producer({"bootstrap.servers": bootstrap})
    ctx = SerializationContext(topic, MessageField.VALUE)
    producer.produce(topic, value=ProtobufSerializer(Price, client, conf)(Price(sku="S-1", cents=1500, zone=Zone(zone_name="EU")), ctx))
    producer.produce(topic, value=ProtobufSerializer(Tier, client, conf)(Tier(level=3), ctx))
    if producer.flush(30) != 0:
        sys.exit("not every price was delivered")
    print(json.dumps({"schemaId": client.get_latest_version(topic + "-value").schema_id}))


EVENT = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Event",
    "type": "object",
    "properties": {"kind": {"type": "string"}, "amount": {"type": "integer"}},
    "required": ["kind"],
}

EVENTS = [{"kind": "paid", "amount": 30000}, {"kind": "refunded", "amount": 1200}]


def json_schema(bootstrap, registry, topic):
    from confluent_kafka.schema_registry.json_schema import JSONSerializer

    client = SchemaRegistryClient({"url": registry})
    serialize = JSONSerializer(json.dumps(EVENT), client)
    producer = Producer({"bootstrap.servers": bootstrap})
    ctx = SerializationContext(topic, MessageField.VALUE)
    for event in EVENTS:
        producer.produce(topic, value=serialize(event, ctx))
    if producer.flush(30) != 0:
        sys.exit("not every event was delivered")
    print(json.dumps({"schemaId": client.get_latest_version(topic + "-value").schema_id, "events": EVENTS}))


def main():
    bootstrap, registry, topic = sys.argv[1:4]
    if sys.argv[4:] == ["protobuf"]:
        protobuf(bootstrap, registry, topic)
        return
    if sys.argv[4:] == ["json"]:
        json_schema(bootstrap, registry, topic)
        return
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
