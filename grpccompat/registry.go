package grpccompat

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Registry implements api.RegistryServer and api.ExperimentalRegistryServer on top of a Backend
// that can be installed after the server has started listening: until then a call waits for it,
// up to the call's deadline (a client that dials as soon as the port opens is answered once the
// catalog is loaded, where opm would not have been listening yet), and health reports
// NOT_SERVING. A call still waiting when the server stops fails with Unavailable.
type Registry struct {
	api.UnimplementedRegistryServer
	api.UnimplementedExperimentalRegistryServer
	backend atomic.Pointer[api.Backend]
	ready   chan struct{} // closed once a backend is installed
	stopped chan struct{} // closed when the server stops: waiting calls give up
	once    sync.Once
	stop    sync.Once
	// rawSendable is set when the grpc server uses the codec that sends api.PreEncoded messages.
	rawSendable bool
}

// NewRegistry returns a Registry answering from b (nil: not ready yet; see SetBackend).
func NewRegistry(b api.Backend) *Registry {
	r := &Registry{ready: make(chan struct{}), stopped: make(chan struct{})}
	if b != nil {
		r.SetBackend(b)
	}
	return r
}

// SetBackend installs the backend that answers from now on.
func (r *Registry) SetBackend(b api.Backend) {
	r.backend.Store(&b)
	r.once.Do(func() { close(r.ready) })
}

// Stop makes the calls waiting for the catalog fail with Unavailable (the server is stopping
// before it was loaded).
func (r *Registry) Stop() { r.stop.Do(func() { close(r.stopped) }) }

// get returns the backend, waiting for it while the catalog loads: until it is installed, the
// call's context ends (its deadline: the client gets DeadlineExceeded) or the server stops.
func (r *Registry) get(ctx context.Context) (api.Backend, error) {
	if b := r.backend.Load(); b != nil {
		return *b, nil
	}
	select {
	case <-r.ready:
		return *r.backend.Load(), nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, status.Error(codes.DeadlineExceeded, "catalog is still loading: the call's deadline passed while it waited")
		}
		return nil, status.Error(codes.Canceled, "catalog is still loading: the call was cancelled while it waited")
	case <-r.stopped:
		return nil, status.Error(codes.Unavailable, "the server is stopping before its catalog was loaded")
	}
}

func (r *Registry) ListPackages(_ *api.ListPackageRequest, stream grpc.ServerStreamingServer[api.PackageName]) error {
	b, err := r.get(stream.Context())
	if err != nil {
		return err
	}
	names, err := b.ListPackages(stream.Context())
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := stream.Send(&api.PackageName{Name: n}); err != nil {
			return err
		}
	}
	return nil
}

func (r *Registry) GetPackage(ctx context.Context, req *api.GetPackageRequest) (*api.Package, error) {
	b, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return b.GetPackage(ctx, req.GetName())
}

func (r *Registry) GetBundle(ctx context.Context, req *api.GetBundleRequest) (*api.Bundle, error) {
	b, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return b.GetBundle(ctx, req.GetPkgName(), req.GetChannelName(), req.GetCsvName())
}

func (r *Registry) GetBundleForChannel(ctx context.Context, req *api.GetBundleInChannelRequest) (*api.Bundle, error) {
	b, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return b.GetBundleForChannel(ctx, req.GetPkgName(), req.GetChannelName())
}

func (r *Registry) GetChannelEntriesThatReplace(req *api.GetAllReplacementsRequest, stream grpc.ServerStreamingServer[api.ChannelEntry]) error {
	b, err := r.get(stream.Context())
	if err != nil {
		return err
	}
	return sendEntries(stream, func() ([]*api.ChannelEntry, error) {
		return b.GetChannelEntriesThatReplace(stream.Context(), req.GetCsvName())
	})
}

func (r *Registry) GetBundleThatReplaces(ctx context.Context, req *api.GetReplacementRequest) (*api.Bundle, error) {
	b, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return b.GetBundleThatReplaces(ctx, req.GetCsvName(), req.GetPkgName(), req.GetChannelName())
}

