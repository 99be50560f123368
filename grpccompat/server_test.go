package grpccompat_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sort"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// fullBundle sets every field, so a round trip proves each one survives the wire.
var fullBundle = &api.Bundle{
	CsvName: "demo.v1.0.0", PackageName: "demo", ChannelName: "stable", CsvJson: `{"kind":"ClusterServiceVersion"}`,
	Object: []string{`{"kind":"ClusterServiceVersion"}`, `{"kind":"CustomResourceDefinition"}`}, BundlePath: "quay.io/demo:v1",
	ProvidedApis: []*api.GroupVersionKind{{Group: "demo.io", Version: "v1", Kind: "Demo", Plural: "demos"}},
	RequiredApis: []*api.GroupVersionKind{{Group: "dep.io", Version: "v1", Kind: "Dep"}},
	Version:      "1.0.0", SkipRange: "<1.0.0",
	Dependencies: []*api.Dependency{{Type: "olm.gvk", Value: `{"group":"dep.io","kind":"Dep","version":"v1"}`}},
	Properties:   []*api.Property{{Type: "olm.package", Value: `{"packageName":"demo","version":"1.0.0"}`}},
	Replaces:     "demo.v0.9.0", Skips: []string{"demo.v0.9.1"}, Deprecation: &api.Deprecation{Message: "old"},
}

var fullPackage = &api.Package{Name: "demo", DefaultChannelName: "stable", Deprecation: &api.Deprecation{Message: "pkg"},
	Channels: []*api.Channel{{Name: "stable", CsvName: "demo.v1.0.0", Deprecation: &api.Deprecation{Message: "ch"}}}}

var entry = &api.ChannelEntry{PackageName: "demo", ChannelName: "stable", BundleName: "demo.v1.0.0", Replaces: "demo.v0.9.0"}

type fakeBackend struct{ listDelay time.Duration }

func (fakeBackend) ListPackages(context.Context) ([]string, error) { return []string{"demo"}, nil }
func (fakeBackend) GetPackage(_ context.Context, n string) (*api.Package, error) {
	if n != "demo" {
		return nil, errors.New("package " + n + " not found")
	}
	return fullPackage, nil
}
func (fakeBackend) GetBundle(context.Context, string, string, string) (*api.Bundle, error) {
	return fullBundle, nil
}
func (fakeBackend) GetBundleForChannel(context.Context, string, string) (*api.Bundle, error) {
	return fullBundle, nil
}
func (fakeBackend) GetChannelEntriesThatReplace(context.Context, string) ([]*api.ChannelEntry, error) {
	return []*api.ChannelEntry{entry}, nil
}
func (fakeBackend) GetBundleThatReplaces(context.Context, string, string, string) (*api.Bundle, error) {
	return fullBundle, nil
}
func (fakeBackend) GetChannelEntriesThatProvide(context.Context, string, string, string) ([]*api.ChannelEntry, error) {
	return nil, errors.New("no channel entries found that provide x")
}
func (fakeBackend) GetLatestChannelEntriesThatProvide(context.Context, string, string, string) ([]*api.ChannelEntry, error) {
	return []*api.ChannelEntry{entry, entry}, nil
}
func (fakeBackend) GetDefaultBundleThatProvides(context.Context, string, string, string) (*api.Bundle, error) {
	return fullBundle, nil
}
func (f fakeBackend) ListBundles(ctx context.Context, send func(*api.Bundle) error) error {
	for i := 0; i < 3; i++ {
		time.Sleep(f.listDelay)
		if err := send(fullBundle); err != nil {
			return err
		}
	}
	return nil
}
func (fakeBackend) Close() error { return nil }
func (fakeBackend) ListPackageCustomSchemas(_ context.Context, schema, pkg string, send func(*structpb.Struct) error) error {
	s, _ := structpb.NewStruct(map[string]any{"schema": schema, "package": pkg, "n": 1.5})
	return send(s)
}

func start(t *testing.T, b api.Backend) (*grpccompat.Server, *grpc.ClientConn, context.CancelFunc, chan error) {
	t.Helper()
	return startWith(t, b, grpccompat.ServerOptions{Experimental: true})
}

// startWith serves b with the options o on 127.0.0.1 and connects a client.
func startWith(t *testing.T, b api.Backend, o grpccompat.ServerOptions) (*grpccompat.Server, *grpc.ClientConn, context.CancelFunc, chan error) {
	t.Helper()
	srv := grpccompat.NewServer(o)
	if b != nil {
		srv.SetBackend(b)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis, 5*time.Second) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); cancel(); <-done })
	return srv, conn, cancel, done
}

