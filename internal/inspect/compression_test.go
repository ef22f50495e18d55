package inspect

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestReadLogCompression(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxValueBytes) // 2 bytes a rune: truncated mid-value
	binary := []byte{0xff, 0x00, 0xfe, 'x'}
	tests := []struct {
		name  string
		codec kgo.CompressionCodec
		want  string
	}{
		{"none", kgo.NoCompression(), "none"},
		{"gzip", kgo.GzipCompression(), "gzip"},
		{"snappy", kgo.SnappyCompression(), "snappy"},
		{"lz4", kgo.Lz4Compression(), "lz4"},
		{"zstd", kgo.ZstdCompression(), "zstd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			opts := []kgo.Opt{kgo.ProducerBatchCompression(tt.codec), kgo.ProducerLinger(50 * time.Millisecond)}
			p := e.producer("tx-"+tt.name, opts...)
			if err := p.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			recs := []*kgo.Record{
				{Key: []byte("k"), Value: []byte(strings.Repeat("compressible ", 50))},
				{Value: binary, Headers: []kgo.RecordHeader{{Key: "h1", Value: []byte("v1")}, {Key: "h2"}, {Key: "h3", Value: binary}}},
				{Key: binary, Value: []byte(long)},
				{Key: []byte("empty"), Value: []byte{}},
			}
			if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			e.run(abort("tx-" + tt.name))
			plain := e.producer("plain-"+tt.name, opts...)
			if err := plain.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
				t.Fatal(err)
			}

			log := e.readAll()
			if got := len(log.Entries); got != 9 {
				t.Fatalf("got %d entries, want 4 aborted + marker + 4 plain", got)
			}
			for _, base := range []int{0, 5} {
				txn := TxnAborted
				if base == 5 {
					txn = TxnNone
				}
				en := log.Entries[base : base+4]
				for _, x := range en {
					if x.Compression != tt.want || x.Txn != txn || x.BatchBaseOffset != int64(base) {
						t.Errorf("offset %d: compression %s txn %s batch %d, want %s %s %d", x.Offset, x.Compression, x.Txn, x.BatchBaseOffset, tt.want, txn, base)
					}
				}
				checkString(t, "key 0", en[0].Key, en[0].KeyEncoding, "k", "")
				checkString(t, "value 0", en[0].Value, en[0].ValueEncoding, strings.Repeat("compressible ", 50), "")
				if en[1].Key != nil {
					t.Errorf("key 1: got %q, want null", *en[1].Key)
				}
				checkString(t, "value 1", en[1].Value, en[1].ValueEncoding, base64.StdEncoding.EncodeToString(binary), EncodingBase64)
				wantHeaders := []Header{
					{Key: "h1", Value: "v1"},
					{Key: "h2", Value: "", ValueEncoding: EncodingNull},
					{Key: "h3", Value: base64.StdEncoding.EncodeToString(binary), ValueEncoding: EncodingBase64},
				}
				if len(en[1].Headers) != len(wantHeaders) {
					t.Fatalf("headers: got %+v, want %+v", en[1].Headers, wantHeaders)
				}
				for i := range wantHeaders {
					if en[1].Headers[i] != wantHeaders[i] {
						t.Errorf("header %d: got %+v, want %+v", i, en[1].Headers[i], wantHeaders[i])
					}
				}
				checkString(t, "key 2", en[2].Key, en[2].KeyEncoding, base64.StdEncoding.EncodeToString(binary), EncodingBase64)
				checkString(t, "value 2", en[2].Value, en[2].ValueEncoding, long[:MaxValueBytes], "")
				if !en[2].ValueTruncated || en[0].ValueTruncated {
					t.Errorf("truncated: got %v and %v, want true and false", en[2].ValueTruncated, en[0].ValueTruncated)
				}
				checkString(t, "value 3", en[3].Value, en[3].ValueEncoding, "", "")
				if len(en[0].Headers) != 0 || en[0].Headers == nil {
					t.Errorf("headers 0: got %#v, want an empty list", en[0].Headers)
				}
			}
		})
	}
}

func checkString(t *testing.T, what string, got *string, gotEnc, want, wantEnc string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: got null, want %q", what, want)
		return
	}
	if *got != want || gotEnc != wantEnc {
		t.Errorf("%s: got %.40q (%q), want %.40q (%q)", what, *got, gotEnc, want, wantEnc)
	}
}

func TestEncodeBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        []byte
		max       int
		want      string
		enc       string
		truncated bool
	}{
		{[]byte("hello"), 0, "hello", "", false},
		{[]byte("hello"), 3, "hel", "", true},
		{[]byte("héllo"), 2, "h", "", true}, // never cuts a rune
		{[]byte{}, 5, "", "", false},
		{[]byte{0xff}, 0, "/w==", EncodingBase64, false},
		{[]byte{0xff, 0xfe, 0xfd}, 2, "//4=", EncodingBase64, true},
	}
	for _, tt := range tests {
		got, enc, truncated := encodeBytes(tt.in, tt.max)
		if got == nil || *got != tt.want || enc != tt.enc || truncated != tt.truncated {
			t.Errorf("encodeBytes(%q, %d): got %v %q %v, want %q %q %v", tt.in, tt.max, got, enc, truncated, tt.want, tt.enc, tt.truncated)
		}
	}
	if got, _, _ := encodeBytes(nil, 0); got != nil {
		t.Errorf("encodeBytes(nil): got %q, want nil", *got)
	}
}
