package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/grpccompat/replay"
)

// An index image's entrypoint can swap opm for olmcat: started with the exact command lines the
// conformance corpus recorded opm's answers with (olmcat in opm's place), each server reaches
// health SERVING and answers every recorded call as opm did.
func TestEntrypointSwap(t *testing.T) {
	root := corpus(t, "")
	type server struct {
		name    string
		args    func(tmp, port string) []string
		answers string
	}
	var servers []server
	dbs, _ := filepath.Glob(filepath.Join(root, "sqlite", "*", "input.db"))
	for _, db := range dbs {
		caseDir := filepath.Dir(db)
		if filepath.Base(caseDir) == "real-indexer-testdata-schema5" {
			continue // opm listed its properties in Go map order: compared unordered by the sqlite package's replay
		}
		servers = append(servers, server{"registry serve " + filepath.Base(caseDir), func(tmp, port string) []string {
			copied := filepath.Join(tmp, "input.db")
			copyFile(t, db, copied)
			// opm-v1.72 registry serve --database <tmp>/input.db -p <port> -t <tmp>/termination-log
			return []string{"registry", "serve", "--database", copied, "-p", port, "-t", filepath.Join(tmp, "termination-log")}
		}, filepath.Join(caseDir, "grpc")})
	}
	catalogs, _ := filepath.Glob(filepath.Join(root, "fbc", "*", "catalog"))
	for _, cat := range catalogs {
		caseDir := filepath.Dir(cat)
		servers = append(servers, server{"serve " + filepath.Base(caseDir), func(tmp, port string) []string {
			// opm-v1.73 serve <catalog-dir> -p <port> --pprof-addr= --cache-dir <tmp>/cache
			//   --cache-enforce-integrity=false -t <tmp>/termination-log
			return []string{"serve", cat, "-p", port, "--pprof-addr=", "--cache-dir", filepath.Join(tmp, "cache"),
				"--cache-enforce-integrity=false", "-t", filepath.Join(tmp, "termination-log")}
		}, filepath.Join(caseDir, "grpc")})
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			tmp := t.TempDir()
			addr := freeAddr(t)
			_, port, _ := strings.Cut(addr, ":")
			cmd := olmcatProcess(t, tmp, s.args(tmp, port)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Signal(syscall.SIGTERM)
				if err := cmd.Wait(); err != nil {
					t.Errorf("after SIGTERM: %v\n%s", err, stderr.String())
				}
			}()
			conn := waitServing(t, "127.0.0.1:"+port, &stderr)
			defer conn.Close()
			replay.RunConn(t, conn, s.answers, replay.Options{})
		})
	}
}

// waitServing connects to addr and waits until gRPC health reports SERVING, as OLM's probe does.
func waitServing(t *testing.T, addr string, stderr *bytes.Buffer) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		t.Fatal(err)
	}
	health := healthpb.NewHealthClient(conn)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && r.Status == healthpb.HealthCheckResponse_SERVING {
			return conn
		}
		if time.Now().After(deadline) {
			conn.Close()
			t.Fatalf("not SERVING after 60 s (%v):\n%s", err, stderr.String())
		}
	}
}