func TestRoundTripEveryRPC(t *testing.T) {
	_, conn, _, _ := start(t, fakeBackend{})
	c := api.NewRegistryClient(conn)
	ctx := context.Background()
	eq := func(what string, got, want proto.Message, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !proto.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	p, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "demo"})
	eq("GetPackage", p, fullPackage, err)
	b, err := c.GetBundle(ctx, &api.GetBundleRequest{PkgName: "demo", ChannelName: "stable", CsvName: "demo.v1.0.0"})
	eq("GetBundle", b, fullBundle, err)
	b, err = c.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: "demo", ChannelName: "stable"})
	eq("GetBundleForChannel", b, fullBundle, err)
	b, err = c.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: "x"})
	eq("GetBundleThatReplaces", b, fullBundle, err)
	b, err = c.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: "g"})
	eq("GetDefaultBundleThatProvides", b, fullBundle, err)

	names := drain(t, func() (grpc.ServerStreamingClient[api.PackageName], error) {
		return c.ListPackages(ctx, &api.ListPackageRequest{})
	})
	if len(names) != 1 || names[0].Name != "demo" {
		t.Errorf("ListPackages = %v", names)
	}
	bundles := drain(t, func() (grpc.ServerStreamingClient[api.Bundle], error) {
		return c.ListBundles(ctx, &api.ListBundlesRequest{})
	})
	if len(bundles) != 3 || !proto.Equal(bundles[2], fullBundle) {
		t.Errorf("ListBundles = %d bundles", len(bundles))
	}
	entries := drain(t, func() (grpc.ServerStreamingClient[api.ChannelEntry], error) {
		return c.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{})
	})
	if len(entries) != 2 || !proto.Equal(entries[0], entry) {
		t.Errorf("GetLatestChannelEntriesThatProvide = %v", entries)
	}
	stream, _ := c.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{})
	if _, err := stream.Recv(); status.Code(err) != codes.Unknown || status.Convert(err).Message() != "no channel entries found that provide x" {
		t.Errorf("a backend error must reach the client as code Unknown with its text, got %v", err)
	}
	if _, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "nope"}); status.Code(err) != codes.Unknown {
		t.Errorf("GetPackage miss: %v, want Unknown", err)
	}
}

func drain[M any](t *testing.T, open func() (grpc.ServerStreamingClient[M], error)) []*M {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	var out []*M
	for {
		m, err := s.Recv()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
}

func TestHealthReportsReadiness(t *testing.T) {
	srv, conn, _, _ := start(t, nil)
	h := healthpb.NewHealthClient(conn)
	ctx := context.Background()
	for _, svc := range []string{"", "Registry"} {
		r, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || r.Status != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("before the catalog is loaded, Check(%q) = %v, %v; want NOT_SERVING", svc, r, err)
		}
	}
	// A call made while the catalog loads waits for it, up to its deadline (issue 29.4).
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := api.NewRegistryClient(conn).GetPackage(short, &api.GetPackageRequest{Name: "demo"}); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("a call before the catalog is loaded, past its deadline: %v, want DeadlineExceeded", err)
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := api.NewRegistryClient(conn).GetPackage(ctx, &api.GetPackageRequest{Name: "demo"})
		waiting <- err
	}()
	stream, err := api.NewRegistryClient(conn).ListPackages(ctx, &api.ListPackageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waiting:
		t.Fatalf("a call made while the catalog loads returned before it was loaded: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	srv.SetBackend(fakeBackend{})
	if err := <-waiting; err != nil {
		t.Errorf("a call that waited for the catalog: %v, want its answer", err)
	}
	if p, err := stream.Recv(); err != nil || p.GetName() != "demo" {
		t.Errorf("a stream that waited for the catalog: %v, %v; want demo", p, err)
	}
	for _, svc := range []string{"", "Registry"} {
		r, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("once loaded, Check(%q) = %v, %v; want SERVING", svc, r, err)
		}
	}
}

func TestReflectionListsServices(t *testing.T) {
	_, conn, _, _ := start(t, fakeBackend{})
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	want := []string{"api.ExperimentalRegistry", "api.Registry", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"}
	if len(names) != len(want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("services %v, want %v", names, want)
		}
	}
}

