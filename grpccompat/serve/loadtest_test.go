package serve

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/fixtures/procstat"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// TestLoad measures a real `olmcat serve` process; it runs only when OLMCAT_LOADTEST=1:
//
//	OLMCAT_BIN=bin/olmcat          the binary to measure (required)
//	OLMCAT_CATALOG=DIR|index.db    what to serve (required)
//	OLMCAT_CACHE_DIR=DIR           passed as --cache-dir (optional)
//	OLMCAT_LOAD_SECONDS=30         length of the load phase (0 skips it)
//	OLMCAT_LOAD_CLIENTS=200        concurrent clients in the load phase
//	OLMCAT_HTTP=1                  also serve catalogd's HTTP API, and load it instead of gRPC
//	                               (see httpLoad)
//
// It reports: time until health says SERVING, one full ListBundles stream, then the load phase
// (clients mixing GetBundle, GetPackage and ListBundles on 127.0.0.1): calls, errors, p50/p99
// latency per method, and the server's peak RSS. Errors fail the test; timings are only reported.
func TestLoad(t *testing.T) {
	if os.Getenv("OLMCAT_LOADTEST") != "1" {
		t.Skip("set OLMCAT_LOADTEST=1 (and OLMCAT_BIN, OLMCAT_CATALOG) to run the load test")
	}
	bin, catalog := os.Getenv("OLMCAT_BIN"), os.Getenv("OLMCAT_CATALOG")
	if bin == "" || catalog == "" {
		t.Fatal("OLMCAT_BIN and OLMCAT_CATALOG are required")
	}
	seconds := envInt("OLMCAT_LOAD_SECONDS", 30)
	clients := envInt("OLMCAT_LOAD_CLIENTS", 200)

	addr := freeAddr(t)
	args := []string{"serve", catalog, "-p", addr, "-t", ""}
	if d := os.Getenv("OLMCAT_CACHE_DIR"); d != "" {
		args = append(args, "--cache-dir", d)
	}
	httpAddr := ""
	if os.Getenv("OLMCAT_HTTP") == "1" {
		httpAddr = freeAddr(t)
		args = append(args, "--http-addr", httpAddr)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopServer(cmd)

	// Reconnect quickly while the server is starting: grpc's default backoff (1s and up) would
	// be measured as start-up time.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 5 * time.Millisecond, Multiplier: 1, MaxDelay: 5 * time.Millisecond}, MinConnectTimeout: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ready := waitServing(t, conn, start)
	if httpAddr != "" {
		httpLoad(t, httpAddr, start.Add(ready), clients, time.Duration(seconds)*time.Second)
		t.Logf("ready (health SERVING) after %v; server peak RSS: %s", ready.Round(time.Millisecond), peakRSS(cmd.Process.Pid))
		return
	}
	t.Logf("ready (health SERVING) after %v (server CPU %v)", ready.Round(time.Millisecond), procstat.CPUTime(cmd.Process.Pid))

	reg := api.NewRegistryClient(conn)
	t0 := time.Now()
	rows, err := listBundles(context.Background(), reg)
	if err != nil {
		t.Fatalf("ListBundles: %v", err)
	}
	t.Logf("ListBundles: %d bundles streamed in %v (server CPU so far %v)", len(rows), time.Since(t0).Round(time.Millisecond), procstat.CPUTime(cmd.Process.Pid))
	if seconds > 0 {
		loadPhase(t, addr, rows, clients, time.Duration(seconds)*time.Second)
	}
	t.Logf("server peak RSS: %s", peakRSS(cmd.Process.Pid))
}

// stopServer ends the server as Kubernetes does, SIGTERM then SIGKILL, so that it removes its
// temporary cache and blob store.
func stopServer(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func freeAddr(t *testing.T) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

func waitServing(t *testing.T, conn *grpc.ClientConn, start time.Time) time.Duration {
	h := healthpb.NewHealthClient(conn)
	for time.Since(start) < 5*time.Minute {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: "Registry"})
		cancel()
		if err == nil && r.Status == healthpb.HealthCheckResponse_SERVING {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("server not SERVING after 5 minutes")
	return 0
}

func listBundles(ctx context.Context, reg api.RegistryClient) ([]*api.Bundle, error) {
	s, err := reg.ListBundles(ctx, &api.ListBundlesRequest{})
	if err != nil {
		return nil, err
	}
	var out []*api.Bundle
	for {
		b, err := s.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, &api.Bundle{CsvName: b.CsvName, PackageName: b.PackageName, ChannelName: b.ChannelName})
	}
}

type sample struct {
	method string
	d      time.Duration
	err    error
}

// loadPhase runs clients that each loop over a random mix: 80% GetBundle, 19% GetPackage, 1%
// ListBundles (each client on its own connection, as separate OLM pods would be).
func loadPhase(t *testing.T, addr string, rows []*api.Bundle, clients int, d time.Duration) {
	var mu sync.Mutex
	var samples []sample
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
			if err != nil {
				mu.Lock()
				samples = append(samples, sample{"dial", 0, err})
				mu.Unlock()
				return
			}
			defer conn.Close()
			reg := api.NewRegistryClient(conn)
			r := rand.New(rand.NewSource(seed))
			var local []sample
			for time.Now().Before(deadline) {
				row := rows[r.Intn(len(rows))]
				ctx := context.Background()
				begin := time.Now()
				var method string
				var err error
				switch p := r.Intn(100); {
				case p < 80:
					method = "GetBundle"
					_, err = reg.GetBundle(ctx, &api.GetBundleRequest{PkgName: row.PackageName, ChannelName: row.ChannelName, CsvName: row.CsvName})
				case p < 99:
					method = "GetPackage"
					_, err = reg.GetPackage(ctx, &api.GetPackageRequest{Name: row.PackageName})
				default:
					method = "ListBundles"
					_, err = listBundles(ctx, reg)
				}
				local = append(local, sample{method, time.Since(begin), err})
			}
			mu.Lock()
			samples = append(samples, local...)
			mu.Unlock()
		}(int64(c))
	}
	wg.Wait()
	byMethod := map[string][]time.Duration{}
	errs := 0
	for _, s := range samples {
		if s.err != nil {
			if errs < 5 {
				t.Errorf("%s failed under load: %v", s.method, s.err)
			}
			errs++
			continue
		}
		byMethod[s.method] = append(byMethod[s.method], s.d)
		byMethod["all"] = append(byMethod["all"], s.d)
	}
	t.Logf("load: %d clients for %v: %d calls (%.0f/s), %d errors", clients, d, len(samples), float64(len(samples))/d.Seconds(), errs)
	for _, m := range []string{"all", "GetBundle", "GetPackage", "ListBundles"} {
		ds := byMethod[m]
		if len(ds) == 0 {
			continue
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("  %-11s n=%-7d p50=%-10v p99=%v", m, len(ds), ds[len(ds)/2].Round(time.Microsecond), ds[len(ds)*99/100].Round(time.Microsecond))
	}
}

// peakRSS is the server's peak RSS as make bench prints it.
func peakRSS(pid int) string {
	kb, err := procstat.PeakRSSKB(pid)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return fmt.Sprintf("%d kB", kb)
}
