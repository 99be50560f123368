package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Kind is the kind of catalog a side serves; normalizations of SQLite-vs-FBC differences apply only
// between sides of different kinds.
type Kind int

const (
	KindUnknown Kind = iota
	KindSQLite       // answers like `opm registry serve` from an index.db
	KindFBC          // answers like `opm serve` from a File-Based Catalog
)

func (k Kind) String() string {
	switch k {
	case KindSQLite:
		return "sqlite"
	case KindFBC:
		return "fbc"
	}
	return "unknown"
}

// Target is one side of a comparison.
type Target interface {
	// String names the side in reports (a path, an address, a recording directory).
	String() string
	// Kind is the kind of catalog served, KindUnknown when the target cannot tell (Check then
	// detects it from the answers).
	Kind() Kind
	// Invoke performs one call. RPC failures are answers (their code and message); an error is
	// returned only when the call could not be made at all (e.g. a recording lacks it).
	Invoke(ctx context.Context, c *Call) (*Answer, error)
	Close() error
}

// Answer is what a side answered to one call: the final status and the messages received (a unary
// call has at most one; a stream keeps the messages sent before an error).
type Answer struct {
	Code     codes.Code
	Message  string
	Messages []proto.Message
	stream   bool // Messages is a stream (rendered as an array even when empty)
}

// Unreachable reports whether the answer says the call did not reach a working server (timeout,
// connection failure, cancellation, oversized message): such calls are counted as errors, not as
// differences.
func (a *Answer) Unreachable() bool {
	switch a.Code {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.ResourceExhausted:
		return true
	}
	return false
}

// MarshalJSON renders the answer as the corpus records it: {"code", "message", "response"}.
func (a *Answer) MarshalJSON() ([]byte, error) {
	var resp json.RawMessage = []byte("null")
	marshal := func(m proto.Message) (json.RawMessage, error) {
		b, err := protojson.Marshal(m)
		if err != nil {
			return nil, err
		}
		return compactJSON(b), nil
	}
	switch {
	case a.stream:
		parts := make([]json.RawMessage, 0, len(a.Messages))
		for _, m := range a.Messages {
			b, err := marshal(m)
			if err != nil {
				return nil, err
			}
			parts = append(parts, b)
		}
		b, err := json.Marshal(parts)
		if err != nil {
			return nil, err
		}
		resp = b
	case len(a.Messages) == 1:
		b, err := marshal(a.Messages[0])
		if err != nil {
			return nil, err
		}
		resp = b
	}
	return json.Marshal(struct {
		Code     string          `json:"code"`
		Message  string          `json:"message"`
		Response json.RawMessage `json:"response"`
	}{a.Code.String(), a.Message, resp})
}

// streamer is implemented by targets that can hand over stream messages one by one instead of
// collecting them (the survey reads whole ListBundles streams and keeps only a few fields).
type streamer interface {
	invokeStream(ctx context.Context, c *Call, each func(proto.Message)) (*Answer, error)
}

// invokeConn performs c on a gRPC connection. With each set, stream messages are passed to it and
// not kept in the answer.
func invokeConn(ctx context.Context, conn grpc.ClientConnInterface, c *Call, each func(proto.Message)) (*Answer, error) {
	spec, ok := methods[c.Method]
	if !ok {
		return nil, errors.New("unknown method " + c.Method)
	}
	req, err := c.decodeRequest()
	if err != nil {
		return nil, err
	}
	if len(c.Metadata) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, metadata.New(c.Metadata))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ans := &Answer{stream: spec.stream}
	full := "/" + c.Method
	if !spec.stream {
		resp := spec.response()
		err = conn.Invoke(ctx, full, req, resp)
		if err == nil {
			ans.Messages = []proto.Message{resp}
		}
	} else {
		err = receiveStream(ctx, conn, full, req, spec, ans, each)
	}
	st := status.Convert(err)
	ans.Code, ans.Message = st.Code(), st.Message()
	return ans, nil
}

func receiveStream(ctx context.Context, conn grpc.ClientConnInterface, full string, req proto.Message, spec methodSpec, ans *Answer, each func(proto.Message)) error {
	s, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, full)
	if err != nil {
		return err
	}
	if err := s.SendMsg(req); err != nil {
		return err
	}
	if err := s.CloseSend(); err != nil {
		return err
	}
	for {
		m := spec.response()
		err := s.RecvMsg(m)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if each != nil {
			each(m)
		} else {
			ans.Messages = append(ans.Messages, m)
		}
	}
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
