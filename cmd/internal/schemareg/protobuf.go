package schemareg

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Protobuf values: the registry holds the .proto source; the frame names
// the message by its indexes (the first top-level message by a lone 0, a
// nested one by its path). The source is compiled once per id
// (bufbuild/protocompile, Google's well-known types importable) and each
// value decoded as a dynamic message, written as protojson writes it
// (the .proto's field names).

// protoFile is the compiled name of a registry's .proto source.
const protoFile = "schema.proto"

// compileProto compiles a .proto source as the registry gives it, the
// sources it references importable by their reference names. A schema
// registered as a base64 FileDescriptorProto (as confluent-kafka's Python
// serializer registers it and each file it imports, and as Apicurio and
// srfake give it back) is read as that, the main one or a referenced one.
func compileProto(source string, refs []referenced) (protoreflect.FileDescriptor, error) {
	sources := map[string]string{protoFile: source}
	for _, r := range refs {
		sources[r.name] = r.schema
	}
	resolve := func(path string) (protocompile.SearchResult, error) {
		text, ok := sources[path]
		if !ok {
			return protocompile.SearchResult{}, os.ErrNotExist
		}
		if fdp := fileDescriptorProto(text); fdp != nil {
			// Named as imported: a file's own name may be another.
			fdp.Name = proto.String(path)
			return protocompile.SearchResult{Proto: fdp}, nil
		}
		return protocompile.SearchResult{Source: strings.NewReader(text)}, nil
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(protocompile.ResolverFunc(resolve))}
	files, err := c.Compile(context.Background(), protoFile)
	if err != nil {
		return nil, err
	}
	return files[0], nil
}

// fileDescriptorProto is text read as a base64 FileDescriptorProto, or nil
// when it is not one (.proto source is not base64).
func fileDescriptorProto(text string) *descriptorpb.FileDescriptorProto {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return nil
	}
	var fdp descriptorpb.FileDescriptorProto
	if proto.Unmarshal(raw, &fdp) != nil || fdp.GetName() == "" {
		return nil
	}
	withJSONNames(fdp.MessageType)
	return &fdp
}

// withJSONNames gives each field of msgs (nested ones too) without a
// json_name the one protoc writes: its name in lower camel case. Python's
// descriptors leave it out, and protocompile reads a missing one as a
// custom "" that two fields of a message cannot share.
func withJSONNames(msgs []*descriptorpb.DescriptorProto) {
	for _, m := range msgs {
		for _, f := range m.Field {
			if f.JsonName == nil {
				f.JsonName = proto.String(jsonName(f.GetName()))
			}
		}
		withJSONNames(m.NestedType)
	}
}

// jsonName is protoc's JSON name of a field: each underscore dropped and
// the letter after it upper-cased (sku_code: skuCode).
func jsonName(field string) string {
	var b strings.Builder
	upper := false
	for _, c := range []byte(field) {
		switch {
		case c == '_':
			upper = true
		case upper && 'a' <= c && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			upper = false
		default:
			b.WriteByte(c)
			upper = false
		}
	}
	return b.String()
}

// decodeProto decodes payload (message indexes, then the message) as JSON.
func decodeProto(fd protoreflect.FileDescriptor, payload []byte) ([]byte, error) {
	indexes, rest, err := messageIndexes(payload)
	if err != nil {
		return nil, err
	}
	msgs := fd.Messages()
	var md protoreflect.MessageDescriptor
	for _, ix := range indexes {
		if ix < 0 || ix >= msgs.Len() {
			return nil, fmt.Errorf("message index %d: the schema has %d messages there", ix, msgs.Len())
		}
		md = msgs.Get(ix)
		msgs = md.Messages()
	}
	msg := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(rest, msg); err != nil {
		return nil, err
	}
	return protojson.MarshalOptions{UseProtoNames: true}.Marshal(msg)
}

// messageIndexes reads the Protobuf message indexes after the schema id: a
// zig-zag varint count, then that many zig-zag varints (a lone 0 means the
// first message); rest is the message.
func messageIndexes(b []byte) (indexes []int, rest []byte, err error) {
	n, used := binary.Varint(b)
	if used <= 0 {
		return nil, nil, errors.New("no message indexes")
	}
	b = b[used:]
	if n == 0 {
		return []int{0}, b, nil
	}
	if n < 0 || n > 64 {
		return nil, nil, fmt.Errorf("%d message indexes", n)
	}
	out := make([]int, n)
	for i := range out {
		v, u := binary.Varint(b)
		if u <= 0 {
			return nil, nil, errors.New("message indexes cut short")
		}
		out[i], b = int(v), b[u:]
	}
	return out, b, nil
}
