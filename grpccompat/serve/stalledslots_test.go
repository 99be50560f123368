package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Issue 27.6: 2,000 connections each holding an unread ListBundles stream made every fresh call
// fail with ResourceExhausted for minutes while health said SERVING. Now health and /readyz say
// NOT_SERVING while a new client's call would be refused, and a stream whose client reads nothing
// gives its slot back, then is ended: fresh calls are answered again within the stall timeout.
func TestStalledStreamsGiveTheirSlotsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 4,000 connections")
	}
	fbcDir, _ := stalledCatalog(t)
	const stallers = 2000
	serveWith := func(t *testing.T, stall time.Duration) (grpcAddr, httpAddr string, stop func() error) {
		httpReady := make(chan net.Addr, 1)
		grpcAddr, stop = runUntilReady(t, Options{Path: fbcDir, HTTPAddr: "127.0.0.1:0", StallTimeout: stall,
			HTTPReady: func(a net.Addr) { httpReady <- a }})
		return grpcAddr, (<-httpReady).String(), stop
	}
	stall := func(t *testing.T, addr string) []*staller {
		ss := make([]*staller, 0, stallers)
		for range stallers {
			s := dialStaller(t, addr)
			s.open(t, 1)
			ss = append(ss, s)
		}
		t.Cleanup(func() {
			for _, s := range ss {
				s.close()
			}
		})
		return ss
	}
	client := func(t *testing.T, addr string) *grpc.ClientConn {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	health := func(conn *grpc.ClientConn, httpAddr string) (grpcStatus healthpb.HealthCheckResponse_ServingStatus, readyz int) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err == nil {
			grpcStatus = r.Status
		}
		if resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + httpAddr + "/readyz"); err == nil {
			resp.Body.Close()
			readyz = resp.StatusCode
		}
		return grpcStatus, readyz
	}
	// waitHealth polls (a bounded while) until health and /readyz say want.
	waitHealth := func(t *testing.T, conn *grpc.ClientConn, httpAddr string, want healthpb.HealthCheckResponse_ServingStatus, wantReadyz int) {
		t.Helper()
		var g healthpb.HealthCheckResponse_ServingStatus
		var r int
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if g, r = health(conn, httpAddr); g == want && r == wantReadyz {
				return
			}
		}
		t.Errorf("health %v and /readyz %d, want %v and %d", g, r, want, wantReadyz)
	}

	t.Run("saturated", func(t *testing.T) {
		addr, httpAddr, stop := serveWith(t, -1) // streams are never released: the limit holds
		defer stop()
		conn := client(t, addr)
		waitHealth(t, conn, httpAddr, healthpb.HealthCheckResponse_SERVING, http.StatusOK)
		stall(t, addr)
		waitHealth(t, conn, httpAddr, healthpb.HealthCheckResponse_NOT_SERVING, http.StatusServiceUnavailable)
		_, err := api.NewRegistryClient(conn).GetPackage(context.Background(), &api.GetPackageRequest{Name: "x"})
		if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "2000 calls open") {
			t.Errorf("a fresh call beside %d stalled streams and no stall timeout: %v, want ResourceExhausted naming 2000 calls open", stallers, err)
		}
	})

	t.Run("stall timeout", func(t *testing.T) {
		const timeout = 3 * time.Second
		addr, httpAddr, stop := serveWith(t, timeout)
		defer stop()
		want := listAll(t, addr)
		ss := stall(t, addr)
		conn := client(t, addr)
		// Within the stall timeout's third the slots are back: health, /readyz and fresh calls.
		waitHealth(t, conn, httpAddr, healthpb.HealthCheckResponse_SERVING, http.StatusOK)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := api.NewRegistryClient(conn).GetPackage(ctx, &api.GetPackageRequest{Name: "nope"}); status.Code(err) == codes.ResourceExhausted {
			t.Errorf("GetPackage beside %d stalled streams: %v", stallers, err)
		}
		if got := listAll(t, addr); got != want {
			t.Errorf("ListBundles beside %d stalled streams: %d bundles, want %d", stallers, got, want)
		}
		refl, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
		if err == nil {
			err = refl.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
		}
		if err == nil {
			_, err = refl.Recv()
		}
		if err != nil {
			t.Errorf("reflection beside %d stalled streams: %v", stallers, err)
		}
		// After the stall timeout the server ends every stalled stream (its handler returns;
		// the status waits behind the unread answer, as HTTP/2 orders them). Refused ones were
		// ended at once.
		var ended, refused int64
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			refused = 0
			for _, s := range ss {
				refused += s.ended.Load()
			}
			if ended = metricOf(t, httpAddr, `olmcat_grpc_stalled_streams_total{outcome="ended"}`); ended+refused == stallers {
				break
			}
		}
		if ended+refused != stallers {
			t.Errorf("%d stalled streams ended by the server and %d refused, want %d in all", ended, refused, stallers)
		}
	})
}

// metricOf reads one sample from the server's /metrics (-1 when absent).
func metricOf(t *testing.T, httpAddr, series string) int64 {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return int64(n)
			}
		}
	}
	return -1
}
