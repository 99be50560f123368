package httpapi

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// A 32 MB answer in flight when the server stops (more than loopback buffers hold) is answered in
// full; new connections are refused, and Serve returns nil.
func TestServeDrains(t *testing.T) {
	st := testStore(t, 16<<20)
	s := NewServer(Options{})
	s.SetStore(st)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, lis, 10*time.Second) }()
	url := "http://" + lis.Addr().String() + "/api/v1/all"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
	if _, err := http.Get(url); err == nil {
		t.Error("a new request was answered while draining")
	}
	rest, err := io.ReadAll(resp.Body)
	want, _ := io.ReadAll(st.All())
	if err != nil || !bytes.Equal(append(first, rest...), want) {
		t.Fatalf("in-flight answer cut: %d of %d bytes, %v", 1+len(rest), len(want), err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// A catalog that finishes loading after the server began to drain (SIGTERM during a long load)
// does not make /readyz report SERVING again, as gRPC health does not after its Shutdown.
func TestStoreAfterDrainStaysNotReady(t *testing.T) {
	s := NewServer(Options{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Serve(ctx, lis, time.Second); err != nil {
		t.Fatal(err)
	}
	s.SetStore(testStore(t, 10))
	for _, path := range []string{"/readyz", "/healthz"} {
		if w := do(t, s.Handler(), http.MethodGet, path); w.Code != http.StatusServiceUnavailable {
			t.Errorf("GET %s after the drain began and the catalog then loaded: %d, want 503", path, w.Code)
		}
	}
}
