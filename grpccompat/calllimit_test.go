package grpccompat

import (
	"context"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// A crowd of calls that is gone gives memory back (a full collection): a client that opens and
// drops crowds in a loop gets that at most once per interval, and crowds that end while memory is
// being given back get it once more, an interval later. The give-back is held running while the
// other crowds end, so the order does not depend on how fast the machine is.
func TestCrowdsGiveMemoryBackAtMostOncePerInterval(t *testing.T) {
	var frees atomic.Int32
	running, release := make(chan struct{}, 1), make(chan struct{})
	free := func() {
		if frees.Add(1) == 1 {
			running <- struct{}{}
			<-release
		}
	}
	l := &callLimit{max: 1000, log: slog.New(slog.DiscardHandler), freeMemory: free, freeEvery: 50 * time.Millisecond}
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242}})
	oneCrowd := func() {
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
	oneCrowd()
	select {
	case <-running:
	case <-time.After(30 * time.Second):
		t.Fatal("the first crowd gave no memory back")
	}
	const crowds = 20
	for range crowds - 1 {
		oneCrowd() // while the first give-back runs
	}
	close(release)
	waitFrees := func(n int32) bool {
		for range 1500 {
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
	time.Sleep(4 * l.freeEvery) // room for a wrong third
	if n := frees.Load(); n != 2 {
		t.Errorf("%d crowds: memory given back %d times, want 2", crowds, n)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open != 0 || l.shared != 0 || l.reserved != 0 || len(l.perConn) != 0 || l.freePending {
		t.Errorf("after every call left: open %d, shared %d, reserved %d, %d connections tracked, pending %v", l.open, l.shared, l.reserved, len(l.perConn), l.freePending)
	}
}

// Opening many connections cannot multiply the limit: each connection's first calls are admitted
// beyond it only while fewer than max such calls are open on all connections, so at most 2*max
// calls are open however many connections a client opens; once calls leave, a fresh connection
// is served again, and health Check is always admitted.
func TestCallLimitReserveIsBoundedAcrossConnections(t *testing.T) {
	const limit, conns = 10, 100
	l := &callLimit{max: limit, log: slog.New(slog.DiscardHandler), freeMemory: func() {}, freeEvery: time.Hour}
	from := func(port int) context.Context {
		return peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}})
	}
	var leaves []func()
	refused := 0
	for c := range conns {
		for range reservedPerConnection {
			leave, err := l.enter(from(10000+c), "/api.Registry/ListBundles")
			if err != nil {
				if status.Code(err) != codes.ResourceExhausted {
					t.Fatalf("refused with %v, want ResourceExhausted", err)
				}
				refused++
				continue
			}
			leaves = append(leaves, leave)
		}
	}
	if len(leaves) != 2*limit || refused != conns*reservedPerConnection-2*limit {
		t.Errorf("%d connections of %d calls each: %d admitted, %d refused; want %d admitted", conns, reservedPerConnection, len(leaves), refused, 2*limit)
	}
	fresh := from(9999)
	if _, err := l.enter(fresh, "/api.Registry/ListPackages"); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("a fresh connection beside %d open calls: %v, want ResourceExhausted", len(leaves), err)
	}
	if _, err := l.enter(fresh, "/grpc.health.v1.Health/Watch"); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("a health Watch beside %d open calls: %v, want ResourceExhausted", len(leaves), err)
	}
	if _, err := l.enter(fresh, "/grpc.health.v1.Health/Check"); err != nil {
		t.Errorf("a health Check beside %d open calls: %v, want admitted", len(leaves), err)
	}
	leaves[0]()
	leave, err := l.enter(fresh, "/api.Registry/ListPackages")
	if err != nil {
		t.Errorf("a fresh connection once a call left: %v, want admitted", err)
	} else {
		leave()
	}
	for _, leave := range leaves[1:] {
		leave()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open != 0 || l.shared != 0 || l.reserved != 0 || len(l.perConn) != 0 {
		t.Errorf("after every call left: open %d, shared %d, reserved %d, %d connections tracked", l.open, l.shared, l.reserved, len(l.perConn))
	}
}
