package grpccompat

import (
	"context"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// PreEncoded is a message already in protobuf wire form. A backend that keeps its answers
// encoded can stream them without decoding and re-encoding each one (see RawBundleLister).
type PreEncoded []byte

// RawBundleLister is implemented by backends that can stream ListBundles answers as wire-encoded
// api.Bundle messages; the server then sends those bytes as they are.
type RawBundleLister interface {
	ListBundlesRaw(ctx context.Context, send func(PreEncoded) error) error
}

// preEncodedCodec is grpc's proto codec, except that a PreEncoded message is sent as is.
type preEncodedCodec struct{ proto encoding.CodecV2 }

func newPreEncodedCodec() encoding.CodecV2 {
	return preEncodedCodec{proto: encoding.GetCodecV2("proto")}
}

func (c preEncodedCodec) Marshal(v any) (mem.BufferSlice, error) {
	if raw, ok := v.(PreEncoded); ok {
		// grpc may write the buffer after SendMsg returns; a PreEncoded is never reused.
		return mem.BufferSlice{mem.SliceBuffer(raw)}, nil
	}
	return c.proto.Marshal(v)
}

func (c preEncodedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return c.proto.Unmarshal(data, v)
}

func (c preEncodedCodec) Name() string { return c.proto.Name() }
