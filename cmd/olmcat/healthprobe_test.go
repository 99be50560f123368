package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/internal/source"
)

// health-probe answers as grpc_health_probe does: exit 4 while the catalog loads (NOT_SERVING),
// 0 once it is served, 2 when nothing listens, 1 without -addr.
func TestHealthProbeExitCodes(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpccompat.NewServer(grpccompat.ServerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis, time.Second) }()
	defer func() { cancel(); <-done }()
	addr := lis.Addr().String()
	probe := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := healthProbe(args, &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := probe("-addr=" + addr); code != probeNotServing {
		t.Errorf("while loading: exit %d, %s", code, out)
	}
	src, err := source.Open(ctx, filepath.Join(corpus(t, "sqlite/real-foo-index-v0.2.0"), "input.db"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	b, err := src.Backend(ctx, source.BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	srv.SetBackend(b)
	if code, out := probe("-addr", addr, "-rpc-timeout=5s"); code != probeServing {
		t.Errorf("serving: exit %d, %s", code, out)
	}
	if code, out, _ := runCLI(t, "health-probe", "-addr="+addr); code != probeServing || out == "" {
		t.Errorf("olmcat health-probe: exit %d, %q", code, out)
	}
	if code, out := probe("-addr=" + freeAddr(t)); code != probeConnFailure {
		t.Errorf("nothing listening: exit %d, %s", code, out)
	}
	if code, out := probe(); code != probeInvalidArgs {
		t.Errorf("no -addr: exit %d, %s", code, out)
	}
}
