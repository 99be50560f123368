//go:build linux

package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// floodChildEnv makes the test binary serve fixtures/catalog with 1,024 file descriptors instead
// of running tests (see TestDescriptorFloodChild).
const floodChildEnv = "OLMCAT_TEST_FLOOD_CHILD"

// TestDescriptorFloodChild is the server of TestDescriptorFlood, in a process of its own so that
// its descriptor limit is a container's (1024:1024): it prints its gRPC and HTTP addresses once
// it serves, and stops when its stdin closes.
func TestDescriptorFloodChild(t *testing.T) {
	if os.Getenv(floodChildEnv) == "" {
		t.Skip("the server process of TestDescriptorFlood")
	}
	lim := syscall.Rlimit{Cur: 1024, Max: 1024}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	httpAddr := make(chan net.Addr, 1)
	err := Run(ctx, Options{Path: "../../fixtures/catalog", Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DrainTimeout: time.Second,
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, nil)),
		HTTPReady: func(a net.Addr) { httpAddr <- a },
		Ready:     func(a net.Addr) { fmt.Printf("ready %s %s\n", a, <-httpAddr) },
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDescriptorFlood is issue 29.3: a server with 1,024 descriptors and 3,000 idle TCP connections
// on its gRPC port (and 1,000 on its HTTP port) still answers a fresh gRPC client, health and
// /readyz within a second. Before, every accept failed with EMFILE until the flood closed.
func TestDescriptorFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 4,000 connections")
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < 5000 {
		t.Skipf("this process may open %d files; the flood needs 5,000", lim.Cur)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDescriptorFloodChild$", "-test.v")
	cmd.Env = append(os.Environ(), floodChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	var grpcAddr, httpAddr string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if _, err := fmt.Sscanf(lines.Text(), "ready %s %s", &grpcAddr, &httpAddr); err == nil {
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if grpcAddr == "" {
		t.Fatalf("the server did not start: %s", stderr.String())
	}

	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for _, f := range []struct {
		addr string
		n    int
	}{{grpcAddr, 3000}, {httpAddr, 1000}} {
		for range f.n {
			c, err := net.DialTimeout("tcp", f.addr, 5*time.Second)
			if err != nil {
				t.Fatalf("flood connection %d: %v", len(flood), err)
			}
			flood = append(flood, c)
		}
	}

	// The fresh client's calls get a second (the time the issue asks for) each.
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if p, err := api.NewRegistryClient(conn).GetPackage(ctx, &api.GetPackageRequest{Name: "operator-000"}); err != nil || p.GetName() != "operator-000" {
		t.Errorf("a fresh gRPC call beside the flood: %v, %v", p, err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health beside the flood: %v, %v", h, err)
	}
	client := &http.Client{Timeout: time.Second}
	resp, err := client.Get("http://" + httpAddr + "/readyz")
	if err != nil {
		t.Fatalf("/readyz beside the flood: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz beside the flood: %s", resp.Status)
	}
	resp, err = client.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatalf("/metrics beside the flood: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`olmcat_connections_shed_total{listener="grpc",reason="evicted"}`, `olmcat_connections_shed_total{listener="http",reason="evicted"}`} {
		i := strings.Index(string(body), want+" ")
		if i < 0 || strings.HasPrefix(string(body[i+len(want)+1:]), "0\n") {
			t.Errorf("/metrics does not count the connections shed: %s is absent or 0", want)
		}
	}
}
