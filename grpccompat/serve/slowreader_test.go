package serve

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Clients that open ListBundles and then stop reading must not starve anyone: a new ListBundles and
// lookups still answer at once, for both backends. (The index.db backend once held a database
// connection for each open stream; a few stalled readers used them all up.)
func TestSlowReadersDoNotStarveOthers(t *testing.T) {
	for _, path := range []string{
		needCorpus(t, "sqlite/synthetic-20x10/input.db"),
		needCorpus(t, "sqlite/synthetic-20x10/migrate"),
	} {
		t.Run(path, func(t *testing.T) {
			addr, stop := runUntilReady(t, Options{Path: path})
			defer stop()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const stalled = 16
			for range stalled {
				// One connection per reader: a stalled stream fills its own flow-control window.
				conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				stream, err := api.NewRegistryClient(conn).ListBundles(ctx, &api.ListBundlesRequest{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := stream.Recv(); err != nil {
					t.Fatal(err)
				}
				// ... and never read again.
			}
			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			client := api.NewRegistryClient(conn)
			callCtx, callCancel := context.WithTimeout(ctx, 10*time.Second)
			defer callCancel()
			start := time.Now()
			stream, err := client.ListBundles(callCtx, &api.ListBundlesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				if _, err := stream.Recv(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("ListBundles beside %d stalled readers: %v after %d bundles and %v", stalled, err, n, time.Since(start))
				}
				n++
			}
			if n < 700 {
				t.Fatalf("only %d bundles", n)
			}
			if _, err := client.GetPackage(callCtx, &api.GetPackageRequest{Name: "pkg0000-operator"}); err != nil {
				t.Errorf("GetPackage beside stalled readers: %v", err)
			}
			t.Logf("ListBundles of %d bundles beside %d stalled readers took %v", n, stalled, time.Since(start))
		})
	}
}
