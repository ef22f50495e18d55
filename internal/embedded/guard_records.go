package embedded

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/offsetlab/offsetlab/internal/batch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxDecompressedBatchBytes bounds what one produced record batch may
// decompress to. The dashboard's inspector refuses larger batches too
// (inspect.DefaultMaxDecompressedBytes), and kfake decompresses a stored
// batch whole in memory whenever it searches it by timestamp or compacts.
const maxDecompressedBatchBytes = 32 << 20

// batchValidator checks the records inside produced record batches, the
// part of Apache Kafka's LogValidator that kfake lacks. kfake checks a
// batch's header and CRC and stores it; it walks the records only later —
// ListOffsets by timestamp or for the latest timestamp (which the
// dashboard's offset-by-time lookup sends), compaction — and there a record
// whose length field overruns the batch panics the broker's goroutine
// (kfake data.go forEachBatchRecord slicing records[length+amt:]), and a
// compressed batch is inflated whole. A client that computes the CRC can
// store such a batch. Kafka refuses it with INVALID_RECORD; so does the
// guard, by marking the batch a control batch (with a CRC to match), which
// kfake refuses with INVALID_RECORD for that partition, storing nothing.
//
// Compressed records are read with internal/batch, the decoder
// internal/inspect reads fetched batches with: streamed, never held,
// except a snappy batch, which is decoded whole (at most
// maxDecompressedBatchBytes).
type batchValidator struct {
	// mu serialises compressed batches, so that decompression costs at
	// most one batch's decoder state and snappy batch at a time.
	mu     sync.Mutex
	codecs *batch.Codecs // made on first use
}

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// sanitize marks every batch in req that kfake would store but Kafka
// refuses so that kfake refuses it too, and returns why for each.
func (v *batchValidator) sanitize(req *kmsg.ProduceRequest) []string {
	var why []string
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if err := v.check(p.Records); err != nil {
				// Records aliases the request frame kfake will
				// read. The attributes are bytes 21-22; the CRC,
				// bytes 17-20, covers everything from them on.
				b := p.Records
				b[22] |= 0x20
				binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32c))
				why = append(why, fmt.Sprintf("%s partition %d: %v", t.Topic, p.Partition, err))
			}
		}
	}
	return why
}

// check reports why Kafka would refuse the records of the batch in frame,
// or nil when they are valid or kfake refuses the batch itself (a bad
// header or CRC).
func (v *batchValidator) check(frame []byte) error {
	var b kmsg.RecordBatch
	if b.ReadFrom(frame) != nil || b.FirstOffset != 0 || int(b.Length) != len(frame)-12 || b.Magic != 2 ||
		b.CRC != int32(crc32.Checksum(frame[21:], crc32c)) || b.Attributes&0x20 != 0 || b.Attributes&0x07 > 4 ||
		b.LastOffsetDelta != b.NumRecords-1 {
		return nil // kfake refuses it itself
	}
	if b.NumRecords <= 0 {
		return errors.New("a record batch with no records")
	}
	var raw io.Reader = bytes.NewReader(b.Records)
	if codec := int(b.Attributes & 0x07); codec != 0 {
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.codecs == nil {
			v.codecs = batch.NewCodecs(maxDecompressedBatchBytes)
		}
		r, done, err := v.codecs.Open(codec, b.Records)
		if err != nil {
			return fmt.Errorf("records do not decompress: %w", err)
		}
		defer done()
		raw = r
	}
	s := &recordStream{r: bufio.NewReaderSize(io.LimitReader(raw, maxDecompressedBatchBytes+1), 4096)}
	tooLarge := fmt.Errorf("records decompress to more than %d bytes", maxDecompressedBatchBytes)
	for i := range b.NumRecords {
		if err := s.record(i); err != nil {
			if s.read > maxDecompressedBatchBytes {
				return tooLarge
			}
			return fmt.Errorf("record %d of %d: %w", i, b.NumRecords, err)
		}
	}
	if s.read > maxDecompressedBatchBytes {
		return tooLarge
	}
	if _, err := s.r.ReadByte(); err != io.EOF {
		if err == nil {
			return fmt.Errorf("bytes left after the batch's %d records", b.NumRecords)
		}
		return fmt.Errorf("records do not decompress: %w", err)
	}
	return nil
}

// recordStream walks v2 records in a decompressed stream without holding
// them: keys, values and headers are skipped, only their sizes checked.
type recordStream struct {
	r    *bufio.Reader
	read int64 // bytes consumed
	left int64 // bytes left in the current record
}

// record checks the next record: its length covers exactly its fields, its
// offset delta is i, and no size is negative where Kafka forbids it.
func (s *recordStream) record(i int32) error {
	s.left = 1 << 62 // the length varint is outside the record
	length, err := s.varint()
	if err != nil {
		return err
	}
	if length < 0 {
		return fmt.Errorf("negative record length %d", length)
	}
	s.left = length
	if _, err := s.byte(); err != nil { // attributes
		return err
	}
	if _, err := s.varlong(); err != nil { // timestamp delta
		return err
	}
	delta, err := s.varint()
	if err != nil {
		return err
	}
	if delta != int64(i) {
		return fmt.Errorf("offset delta %d, want %d", delta, i)
	}
	for range 2 { // key, value: negative is null
		if err := s.bytes(true); err != nil {
			return err
		}
	}
	headers, err := s.varint()
	if err != nil {
		return err
	}
	if headers < 0 {
		return fmt.Errorf("negative header count %d", headers)
	}
	for range headers {
		if err := s.bytes(false); err != nil { // header key: never null
			return err
		}
		if err := s.bytes(true); err != nil {
			return err
		}
	}
	if s.left != 0 {
		return fmt.Errorf("record length %d, but its fields take %d bytes", length, length-s.left)
	}
	return nil
}

var errRecordOverrun = errors.New("a field runs past its record's length")

func (s *recordStream) byte() (byte, error) {
	if s.left <= 0 {
		return 0, errRecordOverrun
	}
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, noEOF(err)
	}
	s.left--
	s.read++
	return c, nil
}

// varlong reads a zigzag varint of up to 64 bits.
func (s *recordStream) varlong() (int64, error) {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := s.byte()
		if err != nil {
			return 0, err
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errors.New("varint too long")
}

// varint reads a zigzag varint that must fit 32 bits, as Kafka's do.
func (s *recordStream) varint() (int64, error) {
	v, err := s.varlong()
	if err == nil && (v < -1<<31 || v > 1<<31-1) {
		err = fmt.Errorf("varint %d out of range", v)
	}
	return v, err
}

// bytes skips a varint-length-prefixed byte string.
func (s *recordStream) bytes(nullable bool) error {
	n, err := s.varint()
	if err != nil {
		return err
	}
	if n < 0 {
		if nullable {
			return nil
		}
		return fmt.Errorf("negative header key length %d", n)
	}
	if n > s.left {
		return errRecordOverrun
	}
	skipped, err := s.r.Discard(int(n))
	s.left -= int64(skipped)
	s.read += int64(skipped)
	return noEOF(err)
}

func noEOF(err error) error {
	if err == io.EOF {
		return errors.New("the records end inside a record")
	}
	return err
}
