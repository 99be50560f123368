package grpccompat

import (
	"context"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/peer"
)

// A crowd of calls that is gone gives memory back (a full collection): a client that opens and
// drops crowds in a loop gets that at most once per interval, and the last crowd's memory is
// still given back once the interval has passed.
func TestCrowdsGiveMemoryBackAtMostOncePerInterval(t *testing.T) {
	var frees atomic.Int32
	l := &callLimit{max: 1000, log: slog.New(slog.DiscardHandler), freeMemory: func() { frees.Add(1) }, freeEvery: time.Second}
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242}})
	const crowds = 20
	for range crowds {
		var leaves []func()
		for range crowd {
			leave, err := l.enter(ctx, "/api.Registry/ListBundles")
			if err != nil {
				t.Fatal(err)
			}
			leaves = append(leaves, leave)
		}
		for _, leave := range leaves {
			leave()
		}
	}
	waitFrees := func(n int32) bool {
		for range 500 {
			if frees.Load() >= n {
				return true
			}
			time.Sleep(20 * time.Millisecond)
		}
		return false
	}
	if !waitFrees(2) {
		t.Fatalf("%d crowds: memory given back %d times, want once at once and once after the interval", crowds, frees.Load())
	}
	if n := frees.Load(); n != 2 {
		t.Errorf("%d crowds within the interval: memory given back %d times, want 2", crowds, n)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open != 0 || l.shared != 0 || len(l.perConn) != 0 {
		t.Errorf("after every call left: open %d, shared %d, %d connections tracked", l.open, l.shared, len(l.perConn))
	}
}
