package inspect

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kgo"
)

// headerDropper is the Decompressor of ReadRecords' consumer: it
// decompresses with the Inspector's bounded codecs and, when a record of
// the batch has more than MaxHeaders headers, rewrites the batch's records
// without their headers — a Record carries none, and franz-go would
// otherwise decode every header of every record (a few kilobytes of zstd
// can hold millions, ~40 bytes of memory each). Uncompressed batches do
// not pass here: they cost the writer two bytes a header on the wire and
// are bounded by the broker's max.message.bytes.
type headerDropper struct{ codecs *codecs }

// Decompress implements kgo.Decompressor.
func (d headerDropper) Decompress(src []byte, codec kgo.CompressionCodecType) ([]byte, error) {
	raw, err := d.codecs.Decompress(int(codec), src)
	if err != nil {
		return nil, err
	}
	return dropHeaders(raw), nil
}

// dropHeaders returns the v2 records of raw with no headers when one of
// them has more than MaxHeaders, else raw itself. Records it cannot read
// are left as they are, for the consumer to report.
func dropHeaders(raw []byte) []byte {
	if !manyHeaders(raw) {
		return raw
	}
	out := make([]byte, 0, len(raw)/2)
	for r := raw; len(r) > 0; {
		length, n := binary.Varint(r)
		if n <= 0 || length < 0 || length > int64(len(r)-n) {
			return append(out, r...)
		}
		body := r[n : n+int(length)]
		r = r[n+int(length):]
		keep, ok := beforeHeaders(body)
		if !ok {
			out = binary.AppendVarint(out, length)
			out = append(out, body...)
			continue
		}
		out = binary.AppendVarint(out, int64(keep+1))
		out = append(out, body[:keep]...)
		out = binary.AppendVarint(out, 0) // no headers
	}
	return out
}

// manyHeaders reports whether a record of raw has more than MaxHeaders
// headers.
func manyHeaders(raw []byte) bool {
	for r := raw; len(r) > 0; {
		length, n := binary.Varint(r)
		if n <= 0 || length < 0 || length > int64(len(r)-n) {
			return false
		}
		body := r[n : n+int(length)]
		r = r[n+int(length):]
		keep, ok := beforeHeaders(body)
		if !ok {
			return false
		}
		if count, m := binary.Varint(body[keep:]); m > 0 && count > MaxHeaders {
			return true
		}
	}
	return false
}

// beforeHeaders is the length of a record body up to its header count:
// attributes, timestamp and offset deltas, key and value.
func beforeHeaders(body []byte) (int, bool) {
	if len(body) < 1 {
		return 0, false
	}
	rd := &recordReader{src: body[1:]}
	rd.varlong() // timestamp delta
	rd.varint()  // offset delta
	rd.bytes()   // key
	rd.bytes()   // value
	if rd.err != nil {
		return 0, false
	}
	return len(body) - len(rd.src), true
}
