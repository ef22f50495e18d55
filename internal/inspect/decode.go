package inspect

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/offsetlab/offsetlab/internal/batch"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// Record batch attributes (Kafka's DefaultRecordBatch, magic 2).
const (
	attrCompression   = 0x07
	attrLogAppendTime = 0x08
	attrTransactional = 0x10
	attrControl       = 0x20
)

// batchOverhead is the size of a v2 batch header; batchLength counts
// everything after its own field, so 12 bytes (base offset and length)
// precede it.
const (
	batchOverhead    = 61
	batchLengthStart = 12
)

// DefaultMaxDecompressedBytes bounds how large one record batch may grow
// when decompressed; a batch claiming more is reported as corrupt rather
// than allowed to exhaust memory.
const DefaultMaxDecompressedBytes = 32 << 20

// ErrCorruptBatch reports a record batch that cannot be decoded: a bad
// header, an unknown codec, data that does not decompress, or records that
// overrun the batch.
var ErrCorruptBatch = errors.New("corrupt record batch")

// asProblem turns a corrupt batch into the Kafka problem the caller shows;
// other errors pass as they are.
func asProblem(err error) error {
	if errors.Is(err, ErrCorruptBatch) {
		return problem.Wrap(err, problem.Kafka, "error.corruptBatch", "detail", err.Error())
	}
	return err
}

var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// rawBatch is one record batch as it lies in a fetch response.
type rawBatch struct {
	BaseOffset     int64
	LastOffset     int64 // BaseOffset + lastOffsetDelta
	Magic          int8
	Attributes     int16
	FirstTimestamp int64
	MaxTimestamp   int64
	ProducerID     int64
	ProducerEpoch  int16
	BaseSequence   int32
	NumRecords     int32
	Records        []byte // still compressed when the batch is
}

func (b *rawBatch) transactional() bool { return b.Attributes&attrTransactional != 0 }
func (b *rawBatch) control() bool       { return b.Attributes&attrControl != 0 }
func (b *rawBatch) codec() int          { return int(b.Attributes & attrCompression) }

func (b *rawBatch) compression() string {
	if c := b.codec(); c < len(codecNames) {
		return codecNames[c]
	}
	return fmt.Sprintf("codec-%d", b.codec())
}

// splitBatch takes the first record batch off raw. complete is false when
// raw ends inside the batch: a fetch response may end with a partial batch,
// which the caller ignores. Batches of magic 0 and 1 (legacy message sets)
// are returned with their offset and no records: Offset Lab does not decode
// them and reports their offsets as gaps.
func splitBatch(raw []byte) (b rawBatch, rest []byte, complete bool, err error) {
	if len(raw) < batchLengthStart {
		return b, raw, false, nil
	}
	length := int32(binary.BigEndian.Uint32(raw[8:]))
	if length < 0 {
		return b, raw, false, fmt.Errorf("%w: negative batch length %d", ErrCorruptBatch, length)
	}
	total := batchLengthStart + int(length)
	if len(raw) < total {
		return b, raw, false, nil
	}
	b.BaseOffset = int64(binary.BigEndian.Uint64(raw))
	if total < 17 {
		return b, raw, false, fmt.Errorf("%w: batch at offset %d is %d bytes long", ErrCorruptBatch, b.BaseOffset, length)
	}
	b.Magic = int8(raw[16])
	if b.Magic != 2 {
		// In a legacy message set the offset field is that of the
		// (last inner) message.
		b.LastOffset = b.BaseOffset
		return b, raw[total:], true, nil
	}
	if total < batchOverhead {
		return b, raw, false, fmt.Errorf("%w: batch at offset %d is %d bytes long", ErrCorruptBatch, b.BaseOffset, length)
	}
	h := raw[:total]
	b.Attributes = int16(binary.BigEndian.Uint16(h[21:]))
	lastDelta := int32(binary.BigEndian.Uint32(h[23:]))
	b.FirstTimestamp = int64(binary.BigEndian.Uint64(h[27:]))
	b.MaxTimestamp = int64(binary.BigEndian.Uint64(h[35:]))
	b.ProducerID = int64(binary.BigEndian.Uint64(h[43:]))
	b.ProducerEpoch = int16(binary.BigEndian.Uint16(h[51:]))
	b.BaseSequence = int32(binary.BigEndian.Uint32(h[53:]))
	b.NumRecords = int32(binary.BigEndian.Uint32(h[57:]))
	b.Records = h[batchOverhead:]
	if lastDelta < 0 || b.NumRecords < 0 || b.BaseOffset < 0 || b.BaseOffset > maxOffset-int64(lastDelta) {
		return b, raw, false, fmt.Errorf("%w: batch at offset %d has last offset delta %d and %d records", ErrCorruptBatch, b.BaseOffset, lastDelta, b.NumRecords)
	}
	b.LastOffset = b.BaseOffset + int64(lastDelta)
	return b, raw[total:], true, nil
}

