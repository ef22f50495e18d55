package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// testRecord is one record of a test batch; length, when not zero,
// overrides the record's true length.
type testRecord struct {
	value       []byte
	offsetDelta int32
	length      int32
	headerKey   *int64 // overrides the first header's key length
}

// encodeRecords writes v2 records the way producers do, or with the lies
// each testRecord asks for.
func encodeRecords(recs []testRecord) []byte {
	var out []byte
	for _, r := range recs {
		var body []byte
		body = append(body, 0)                                 // attributes
		body = binary.AppendVarint(body, 0)                    // timestamp delta
		body = binary.AppendVarint(body, int64(r.offsetDelta)) // offset delta
		body = binary.AppendVarint(body, -1)                   // null key
		body = binary.AppendVarint(body, int64(len(r.value)))  // value
		body = append(body, r.value...)
		if r.headerKey != nil {
			body = binary.AppendVarint(body, 1)
			body = binary.AppendVarint(body, *r.headerKey)
			body = binary.AppendVarint(body, -1)
		} else {
			body = binary.AppendVarint(body, 0)
		}
		length := int64(len(body))
		if r.length != 0 {
			length = int64(r.length)
		}
		out = binary.AppendVarint(out, length)
		out = append(out, body...)
	}
	return out
}

// testBatch is a v2 batch of numRecords over records (compressed with codec
// when not zero) with a valid CRC.
func testBatch(t *testing.T, codec kgo.CompressionCodec, numRecords int32, records []byte) []byte {
	t.Helper()
	rb := kmsg.RecordBatch{PartitionLeaderEpoch: -1, Magic: 2, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: numRecords, LastOffsetDelta: numRecords - 1, Records: records}
	if codec != (kgo.CompressionCodec{}) {
		c, err := kgo.DefaultCompressor(codec)
		if err != nil {
			t.Fatal(err)
		}
		compressed, typ := c.Compress(new(bytes.Buffer), records)
		rb.Attributes = int16(typ)
		rb.Records = append([]byte(nil), compressed...)
	}
	raw := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:12], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:21], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

