package compat

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/sqlite"
)

// serveLive serves b on 127.0.0.1:0 until the end of the test and returns its grpc:// address.
func serveLive(t *testing.T, b api.Backend, experimental bool) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpccompat.NewServer(grpccompat.ServerOptions{Experimental: experimental})
	srv.SetBackend(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis, time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		b.Close()
	})
	return "grpc://" + lis.Addr().String()
}

func dial(t *testing.T, addr string) Target {
	t.Helper()
	tg, err := Dial(t.Context(), addr, DialOptions{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// Two real servers on loopback, compared through grpc://: the kinds are told from the answers.
func TestLiveServers(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-infrawatch-05")
	q, err := sqlite.NewQuerier(filepath.Join(dir, "input.db"))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := fbcbackend.Open(t.Context(), fbcbackend.Dir(filepath.Join(dir, "migrate")), fbcbackend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sqlAddr, fbcAddr := serveLive(t, q, false), serveLive(t, fb, true)
	left, right := dial(t, sqlAddr), dial(t, fbcAddr)
	if left.Kind() != KindSQLite || right.Kind() != KindFBC {
		t.Errorf("kinds told from the servers: %s, %s", left.Kind(), right.Kind())
	}
	r := TestParity(t, left, right, Options{})
	if !r.CrossKind || r.Total.Calls != 47 {
		t.Errorf("live comparison: %s", r.Summary())
	}
	// The same server against itself is equal without any normalization.
	if r := TestParity(t, right, dial(t, fbcAddr), Options{Strict: true}); r.Total.Normalized != 0 {
		t.Errorf("self comparison needed normalizations: %s", r.Summary())
	}
}

func TestDialErrors(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := "grpc://" + closed.Addr().String()
	closed.Close()

	healthOnly, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, health.NewServer())
	go gs.Serve(healthOnly)
	t.Cleanup(gs.Stop)

	garbage, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := garbage.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			c.Close()
		}
	}()
	t.Cleanup(func() { garbage.Close() })

	for _, tc := range []struct{ addr, want string }{
		{closedAddr, "cannot reach"},
		{"grpc://" + healthOnly.Addr().String(), "does not serve api.Registry"},
		{"grpc://" + garbage.Addr().String(), "cannot reach"},
		{"grpc://localhost", "needs a port"},
		{"grpc://localhost:50051/x", "no path"},
		{"http://localhost:50051", "not a server address"},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			_, err := Dial(t.Context(), tc.addr, DialOptions{Timeout: 5 * time.Second})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Dial(%s) = %v, want an error saying %q", tc.addr, err, tc.want)
			}
		})
	}
}

// hangingBackend never answers GetBundle: each such call runs into the deadline.
type hangingBackend struct{ api.Backend }

func (h hangingBackend) GetBundle(ctx context.Context, _, _, _ string) (*api.Bundle, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A side that stops answering ends the run with a clear error and a partial report, not a hang.
func TestSideTimingOutStopsTheRun(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-infrawatch-05")
	q, err := sqlite.NewQuerier(filepath.Join(dir, "input.db"))
	if err != nil {
		t.Fatal(err)
	}
	left, err := ServeBackend("hanging", KindSQLite, hangingBackend{q})
	if err != nil {
		t.Fatal(err)
	}
	defer left.Close()
	right := openServable(t, filepath.Join(dir, "input.db"))
	r, err := Check(t.Context(), left, right, Options{Timeout: 100 * time.Millisecond, MaxFailures: 3, Concurrency: 1})
	if err == nil || r == nil {
		t.Fatalf("Check = %v, %v; want a partial report and an error", r, err)
	}
	if !strings.Contains(err.Error(), "left side (hanging) failed 3 GetBundle calls in a row") || r.Incomplete != err.Error() {
		t.Errorf("error %q, report incomplete %q", err, r.Incomplete)
	}
	if r.Verdict() != "incomplete" || r.Total.Errors != 3 || r.Total.Equal == 0 || r.Total.Calls >= len(r.Plan) {
		t.Errorf("partial report: %s (plan of %d)", r.Summary(), len(r.Plan))
	}
	if len(r.Errors) != 3 || r.Errors[0].Side != "left" || !strings.Contains(r.Errors[0].Error, "DeadlineExceeded") {
		t.Errorf("errors: %+v", r.Errors)
	}
}

// A call the recording does not hold is an error of that call, not a difference.
func TestRecordingWithoutTheCall(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-foo-index-v0.2.0")
	rec := recording(t, filepath.Join(dir, "grpc"), KindSQLite)
	plan := Plan{{ID: "1", Method: GetPackage, Request: []byte(`{"name":"not-in-the-recording"}`)}}
	r, err := Check(t.Context(), rec, rec, Options{Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Errors != 1 || !strings.Contains(r.Errors[0].Error, "not in the recording") {
		t.Errorf("report: %s, errors %+v", r.Summary(), r.Errors)
	}
}
