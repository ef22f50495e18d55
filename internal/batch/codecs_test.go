package batch

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// compressed is records compressed with codec as Kafka clients write it;
// snappy framed as the Java client's xerial stream when xerial is set.
func compressed(t *testing.T, codec int, records []byte, xerial bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch codec {
	case 1:
		w := gzip.NewWriter(&buf)
		w.Write(records)
		w.Close()
	case 2:
		block := s2.EncodeSnappy(nil, records)
		if !xerial {
			return block
		}
		buf.Write(xerialPrefix)
		buf.Write(make([]byte, 8)) // version, compatible version
		for _, half := range [][]byte{records[:len(records)/2], records[len(records)/2:]} {
			b := s2.EncodeSnappy(nil, half)
			buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
			buf.Write(b)
		}
	case 3:
		w := lz4.NewWriter(&buf)
		w.Write(records)
		w.Close()
	case 4:
		w, err := zstd.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(records)
		w.Close()
	default:
		return records
	}
	return buf.Bytes()
}

// TestCodecs: every codec decodes what clients write, whole and streamed,
// and nothing decodes past the maximum.
func TestCodecs(t *testing.T) {
	t.Parallel()
	records := bytes.Repeat([]byte("offset lab "), 1000)
	tests := []struct {
		name   string
		codec  int
		xerial bool
	}{
		{"none", 0, false}, {"gzip", 1, false}, {"snappy", 2, false}, {"xerial snappy", 2, true},
		{"lz4", 3, false}, {"zstd", 4, false},
	}
	for _, tt := range tests {
		src := compressed(t, tt.codec, records, tt.xerial)
		c := NewCodecs(len(records))
		got, err := c.Decompress(tt.codec, src)
		if err != nil || !bytes.Equal(got, records) {
			t.Errorf("%s: Decompress = %d bytes, %v; want the %d bytes written", tt.name, len(got), err, len(records))
		}
		r, done, err := c.Open(tt.codec, src)
		if err != nil {
			t.Fatalf("%s: Open: %v", tt.name, err)
		}
		streamed, err := io.ReadAll(r)
		done()
		if err != nil || !bytes.Equal(streamed, records) {
			t.Errorf("%s: Open read %d bytes, %v; want the %d bytes written", tt.name, len(streamed), err, len(records))
		}
		if tt.codec == 0 {
			continue
		}
		small := NewCodecs(len(records) - 1)
		if _, err := small.Decompress(tt.codec, src); err == nil {
			t.Errorf("%s: Decompress past the maximum succeeded", tt.name)
		}
	}
	if _, err := NewCodecs(1<<20).Decompress(5, nil); err == nil || !strings.Contains(err.Error(), "codec 5") {
		t.Errorf("codec 5: %v, want unknown compression codec", err)
	}
}