// maxOffset keeps offset arithmetic (base + delta, offset + 1) from
// overflowing on hostile input.
const maxOffset = 1<<62 - 1

// rawRecord is one v2 record inside a batch. Its slices alias the
// (decompressed) batch.
type rawRecord struct {
	TimestampDelta int64
	OffsetDelta    int32
	Key            []byte
	Value          []byte
	// Headers are the record's first MaxHeaders headers; HeaderCount is
	// how many it has. A record of a few kilobytes on the wire can hold
	// millions of empty headers (two bytes each, less once compressed):
	// decoding keeps a bounded number, whatever the record claims.
	Headers     []rawHeader
	HeaderCount int
	// headerSrc is the encoding of all HeaderCount headers, checked by
	// next, for eachHeader.
	headerSrc []byte
}

// eachHeader calls fn with every header of rec, in order, until fn
// returns false. It allocates nothing.
func (rec *rawRecord) eachHeader(fn func(key, value []byte) bool) {
	r := &recordReader{src: rec.headerSrc}
	for range rec.HeaderCount {
		k, v := r.bytes(), r.bytes()
		if r.err != nil || !fn(k, v) {
			return
		}
	}
}

type rawHeader struct {
	Key   []byte
	Value []byte
}

// recordReader walks the records of one decompressed batch.
type recordReader struct {
	src []byte
	err error
}

func (r *recordReader) varlong() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.src)
	if n <= 0 {
		r.err = errors.New("bad varint")
		return 0
	}
	r.src = r.src[n:]
	return v
}

func (r *recordReader) varint() int32 {
	v := r.varlong()
	if v < -1<<31 || v > 1<<31-1 {
		r.err = errors.New("varint out of range")
		return 0
	}
	return int32(v)
}

// bytes reads a varint-length-prefixed byte string; length -1 is null.
func (r *recordReader) bytes() []byte {
	n := r.varint()
	if r.err != nil {
		return nil
	}
	switch {
	case n == -1:
		return nil
	case n < -1 || int(n) > len(r.src):
		r.err = fmt.Errorf("byte string of length %d with %d bytes left", n, len(r.src))
		return nil
	}
	b := r.src[:n:n]
	r.src = r.src[n:]
	return b
}

// next decodes the next record, or reports why it cannot.
func (r *recordReader) next() (rawRecord, error) {
	var rec rawRecord
	length := r.varint()
	if r.err != nil {
		return rec, r.err
	}
	if length < 0 || int(length) > len(r.src) {
		return rec, fmt.Errorf("record of length %d with %d bytes left", length, len(r.src))
	}
	body := &recordReader{src: r.src[:length]}
	r.src = r.src[length:]
	if len(body.src) < 1 {
		return rec, errors.New("empty record")
	}
	body.src = body.src[1:] // record attributes: unused
	rec.TimestampDelta = body.varlong()
	rec.OffsetDelta = body.varint()
	rec.Key = body.bytes()
	rec.Value = body.bytes()
	nh := body.varint()
	if body.err != nil {
		return rec, body.err
	}
	// Each header takes at least two bytes, which bounds a hostile count.
	if nh < 0 || int(nh) > len(body.src)/2 {
		return rec, fmt.Errorf("%d headers in %d bytes", nh, len(body.src))
	}
	rec.HeaderCount, rec.headerSrc = int(nh), body.src
	if nh > 0 {
		rec.Headers = make([]rawHeader, 0, min(int(nh), MaxHeaders))
		for i := range int(nh) {
			k, v := body.bytes(), body.bytes()
			if i < MaxHeaders {
				rec.Headers = append(rec.Headers, rawHeader{Key: k, Value: v})
			}
		}
	}
	return rec, body.err
}

// codecs decompresses record batches: internal/batch's, the one decoder
// the embedded broker's port guard uses too.
type codecs = batch.Codecs

func newCodecs(max int) *codecs { return batch.NewCodecs(max) }

// incrementSequence adds delta to a producer sequence the way Kafka does:
// sequences wrap from MaxInt32 to 0.
func incrementSequence(base, delta int32) int32 {
	if base < 0 {
		return -1
	}
	if delta < 0 {
		return -1
	}
	if base > (1<<31-1)-delta {
		return delta - ((1<<31 - 1) - base) - 1
	}
	return base + delta
}
