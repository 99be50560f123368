package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// streaming tells which methods are server streams.
var streaming = map[string]bool{
	"api.Registry/ListPackages":                                     true,
	"api.Registry/ListBundles":                                      true,
	"api.Registry/GetChannelEntriesThatReplace":                     true,
	"api.Registry/GetChannelEntriesThatProvide":                     true,
	"api.Registry/GetLatestChannelEntriesThatProvide":               true,
	"api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas": true,
}

// Invoke performs one planned call on conn and returns what a recording would hold.
func Invoke(ctx context.Context, conn *grpc.ClientConn, c Call) (Answer, error) {
	if len(c.Metadata) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, metadata.New(c.Metadata))
	}
	reg := api.NewRegistryClient(conn)
	exp := api.NewExperimentalRegistryClient(conn)
	var (
		msgs []proto.Message
		err  error
	)
	unary := func(resp proto.Message, e error) {
		err = e
		if e == nil {
			msgs = []proto.Message{resp}
		}
	}
	switch c.Method {
	case "api.Registry/ListPackages":
		msgs, err = collect(req[api.ListPackageRequest](c, func(r *api.ListPackageRequest) (grpc.ServerStreamingClient[api.PackageName], error) {
			return reg.ListPackages(ctx, r)
		}))
	case "api.Registry/ListBundles":
		msgs, err = collect(req[api.ListBundlesRequest](c, func(r *api.ListBundlesRequest) (grpc.ServerStreamingClient[api.Bundle], error) {
			return reg.ListBundles(ctx, r)
		}))
	case "api.Registry/GetChannelEntriesThatReplace":
		msgs, err = collect(req[api.GetAllReplacementsRequest](c, func(r *api.GetAllReplacementsRequest) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
			return reg.GetChannelEntriesThatReplace(ctx, r)
		}))
	case "api.Registry/GetChannelEntriesThatProvide":
		msgs, err = collect(req[api.GetAllProvidersRequest](c, func(r *api.GetAllProvidersRequest) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
			return reg.GetChannelEntriesThatProvide(ctx, r)
		}))
	case "api.Registry/GetLatestChannelEntriesThatProvide":
		msgs, err = collect(req[api.GetLatestProvidersRequest](c, func(r *api.GetLatestProvidersRequest) (grpc.ServerStreamingClient[api.ChannelEntry], error) {
			return reg.GetLatestChannelEntriesThatProvide(ctx, r)
		}))
	case "api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas":
		msgs, err = collect(req[api.ExperimentalListPackageCustomSchemasRequest](c, func(r *api.ExperimentalListPackageCustomSchemasRequest) (grpc.ServerStreamingClient[structpbStruct], error) {
			return exp.ExperimentalListPackageCustomSchemas(ctx, r)
		}))
	case "api.Registry/GetPackage":
		r := &api.GetPackageRequest{}
		if err = decode(c, r); err == nil {
			unary(reg.GetPackage(ctx, r))
		}
	case "api.Registry/GetBundle":
		r := &api.GetBundleRequest{}
		if err = decode(c, r); err == nil {
			unary(reg.GetBundle(ctx, r))
		}
	case "api.Registry/GetBundleForChannel":
		r := &api.GetBundleInChannelRequest{}
		if err = decode(c, r); err == nil {
			unary(reg.GetBundleForChannel(ctx, r))
		}
	case "api.Registry/GetBundleThatReplaces":
		r := &api.GetReplacementRequest{}
		if err = decode(c, r); err == nil {
			unary(reg.GetBundleThatReplaces(ctx, r))
		}
	case "api.Registry/GetDefaultBundleThatProvides":
		r := &api.GetDefaultProviderRequest{}
		if err = decode(c, r); err == nil {
			unary(reg.GetDefaultBundleThatProvides(ctx, r))
		}
	default:
		return Answer{}, fmt.Errorf("call %s: unknown method %s", c.ID, c.Method)
	}
	var ans Answer
	st := status.Convert(err)
	ans.Code, ans.Message = st.Code().String(), st.Message()
	if err != nil && st.Code().String() == "Unknown" && errors.Is(err, errBadRequest) {
		return Answer{}, err
	}
	var body bytes.Buffer
	if streaming[c.Method] {
		body.WriteByte('[')
		for i, m := range msgs {
			if i > 0 {
				body.WriteByte(',')
			}
			b, merr := protojson.Marshal(m)
			if merr != nil {
				return Answer{}, merr
			}
			body.Write(b)
		}
		body.WriteByte(']')
	} else if len(msgs) == 1 && err == nil {
		b, merr := protojson.Marshal(msgs[0])
		if merr != nil {
			return Answer{}, merr
		}
		body.Write(b)
	} else {
		body.WriteString("null")
	}
	ans.Response = json.RawMessage(body.Bytes())
	return ans, nil
}

var errBadRequest = errors.New("request does not decode")

func decode(c Call, into proto.Message) error {
	raw := c.Request
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := protojson.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%w: call %s: %v", errBadRequest, c.ID, err)
	}
	return nil
}

func req[T any, PT interface {
	*T
	proto.Message
}, M any](c Call, open func(PT) (grpc.ServerStreamingClient[M], error)) (grpc.ServerStreamingClient[M], error) {
	r := PT(new(T))
	if err := decode(c, r); err != nil {
		return nil, err
	}
	return open(r)
}

// collect drains a stream, keeping the messages received before an error.
func collect[M any](s grpc.ServerStreamingClient[M], err error) ([]proto.Message, error) {
	if err != nil {
		return nil, err
	}
	var out []proto.Message
	for {
		m, err := s.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, any(m).(proto.Message))
	}
}
