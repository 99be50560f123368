package grpccompat_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// serveFor starts srv on a loopback port and returns a client connection; ctx ending stops it.
func serveFor(t *testing.T, srv *grpccompat.Server, drain time.Duration) (conn *grpc.ClientConn, stop func() error) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis, drain) }()
	conn, err = grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { conn.Close(); stop() })
	return conn, stop
}

// waitFor polls cond for up to 10 seconds.
func waitFor(cond func() bool) bool {
	for range 500 {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// lingeringBackend's ListBundles blocks until its call is cancelled, then takes a moment to
// return, as a backend does that finishes a read before it sees the cancellation.
type lingeringBackend struct {
	fakeBackend
	running atomic.Int32
}

func (b *lingeringBackend) ListBundles(ctx context.Context, _ func(*api.Bundle) error) error {
	b.running.Add(1)
	defer b.running.Add(-1)
	<-ctx.Done()
	time.Sleep(300 * time.Millisecond)
	return ctx.Err()
}

// After the drain timeout Serve cuts the remaining calls off, and returns only once their
// handlers have returned: its caller closes the backend next, which must not happen under a
// handler still reading it (grpc's Stop does not wait for handlers; Serve used to return at once).
func TestDrainTimeoutWaitsForCutOffHandlers(t *testing.T) {
	b := &lingeringBackend{}
	srv := grpccompat.NewServer(grpccompat.ServerOptions{})
	srv.SetBackend(b)
	conn, stop := serveFor(t, srv, 100*time.Millisecond)
	if _, err := api.NewRegistryClient(conn).ListBundles(context.Background(), &api.ListBundlesRequest{}); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return b.running.Load() == 1 }) {
		t.Fatal("the ListBundles handler never started")
	}
	if err := stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if n := b.running.Load(); n != 0 {
		t.Errorf("Serve returned while %d handler(s) cut off by the drain timeout still ran", n)
	}
}

// endlessBackend's ListBundles sends until the stream fails or is cancelled.
type endlessBackend struct{ fakeBackend }

func (endlessBackend) ListBundles(ctx context.Context, send func(*api.Bundle) error) error {
	for ctx.Err() == nil {
		if err := send(fullBundle); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func gauge(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metric:
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue metric
				}
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return 0
}

// Clients that open ListBundles streams, read a little and go away leave nothing behind: the
// server's goroutines return to what they were, and no call is counted in flight.
func TestCancelledListBundlesLeaveNothingBehind(t *testing.T) {
	reg := prometheus.NewRegistry()
	srv := grpccompat.NewServer(grpccompat.ServerOptions{Registerer: reg})
	srv.SetBackend(endlessBackend{})
	conn, _ := serveFor(t, srv, 5*time.Second)
	client := api.NewRegistryClient(conn)
	if _, err := client.GetPackage(context.Background(), &api.GetPackageRequest{Name: "demo"}); err != nil {
		t.Fatal(err) // the connection is up: its goroutines are part of the baseline
	}
	runtime.GC()
	baseline := runtime.NumGoroutine()
	const rounds, streams = 4, 50
	for range rounds {
		ctx, cancel := context.WithCancel(context.Background())
		for range streams {
			s, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Recv(); err != nil {
				t.Fatal(err)
			}
		}
		cancel()
	}
	// A few goroutines of grpc's own (timers, the client's resolver) may come and go; one per
	// stream or per round would show as far more.
	const slack = 4
	if !waitFor(func() bool { return runtime.NumGoroutine() <= baseline+slack }) {
		t.Errorf("%d goroutines after %d cancelled ListBundles streams, %d before", runtime.NumGoroutine(), rounds*streams, baseline)
	}
	// The goroutine count may be back within the slack while the last handlers are still returning
	// (a loaded machine): wait for the gauge too, and fail only if it stays above zero.
	inFlight := func() float64 {
		return gauge(t, reg, "olmcat_grpc_calls_in_flight", map[string]string{"grpc_method": "ListBundles"})
	}
	waitFor(func() bool { return inFlight() == 0 })
	if n := inFlight(); n != 0 {
		t.Errorf("olmcat_grpc_calls_in_flight{grpc_method=ListBundles} = %v after every stream was cancelled", n)
	}
}

func seriesCount(t *testing.T, reg *prometheus.Registry) (n int, methods map[string]bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	methods = map[string]bool{}
	for _, f := range families {
		n += len(f.Metric)
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if l.GetName() == "grpc_method" {
					methods[l.GetValue()] = true
				}
			}
		}
	}
	return n, methods
}

// Method names are client input: calls to 1,000 random methods of unknown services, and of
// api.Registry, add no metric series (each would be kept for the life of the process).
func TestUnknownMethodsAddNoMetricSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	srv := grpccompat.NewServer(grpccompat.ServerOptions{Registerer: reg, Experimental: true})
	srv.SetBackend(fakeBackend{})
	conn, _ := serveFor(t, srv, 5*time.Second)
	ctx := context.Background()
	if _, err := api.NewRegistryClient(conn).GetPackage(ctx, &api.GetPackageRequest{Name: "demo"}); err != nil {
		t.Fatal(err)
	}
	before, known := seriesCount(t, reg)
	rng := rand.New(rand.NewPCG(19, 22))
	for i := range 1000 {
		method := fmt.Sprintf("/svc%x.Service/M%x", rng.Uint64(), rng.Uint64())
		if i%2 == 1 {
			method = fmt.Sprintf("/api.Registry/M%x", rng.Uint64())
		}
		err := conn.Invoke(ctx, method, &api.GetPackageRequest{}, &api.Package{})
		if status.Code(err) != codes.Unimplemented {
			t.Fatalf("%s: %v, want Unimplemented", method, err)
		}
	}
	after, methods := seriesCount(t, reg)
	if after != before {
		t.Errorf("%d metric series after 1,000 calls of unknown methods, %d before", after, before)
	}
	for m := range methods {
		if !known[m] {
			t.Errorf("a series has grpc_method %q", m)
		}
	}
}

// Call metadata is not flow-controlled: a call with more than the server's bound is refused
// rather than held for as long as the call stays open (grpc's default bound is 16 MiB a call);
// ordinary metadata passes.
func TestLargeCallMetadataIsRefused(t *testing.T) {
	srv := grpccompat.NewServer(grpccompat.ServerOptions{})
	srv.SetBackend(fakeBackend{})
	conn, _ := serveFor(t, srv, 5*time.Second)
	client := api.NewRegistryClient(conn)
	call := func(value string) error {
		ctx := metadata.AppendToOutgoingContext(context.Background(), "x-padding", value)
		_, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: "demo"})
		return err
	}
	if err := call("small"); err != nil {
		t.Fatalf("a call with ordinary metadata: %v", err)
	}
	if err := call(strings.Repeat("x", 1<<20)); err == nil {
		t.Error("a call with 1 MiB of metadata was answered")
	}
	if err := call("small"); err != nil {
		t.Errorf("the connection after a refused call: %v", err)
	}
}
