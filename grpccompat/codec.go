package grpccompat

import (
	"github.com/olmcat/olmcat/grpccompat/api"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// preEncodedCodec is grpc's proto codec, except that a api.PreEncoded message is sent as is.
type preEncodedCodec struct{ proto encoding.CodecV2 }

func newPreEncodedCodec() encoding.CodecV2 {
	return preEncodedCodec{proto: encoding.GetCodecV2("proto")}
}

func (c preEncodedCodec) Marshal(v any) (mem.BufferSlice, error) {
	if raw, ok := v.(api.PreEncoded); ok {
		// grpc may write the buffers after SendMsg returns; the parts of an api.PreEncoded never
		// change.
		out := make(mem.BufferSlice, len(raw))
		for i, part := range raw {
			out[i] = mem.SliceBuffer(part)
		}
		return out, nil
	}
	return c.proto.Marshal(v)
}

func (c preEncodedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return c.proto.Unmarshal(data, v)
}

func (c preEncodedCodec) Name() string { return c.proto.Name() }
