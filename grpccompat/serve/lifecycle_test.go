package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
)

// When the catalog fails to load, Run returns with nothing of the server left behind: the
// metrics and pprof endpoints are closed (a restart on the same ports must not find them taken)
// and the start-up CPU profile is stopped (it used to keep running for the life of the process).
func TestLoadFailureLeavesNothingRunning(t *testing.T) {
	var metricsAddr net.Addr
	pprofAddr := freeAddr(t)
	err := Run(context.Background(), Options{Path: needCorpus(t, "invalid/two-channel-heads/catalog"), Addr: "127.0.0.1:0",
		MetricsAddr: "127.0.0.1:0", MetricsReady: func(a net.Addr) { metricsAddr = a },
		PprofAddr: pprofAddr, CaptureStartupProfile: true})
	var invalid *fbcbackend.InvalidCatalogError
	if !errors.As(err, &invalid) {
		t.Fatalf("want *fbcbackend.InvalidCatalogError, got %v", err)
	}
	if metricsAddr == nil {
		t.Fatal("the metrics endpoint never listened")
	}
	for what, addr := range map[string]string{"metrics": metricsAddr.String(), "pprof": pprofAddr} {
		if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
			c.Close()
			t.Errorf("the %s endpoint %s still accepts connections after Run returned", what, addr)
		}
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Errorf("the start-up CPU profile is still running after Run returned: %v", err)
	} else {
		pprof.StopCPUProfile()
	}
}

// After a normal stop every listener Run opened is closed when it returns.
func TestStopClosesEveryListener(t *testing.T) {
	var metricsAddr net.Addr
	base, grpcAddr, stop := runHTTP(t, Options{Path: needCorpus(t, "fbc/deprecations-konflux/catalog"),
		MetricsAddr: "127.0.0.1:0", MetricsReady: func(a net.Addr) { metricsAddr = a }})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for what, addr := range map[string]string{"gRPC": grpcAddr, "HTTP": base[len("http://"):], "metrics": metricsAddr.String()} {
		if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
			c.Close()
			t.Errorf("the %s listener %s still accepts connections after Run returned", what, addr)
		}
	}
}
