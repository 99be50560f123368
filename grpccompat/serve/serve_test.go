package serve

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olmcat/olmcat/internal/readonlytest"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
)

const corpus = "../../../shared/conformance"

func needCorpus(t *testing.T, p string) string {
	t.Helper()
	p = filepath.Join(corpus, p)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("conformance corpus not found at %s", p)
	}
	return p
}

// runUntilReady starts Run and returns the address once the catalog is served.
func runUntilReady(t *testing.T, o Options) (addr string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	o.Addr, o.DrainTimeout = "127.0.0.1:0", 5*time.Second
	o.Ready = func(a net.Addr) { ready <- a }
	go func() { done <- Run(ctx, o) }()
	select {
	case a := <-ready:
		return a.String(), func() error { cancel(); return <-done }
	case err := <-done:
		cancel()
		t.Fatalf("Run failed before ready: %v", err)
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("not ready after 60s")
	}
	return "", nil
}

func TestServesBothKinds(t *testing.T) {
	for _, c := range []struct{ path, pkg string }{
		{needCorpus(t, "fbc/deprecations-konflux/catalog"), "konflux-operator"},
		{needCorpus(t, "sqlite/kube-green-replaces/input.db"), "kube-green"},
	} {
		t.Run(filepath.Base(filepath.Dir(c.path)), func(t *testing.T) {
			addr, stop := runUntilReady(t, Options{Path: c.path})
			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx := context.Background()
			h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "Registry"})
			if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
				t.Fatalf("health once ready: %v %v", h, err)
			}
			p, err := api.NewRegistryClient(conn).GetPackage(ctx, &api.GetPackageRequest{Name: c.pkg})
			if err != nil || p.Name != c.pkg {
				t.Fatalf("GetPackage(%s): %v %v", c.pkg, p, err)
			}
			if err := stop(); err != nil {
				t.Fatalf("Run after shutdown: %v", err)
			}
		})
	}
}

func TestPortInUseIsAClearError(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	err = Run(context.Background(), Options{Path: needCorpus(t, "sqlite/kube-green-replaces/input.db"), Addr: lis.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), lis.Addr().String()) {
		t.Fatalf("want a listen error naming the address, got %v", err)
	}
}

func TestInvalidCatalogIsRefused(t *testing.T) {
	err := Run(context.Background(), Options{Path: needCorpus(t, "invalid/two-channel-heads/catalog"), Addr: "127.0.0.1:0"})
	var invalid *fbcbackend.InvalidCatalogError
	if !errors.As(err, &invalid) {
		t.Fatalf("want *fbcbackend.InvalidCatalogError, got %v", err)
	}
}

// A cache built with --cache-only is served as is: the second start writes nothing.
func TestCacheOnlyThenServeFromCache(t *testing.T) {
	catalog := needCorpus(t, "fbc/ocmirror-jaeger-product-json/catalog")
	cache := t.TempDir()
	if err := Run(context.Background(), Options{Path: catalog, CacheDir: cache, CacheOnly: true}); err != nil {
		t.Fatalf("--cache-only: %v", err)
	}
	before := snapshotDir(t, cache)
	_, stop := runUntilReady(t, Options{Path: catalog, CacheDir: cache})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if after := snapshotDir(t, cache); after != before {
		t.Errorf("serving from a valid cache changed it:\nbefore %s\nafter  %s", before, after)
	}
}

func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String() + " " + fi.ModTime().String() + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// One byte changed in the cache index: --cache-only and serve in a read-only directory refuse it,
// naming the file and how to rebuild it; where the directory is writable --cache-only rebuilds it.
func TestDamagedCacheIsNeverServed(t *testing.T) {
	catalog := needCorpus(t, "fbc/ocmirror-jaeger-product-json/catalog")
	cache := t.TempDir()
	if err := Run(context.Background(), Options{Path: catalog, CacheDir: cache, CacheOnly: true}); err != nil {
		t.Fatalf("--cache-only: %v", err)
	}
	index := filepath.Join(cache, "olmcat-serve-v1", "index.gob")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(index, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("read-only", func(t *testing.T) {
		readonlytest.Make(t, filepath.Dir(index), cache)
		for _, cacheOnly := range []bool{true, false} {
			ctx, cancel := context.WithCancel(context.Background())
			err := Run(ctx, Options{Path: catalog, CacheDir: cache, CacheOnly: cacheOnly, Addr: "127.0.0.1:0",
				Ready: func(net.Addr) { t.Errorf("served a damaged cache"); cancel() }})
			cancel()
			if err == nil || !strings.Contains(err.Error(), index) || !strings.Contains(err.Error(), "--cache-only") {
				t.Errorf("--cache-only %v with a damaged cache in a read-only directory: %v; want a refusal naming %s and how to rebuild it", cacheOnly, err, index)
			}
		}
	})
	if err := Run(context.Background(), Options{Path: catalog, CacheDir: cache, CacheOnly: true}); err != nil {
		t.Fatalf("--cache-only in a writable directory should rebuild the damaged cache: %v", err)
	}
	if now, _ := os.ReadFile(index); bytes.Equal(now, data) {
		t.Error("the damaged index is still there after --cache-only")
	}
}
