package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Both APIs answer from one snapshot: with an FBC the HTTP store is fed from the gRPC backend's own
// walk; from a pre-built cache (no walk) it reads the catalog itself. Either way the packages the
// two APIs list are the same.
func TestBothAPIsOneSnapshot(t *testing.T) {
	catalog := needCorpus(t, "fbc/deprecations-konflux/catalog")
	cache := t.TempDir()
	if err := Run(context.Background(), Options{Path: catalog, CacheDir: cache, CacheOnly: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, cacheDir string
		ownWalk        bool
	}{{"teed", "", false}, {"from cache", cache, true}} {
		t.Run(c.name, func(t *testing.T) {
			var logs syncBuffer
			base, grpcAddr, stop := runHTTP(t, Options{Path: catalog, CacheDir: c.cacheDir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			defer stop()
			if walked := strings.Contains(logs.String(), "read the catalog for the HTTP API"); walked != c.ownWalk {
				t.Errorf("HTTP store read the catalog itself: %v, want %v\n%s", walked, c.ownWalk, logs.String())
			}
			var httpPkgs []string
			for _, b := range get(t, base+"/api/v1/metas?schema=olm.package") {
				httpPkgs = append(httpPkgs, b.key.Name)
			}
			conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			stream, err := api.NewRegistryClient(conn).ListPackages(context.Background(), &api.ListPackageRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var grpcPkgs []string
			for {
				p, err := stream.Recv()
				if errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				grpcPkgs = append(grpcPkgs, p.Name)
			}
			slices.Sort(httpPkgs)
			slices.Sort(grpcPkgs)
			if len(grpcPkgs) == 0 || !slices.Equal(httpPkgs, grpcPkgs) {
				t.Errorf("HTTP packages %v, gRPC packages %v", httpPkgs, grpcPkgs)
			}
		})
	}
}

// --grpc=false: HTTP alone, nothing listens for gRPC, and an invalid FBC is still refused.
func TestHTTPOnly(t *testing.T) {
	base, grpcAddr, stop := runHTTP(t, Options{Path: needCorpus(t, "fbc/deprecations-konflux/catalog"), HTTPOnly: true})
	if grpcAddr != "" {
		t.Errorf("gRPC served at %s with HTTPOnly", grpcAddr)
	}
	if n := len(get(t, base+"/api/v1/metas?schema="+fbc.SchemaDeprecations)); n == 0 {
		t.Error("no olm.deprecations blob served")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("HTTP still answers after shutdown")
	}
	err := Run(context.Background(), Options{Path: needCorpus(t, "invalid/two-channel-heads/catalog"), HTTPOnly: true, HTTPAddr: "127.0.0.1:0"})
	var invalid *fbcbackend.InvalidCatalogError
	if !errors.As(err, &invalid) {
		t.Fatalf("HTTP only, invalid catalog: want *fbcbackend.InvalidCatalogError, got %v", err)
	}
	if err := Run(context.Background(), Options{Path: needCorpus(t, "fbc/deprecations-konflux/catalog"), HTTPOnly: true}); err == nil {
		t.Error("HTTPOnly without an HTTP address: no error")
	}
}

func TestHTTPPortInUse(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	err = Run(context.Background(), Options{Path: needCorpus(t, "sqlite/kube-green-replaces/input.db"), Addr: "127.0.0.1:0", HTTPAddr: lis.Addr().String()})
	var le *ListenError
	if !errors.As(err, &le) || le.Addr != lis.Addr().String() {
		t.Fatalf("want a ListenError for the HTTP address, got %v", err)
	}
}