func TestExperimentalNeedsAcknowledgement(t *testing.T) {
	_, conn, _, _ := start(t, fakeBackend{})
	c := api.NewExperimentalRegistryClient(conn)
	list := func(ctx context.Context, schema string) ([]*structpb.Struct, error) {
		s, err := c.ExperimentalListPackageCustomSchemas(ctx, &api.ExperimentalListPackageCustomSchemasRequest{Schema: schema, PackageName: "demo"})
		if err != nil {
			return nil, err
		}
		var out []*structpb.Struct
		for {
			m, err := s.Recv()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, m)
		}
	}
	ack := metadata.AppendToOutgoingContext(context.Background(), grpccompat.ExperimentalAckHeader, "true")
	if got, err := list(context.Background(), "my.schema"); err != nil || len(got) != 0 {
		t.Errorf("without the header: %d blobs, %v; want an empty OK stream", len(got), err)
	}
	if got, err := list(ack, "my.schema"); err != nil || len(got) != 1 || got[0].Fields["schema"].GetStringValue() != "my.schema" {
		t.Errorf("with the header: %v, %v", got, err)
	}
	if _, err := list(ack, ""); status.Code(err) != codes.InvalidArgument || status.Convert(err).Message() != "schema is required" {
		t.Errorf("empty schema: %v", err)
	}
	if _, err := list(ack, "a/b"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("schema with '/': %v", err)
	}
}

func TestGracefulStopLetsStreamsFinish(t *testing.T) {
	_, conn, cancel, done := start(t, fakeBackend{listDelay: 100 * time.Millisecond})
	s, err := api.NewRegistryClient(conn).ListBundles(context.Background(), &api.ListBundlesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil {
		t.Fatal(err)
	}
	cancel() // as on SIGTERM
	n := 1
	for {
		_, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("stream cut during graceful stop after %d bundles: %v", n, err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("got %d bundles, want 3", n)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve after graceful stop: %v", err)
	}
	done <- nil // for the cleanup
}

// Health Watch streams stay open, so they count toward MaxConcurrentCalls: on one connection with
// a limit of 2, the first 4 Watches (2 reserved, 2 shared) are admitted and the next one fails at
// once with ResourceExhausted, while a unary health Check is still answered (NOT_SERVING while
// the calls are open).
func TestHealthWatchCountsTowardCallLimit(t *testing.T) {
	const limit = 2
	_, conn, _, _ := startWith(t, fakeBackend{}, grpccompat.ServerOptions{MaxConcurrentCalls: limit})
	h := healthpb.NewHealthClient(conn)
	callCtx, cancelCalls := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelCalls()
	const admitted = 2 * limit
	for i := range admitted + 1 {
		w, err := h.Watch(callCtx, &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := w.Recv()
		if i < admitted {
			if err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
				t.Fatalf("Watch %d of %d with a limit of %d: %v, %v; want SERVING", i+1, admitted+1, limit, r, err)
			}
			continue
		}
		if status.Code(err) != codes.ResourceExhausted {
			t.Errorf("Watch %d beside %d open Watches: %v, %v; want ResourceExhausted", i+1, admitted, r, err)
		}
	}
	// Check is still answered, and says the server cannot take calls (issue 27.6: it said
	// SERVING while every call was refused) until one ends.
	check := func(want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		var r *healthpb.HealthCheckResponse
		var err error
		for range 100 { // the status follows the calls within moments
			if r, err = h.Check(callCtx, &healthpb.HealthCheckRequest{}); err != nil || r.Status == want {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil || r.Status != want {
			t.Errorf("Check: %v, %v; want %v", r, err, want)
		}
	}
	check(healthpb.HealthCheckResponse_NOT_SERVING)
	cancelCalls()
	callCtx, cancelCalls = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelCalls()
	check(healthpb.HealthCheckResponse_SERVING)
}

// A server stopped before its catalog was loaded does not keep the calls waiting for it until the
// drain timeout: they fail at once with Unavailable.
func TestStopWhileLoadingReleasesWaitingCalls(t *testing.T) {
	_, conn, cancel, done := start(t, nil)
	waiting := make(chan error, 1)
	go func() {
		_, err := api.NewRegistryClient(conn).GetPackage(context.Background(), &api.GetPackageRequest{Name: "demo"})
		waiting <- err
	}()
	// The call is waiting once the server counts it in flight; health answers meanwhile.
	h := healthpb.NewHealthClient(conn)
	if r, err := h.Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil || r.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("health while loading: %v, %v", r, err)
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := <-waiting; status.Code(err) != codes.Unavailable {
		t.Errorf("a call waiting when the server stopped: %v, want Unavailable", err)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	done <- nil // for the cleanup
}