func TestBatchValidator(t *testing.T) {
	t.Parallel()
	v := []byte("value")
	two := []testRecord{{value: v}, {value: v, offsetDelta: 1}}
	negative := int64(-1)
	none := kgo.CompressionCodec{}
	zeros := make([]byte, 40<<20)
	bomb := encodeRecords([]testRecord{{value: zeros}})
	badCRC := testBatch(t, none, 2, encodeRecords(two))
	badCRC[20] ^= 1
	tests := []struct {
		name  string
		batch []byte
		want  string // "" for a batch that passes (or that kfake refuses itself)
	}{
		{"two records", testBatch(t, none, 2, encodeRecords(two)), ""},
		{"gzip", testBatch(t, kgo.GzipCompression(), 2, encodeRecords(two)), ""},
		{"snappy", testBatch(t, kgo.SnappyCompression(), 2, encodeRecords(two)), ""},
		{"lz4", testBatch(t, kgo.Lz4Compression(), 2, encodeRecords(two)), ""},
		{"zstd", testBatch(t, kgo.ZstdCompression(), 2, encodeRecords(two)), ""},
		{"a bad CRC, which kfake refuses itself", badCRC, ""},
		{"the fuzz corpus's batch", recordBatch(-1, -1, false, []byte("k"), []byte("v")), ""},
		{"a record length past the batch (kfake panics)", testBatch(t, none, 1, encodeRecords([]testRecord{{value: v, length: 1000}})), "length 1000, but its fields take 11 bytes"},
		{"the same, compressed", testBatch(t, kgo.ZstdCompression(), 1, encodeRecords([]testRecord{{value: v, length: 1000}})), "length 1000, but its fields take 11 bytes"},
		{"a record length past its value", testBatch(t, none, 1, encodeRecords([]testRecord{{value: make([]byte, 100), length: 50}})), "runs past"},
		{"a record length short of its fields", testBatch(t, none, 1, encodeRecords([]testRecord{{value: v, length: 4}})), "runs past"},
		{"a negative record length", testBatch(t, none, 1, encodeRecords([]testRecord{{value: v, length: -3}})), "negative record length"},
		{"a record length over its fields", testBatch(t, none, 1, append(encodeRecords([]testRecord{{value: v, length: 13}}), 0)), "length 13, but its fields take 11 bytes"},
		{"fewer records than the batch says", testBatch(t, none, 3, encodeRecords(two)), "end inside a record"},
		{"more records than the batch says", testBatch(t, none, 1, encodeRecords(two)), "bytes left"},
		{"offset deltas out of order", testBatch(t, none, 2, encodeRecords([]testRecord{{value: v}, {value: v, offsetDelta: 5}})), "offset delta 5"},
		{"a negative header key length", testBatch(t, none, 1, encodeRecords([]testRecord{{value: v, headerKey: &negative}})), "negative header key"},
		{"no records", testBatch(t, none, 0, nil), "no records"},
		{"a zstd bomb", testBatch(t, kgo.ZstdCompression(), 1, bomb), "more than"},
		{"a gzip bomb", testBatch(t, kgo.GzipCompression(), 1, bomb), "more than"},
		{"a snappy bomb", testBatch(t, kgo.SnappyCompression(), 1, bomb), "more than"},
		{"records that do not decompress", func() []byte {
			b := testBatch(t, kgo.GzipCompression(), 2, encodeRecords(two))
			b[len(b)-5] ^= 0xff
			binary.BigEndian.PutUint32(b[17:21], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
			return b
		}(), "decompress"},
	}
	var bv batchValidator
	for _, tt := range tests {
		err := bv.check(tt.batch)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: check = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCorruptBatchAnsweredAsKafkaDoes produces a batch whose record lies
// about its length, with a correct CRC. kfake would store it and panic on
// the next ListOffsets for the latest timestamp (the dashboard's
// offset-by-time lookup sends those); Kafka answers INVALID_RECORD, and so
// must the guard, keeping the connection.
func TestCorruptBatchAnsweredAsKafkaDoes(t *testing.T) {
	t.Parallel()
	c, logs := startGuarded(t, PortLimits{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: "t", Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	produce := kmsg.NewPtrProduceRequest()
	produce.Version, produce.Acks = 11, -1
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "t"
	for p, records := range [][]byte{
		testBatch(t, kgo.CompressionCodec{}, 1, encodeRecords([]testRecord{{value: []byte("lie"), length: 1000}})),
		testBatch(t, kgo.CompressionCodec{}, 1, encodeRecords([]testRecord{{value: []byte("fine")}})),
	} {
		pp := kmsg.NewProduceRequestTopicPartition()
		pp.Partition, pp.Records = int32(p), records
		pt.Partitions = append(pt.Partitions, pp)
	}
	produce.Topics = append(produce.Topics, pt)
	conn := dialPort(t, c)
	if _, err := conn.Write(appendRequestFrame(nil, produce, 1, "crafted")); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, _, err := readResponse(conn, produce)
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.(*kmsg.ProduceResponse).Topics[0].Partitions
	if len(parts) != 2 || parts[0].ErrorCode != kerr.InvalidRecord.Code || parts[1].ErrorCode != 0 {
		t.Fatalf("produce answer %+v; want INVALID_RECORD for partition 0 only", parts)
	}
	if !strings.Contains(logs.String(), "record length 1000, but its fields take 9 bytes") {
		t.Errorf("the log does not say why:\n%s", logs.String())
	}

	// The connection is still good, and the broker survives the
	// requests that walk the partition's records.
	list := kmsg.NewPtrListOffsetsRequest()
	list.Version = 8
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = "t"
	for p := range int32(2) {
		for _, ts := range []int64{-3, 0} { // the latest timestamp; by timestamp
			lp := kmsg.NewListOffsetsRequestTopicPartition()
			lp.Partition, lp.Timestamp = p, ts
			lt.Partitions = append(lt.Partitions, lp)
		}
	}
	list.Topics = append(list.Topics, lt)
	if _, err := conn.Write(appendRequestFrame(nil, list, 2, "crafted")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readResponse(conn, list); err != nil {
		t.Fatalf("ListOffsets on the same connection: %v", err)
	}
	mustPing(t, c)
}
