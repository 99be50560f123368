package serve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/httpapi"
	"github.com/olmcat/olmcat/internal/source"
)

// gRPC does not wait for the HTTP API when the HTTP store reads the catalog itself (an index.db,
// an FBC served from its cache): with that read held (the test hook), gRPC health is SERVING and
// calls are answered while /readyz and /api/v1/all answer 503; once let go, the HTTP API serves
// the very bytes a store fed by the plain walk (encoding/json, as before the fast path) holds.
func TestGRPCServesWhileHTTPLoads(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(t *testing.T) (path, cacheDir, pkg string)
	}{
		{"index.db", func(*testing.T) (string, string, string) { return "../../fixtures/index.db", "", "" }},
		{"corpus index.db", func(t *testing.T) (string, string, string) {
			return needCorpus(t, "sqlite/kube-green-replaces/input.db"), "", "kube-green"
		}},
		{"FBC from its cache", func(t *testing.T) (string, string, string) {
			dir, cache := needCorpus(t, "fbc/deprecations-konflux/catalog"), t.TempDir()
			if err := Run(context.Background(), Options{Path: dir, CacheDir: cache, CacheOnly: true}); err != nil {
				t.Fatal(err)
			}
			return dir, cache, "konflux-operator"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, cacheDir, pkg := c.open(t)
			want := plainStore(t, path)
			release := make(chan struct{})
			holding := make(chan struct{})
			httpReady := make(chan net.Addr, 1)
			var logs syncBuffer
			grpcAddr, stop := runUntilReady(t, Options{Path: path, CacheDir: cacheDir, HTTPAddr: "127.0.0.1:0",
				Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
				HTTPReady: func(a net.Addr) { httpReady <- a },
				beforeHTTPLoad: func(ctx context.Context) {
					close(holding)
					select {
					case <-release:
					case <-ctx.Done():
					}
				}})
			released := false
			defer func() {
				if !released {
					close(release)
				}
				if err := stop(); err != nil {
					t.Errorf("Run after shutdown: %v", err)
				}
			}()
			<-holding // gRPC is ready (runUntilReady) and the HTTP store is held before reading
			m := regexp.MustCompile(`catalogd API\); loading catalog" http-addr=(\S+)`).FindStringSubmatch(logs.String())
			if m == nil {
				t.Fatalf("no HTTP address in the log:\n%s", logs.String())
			}
			httpAddr := m[1]

			conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx := context.Background()
			h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "Registry"})
			if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
				t.Fatalf("gRPC health while the HTTP store loads: %v %v", h, err)
			}
			if pkg == "" {
				pkg = firstPackage(t, conn)
			}
			if p, err := api.NewRegistryClient(conn).GetPackage(ctx, &api.GetPackageRequest{Name: pkg}); err != nil || p.Name != pkg {
				t.Fatalf("GetPackage(%s) while the HTTP store loads: %v %v", pkg, p, err)
			}
			for _, path := range []string{"/readyz", "/healthz", "/api/v1/all"} {
				if code, _ := fetch(t, "http://"+httpAddr+path); code != http.StatusServiceUnavailable {
					t.Errorf("GET %s while the HTTP store loads: %d, want 503", path, code)
				}
			}
			if code, _ := fetch(t, "http://"+httpAddr+"/livez"); code != http.StatusOK {
				t.Errorf("GET /livez while the HTTP store loads: %d, want 200", code)
			}

			close(release)
			released = true
			select {
			case <-httpReady:
			case <-time.After(60 * time.Second):
				t.Fatal("the HTTP API is not ready 60 s after its load was let go")
			}
			if code, _ := fetch(t, "http://"+httpAddr+"/readyz"); code != http.StatusOK {
				t.Errorf("GET /readyz once loaded: %d, want 200", code)
			}
			code, got := fetch(t, "http://"+httpAddr+"/api/v1/all")
			if code != http.StatusOK || len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("GET /api/v1/all once loaded: %d, %d bytes; want 200 and the %d bytes of the plain walk's store", code, len(got), len(want))
			}
		})
	}
}

// plainStore is the HTTP API's /api/v1/all for the catalog at path, fed by Source.Walk (every
// blob encoded by encoding/json): what the store held before Source.WalkJSON.
func plainStore(t *testing.T, path string) []byte {
	t.Helper()
	src, err := source.Open(context.Background(), path, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	b, err := httpapi.NewBuilder("")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Walk(context.Background(), b.Add); err != nil {
		b.Discard()
		t.Fatal(err)
	}
	st, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	data, err := io.ReadAll(st.All())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fetch(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

func firstPackage(t *testing.T, conn *grpc.ClientConn) string {
	t.Helper()
	stream, err := api.NewRegistryClient(conn).ListPackages(context.Background(), &api.ListPackageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	return p.Name
}

// Stopped while the HTTP store is still loading (gRPC already serving), Run drains, waits for the
// load to end and returns nil, as a server stopped while it loads does.
func TestStopWhileHTTPLoads(t *testing.T) {
	holding := make(chan struct{})
	var logs syncBuffer
	_, stop := runUntilReady(t, Options{Path: "../../fixtures/index.db", HTTPAddr: "127.0.0.1:0",
		Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
		HTTPReady: func(net.Addr) { t.Error("the HTTP API was ready although its load was held until the stop") },
		beforeHTTPLoad: func(ctx context.Context) {
			close(holding)
			<-ctx.Done() // held until the server stops
		}})
	<-holding
	if err := stop(); err != nil {
		t.Fatalf("Run stopped while the HTTP store loads: %v", err)
	}
	// Which of the servers and the load notices the stop first decides the wording.
	if !regexp.MustCompile(`msg=("stopped while loading the catalog for the HTTP API"|stopped)`).MatchString(logs.String()) {
		t.Errorf("no log of the stop during the load:\n%s", logs.String())
	}
}