func (r *Registry) GetChannelEntriesThatProvide(req *api.GetAllProvidersRequest, stream grpc.ServerStreamingServer[api.ChannelEntry]) error {
	b, err := r.get(stream.Context())
	if err != nil {
		return err
	}
	return sendEntries(stream, func() ([]*api.ChannelEntry, error) {
		return b.GetChannelEntriesThatProvide(stream.Context(), req.GetGroup(), req.GetVersion(), req.GetKind())
	})
}

func (r *Registry) GetLatestChannelEntriesThatProvide(req *api.GetLatestProvidersRequest, stream grpc.ServerStreamingServer[api.ChannelEntry]) error {
	b, err := r.get(stream.Context())
	if err != nil {
		return err
	}
	return sendEntries(stream, func() ([]*api.ChannelEntry, error) {
		return b.GetLatestChannelEntriesThatProvide(stream.Context(), req.GetGroup(), req.GetVersion(), req.GetKind())
	})
}

func (r *Registry) GetDefaultBundleThatProvides(ctx context.Context, req *api.GetDefaultProviderRequest) (*api.Bundle, error) {
	b, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return b.GetDefaultBundleThatProvides(ctx, req.GetGroup(), req.GetVersion(), req.GetKind())
}

func (r *Registry) ListBundles(_ *api.ListBundlesRequest, stream grpc.ServerStreamingServer[api.Bundle]) error {
	b, err := r.get(stream.Context())
	if err != nil {
		return err
	}
	if raw, ok := b.(api.RawBundleLister); ok && r.rawSendable {
		return raw.ListBundlesRaw(stream.Context(), func(m api.PreEncoded) error { return stream.SendMsg(m) })
	}
	return b.ListBundles(stream.Context(), stream.Send)
}

// sendEntries computes the whole answer first (opm does too): a failed lookup sends nothing.
func sendEntries(stream grpc.ServerStreamingServer[api.ChannelEntry], compute func() ([]*api.ChannelEntry, error)) error {
	entries, err := compute()
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := stream.Send(e); err != nil {
			return err
		}
	}
	return nil
}

// ExperimentalAckHeader is the request metadata key a client must set to "true" to get answers
// from api.ExperimentalRegistry.
const ExperimentalAckHeader = "x-acknowledge-experimental"

// ExperimentalListPackageCustomSchemas follows opm serve: without the acknowledgement header the
// stream is empty and nothing is checked; then schema is required and both names must match
// api.CustomSchemaName (InvalidArgument); lookup failures are Internal, cancellation Canceled.
func (r *Registry) ExperimentalListPackageCustomSchemas(req *api.ExperimentalListPackageCustomSchemasRequest, stream grpc.ServerStreamingServer[structpb.Struct]) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	if ack := md.Get(ExperimentalAckHeader); len(ack) == 0 || ack[0] != "true" {
		return nil
	}
	if req.GetSchema() == "" {
		return status.Error(codes.InvalidArgument, "schema is required")
	}
	if err := validateCustomSchemaQuery(req.GetSchema(), req.GetPackageName()); err != nil {
		return status.Error(codes.InvalidArgument, "invalid custom schema query: "+err.Error())
	}
	b, err := r.get(stream.Context())
	if err != nil {
		return err
	}
	lister, ok := b.(api.CustomSchemaLister)
	if !ok {
		return status.Error(codes.Unimplemented, "this catalog backend does not serve custom schemas")
	}
	err = lister.ListPackageCustomSchemas(stream.Context(), req.GetSchema(), req.GetPackageName(), stream.Send)
	switch {
	case err == nil:
		return nil
	case stream.Context().Err() != nil:
		return status.Error(codes.Canceled, err.Error())
	default:
		return status.Error(codes.Internal, err.Error())
	}
}

func validateCustomSchemaQuery(schema, pkg string) error {
	if !api.CustomSchemaName.MatchString(schema) {
		return fmt.Errorf("invalid schema %q: must match %s", schema, api.CustomSchemaName)
	}
	if pkg != "" && !api.CustomSchemaName.MatchString(pkg) {
		return fmt.Errorf("invalid package %q: must match %s", pkg, api.CustomSchemaName)
	}
	return nil
}
