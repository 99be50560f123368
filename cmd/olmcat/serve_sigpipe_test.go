package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer a process writes to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Clients that hang up while `olmcat serve` writes to them make the kernel raise SIGPIPE in the
// server (a write to a socket whose peer has closed). Only a broken standard output or error is a
// reason to stop: olmcat used to take every SIGPIPE for one and shut the server down.
func TestClientsHangingUpDoNotStopServe(t *testing.T) {
	catalog := corpus(t, "fbc/community-v4.20-csvmetadata-subset/catalog")
	httpAddr := freeAddr(t)
	serve := olmcatProcess(t, t.TempDir(), "serve", catalog, "-p", freeAddr(t), "--http-addr", httpAddr)
	var stderr lockedBuffer
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
	}()
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "serving catalogd HTTP API"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not serving after 60s:\n%s", stderr.String())
		}
	}
	// Each asks for the whole catalog (megabytes) and closes at once: the server's first write
	// draws a reset, the next one fails with EPIPE.
	for range 50 {
		c, err := net.Dial("tcp", httpAddr)
		if err != nil {
			t.Fatalf("the server stopped accepting connections: %v\n%s", err, stderr.String())
		}
		fmt.Fprint(c, "GET /api/v1/all HTTP/1.1\r\nHost: olmcat\r\n\r\n")
		c.Close()
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := http.Get("http://" + httpAddr + "/readyz")
	if err != nil {
		t.Fatalf("after clients hung up the server no longer answers: %v\n%s", err, stderr.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("after clients hung up: /readyz %d; stderr:\n%s", resp.StatusCode, stderr.String())
	}
}
