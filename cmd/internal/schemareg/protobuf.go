package schemareg

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
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
// sources it references importable by their reference names; a
// schema registered as a base64 FileDescriptorProto (as confluent-kafka's
// Python serializer registers it, and Confluent's registry accepts) is
// read as that.
func compileProto(source string, refs []referenced) (protoreflect.FileDescriptor, error) {
	if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(source)); err == nil {
		var fdp descriptorpb.FileDescriptorProto
		if proto.Unmarshal(raw, &fdp) == nil && fdp.GetName() != "" {
			return protodesc.NewFile(&fdp, protoregistry.GlobalFiles)
		}
	}
	sources := map[string]string{protoFile: source}
	for _, r := range refs {
		sources[r.name] = r.schema
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(sources),
	})}
	files, err := c.Compile(context.Background(), protoFile)
	if err != nil {
		return nil, err
	}
	return files[0], nil
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
