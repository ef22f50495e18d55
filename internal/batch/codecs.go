// Package batch decompresses the records of Kafka record batches (magic
// 2): none, gzip, snappy (raw, or framed as the Java client's xerial
// stream), lz4 and zstd. It is the one decoder of compressed records in
// Offset Lab: internal/inspect reads fetched batches with it, and the
// embedded broker's Kafka port guard (internal/embedded) checks produced
// ones with it.
//
// Every read is bounded: a batch that claims or inflates to more than the
// Codecs' maximum is refused before it is held, whatever its compressed
// size, so that a hostile batch of a few kilobytes cannot take gigabytes.
package batch

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Codecs decompresses record batches up to a maximum size. It keeps
// decoders for reuse (an lz4 reader holds megabytes of block buffers); it
// is safe for concurrent use and holds no state beyond that cache.
type Codecs struct {
	max  int
	gzip sync.Pool // *gzip.Reader
	lz4  sync.Pool // *lz4.Reader
	zstd sync.Pool // *zstdDecoder or the error creating one
}

// NewCodecs returns Codecs that refuse records decompressing to more than
// max bytes.
func NewCodecs(max int) *Codecs {
	c := &Codecs{max: max}
	c.lz4.New = func() any { return lz4.NewReader(nil) }
	c.zstd.New = func() any {
		d, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(uint64(max)),
		)
		if err != nil {
			return err
		}
		w := &zstdDecoder{d}
		runtime.AddCleanup(w, func(d *zstd.Decoder) { d.Close() }, d)
		return w
	}
	return c
}

type zstdDecoder struct{ d *zstd.Decoder }

// Max is the most bytes a batch's records may decompress to.
func (c *Codecs) Max() int { return c.max }

// Decompress returns the records of a batch compressed with codec (the
// batch attributes' low three bits), whole; uncompressed records are src
// itself.
func (c *Codecs) Decompress(codec int, src []byte) ([]byte, error) {
	switch codec {
	case 0:
		return src, nil
	case 2:
		return c.snappy(src)
	case 4:
		v := c.zstd.Get()
		w, ok := v.(*zstdDecoder)
		if !ok {
			return nil, fmt.Errorf("zstd decoder: %v", v)
		}
		defer c.zstd.Put(w)
		return w.d.DecodeAll(src, nil)
	}
	r, done, err := c.Open(codec, src)
	if err != nil {
		return nil, err
	}
	defer done()
	out, err := io.ReadAll(io.LimitReader(r, int64(c.max)+1))
	if err != nil {
		return nil, err
	}
	if len(out) > c.max {
		return nil, fmt.Errorf("decompresses to more than %d bytes", c.max)
	}
	return out, nil
}

// Open returns the records of a batch compressed with codec as a stream,
// for a reader that walks them without holding them, and done, which
// hands the decoder back: call it once the stream is read, never before.
// The stream does not stop at the maximum; the reader bounds what it
// reads (a snappy batch, decoded whole, is refused past it here).
func (c *Codecs) Open(codec int, src []byte) (r io.Reader, done func(), err error) {
	switch codec {
	case 0:
		return bytes.NewReader(src), func() {}, nil
	case 1:
		zr, _ := c.gzip.Get().(*gzip.Reader)
		if zr == nil {
			zr, err = gzip.NewReader(bytes.NewReader(src))
		} else {
			err = zr.Reset(bytes.NewReader(src))
		}
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { c.gzip.Put(zr) }, nil
	case 2:
		out, err := c.snappy(src)
		if err != nil {
			return nil, nil, err
		}
		return bytes.NewReader(out), func() {}, nil
	case 3:
		zr := c.lz4.Get().(*lz4.Reader)
		zr.Reset(bytes.NewReader(src))
		return zr, func() {
			zr.Reset(nil) // drop src
			c.lz4.Put(zr)
		}, nil
	case 4:
		v := c.zstd.Get()
		w, ok := v.(*zstdDecoder)
		if !ok {
			return nil, nil, fmt.Errorf("zstd decoder: %v", v)
		}
		if err := w.d.Reset(bytes.NewReader(src)); err != nil {
			c.zstd.Put(w)
			return nil, nil, err
		}
		return w.d, func() {
			_ = w.d.Reset(nil) // drop src
			c.zstd.Put(w)
		}, nil
	}
	return nil, nil, fmt.Errorf("unknown compression codec %d", codec)
}

// xerialPrefix starts snappy data framed the way the Java client's
// SnappyOutputStream writes it: a header, then length-prefixed blocks.
var xerialPrefix = []byte{130, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// snappy decodes raw snappy or xerial-framed snappy.
func (c *Codecs) snappy(src []byte) ([]byte, error) {
	if len(src) < 16 || !bytes.HasPrefix(src, xerialPrefix) {
		return c.snappyBlock(nil, src)
	}
	var out []byte
	for rest := src[16:]; len(rest) > 0; {
		if len(rest) < 4 {
			return nil, errors.New("truncated xerial block length")
		}
		n := binary.BigEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(n) > uint64(len(rest)) {
			return nil, errors.New("truncated xerial block")
		}
		var err error
		if out, err = c.snappyBlock(out, rest[:n]); err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	return out, nil
}

// snappyBlock appends the decoding of one raw snappy block to dst, checking
// the size the block claims before allocating for it.
func (c *Codecs) snappyBlock(dst, block []byte) ([]byte, error) {
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, err
	}
	if n > c.max-len(dst) {
		return nil, fmt.Errorf("decompresses to more than %d bytes", c.max)
	}
	decoded, err := s2.Decode(nil, block)
	if err != nil {
		return nil, err
	}
	return append(dst, decoded...), nil
}
