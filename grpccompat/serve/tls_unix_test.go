//go:build unix

package serve

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olmcat/olmcat/internal/certtest"
)

// Issue 27.1: a certificate or key swapped for /dev/zero grew the server to 14 GB, and a FIFO hung
// the handshake that read it and every later one while health said SERVING. Now a FIFO, a device
// or a file over 1 MiB is refused at start with an error naming it, and at a reload the previous
// pair keeps being served, the failure logged once.
func TestHTTPSHostileCertificateFiles(t *testing.T) {
	catalog := needCorpus(t, "sqlite/kube-green-replaces/input.db")
	dir := t.TempDir()
	good := certtest.New(t, "good")
	certFile, keyFile := certtest.Install(t, dir, good.CertPEM, good.KeyPEM)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.key")
	if err := os.WriteFile(big, append(good.KeyPEM, make([]byte, maxPEMFileSize)...), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, cert, key, fault, says string
	}{
		{"cert is a FIFO", fifo, keyFile, fifo, "is a named pipe (FIFO), not a regular file"},
		{"cert links to /dev/zero", zero, keyFile, zero, "is a device, not a regular file"},
		{"key is a FIFO", certFile, fifo, fifo, "TLS key " + fifo + " is a named pipe"},
		{"key over 1 MiB", certFile, big, big, "more than the 1048576"},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				done <- Run(context.Background(), Options{Path: catalog, Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0",
					HTTPTLSCert: c.cert, HTTPTLSKey: c.key})
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("start blocked for a minute")
			}
			var tlsErr *TLSError
			if !errors.As(err, &tlsErr) || tlsErr.File != c.fault || !strings.Contains(err.Error(), c.says) {
				t.Errorf("want a TLSError naming %s and saying %q, got %v", c.fault, c.says, err)
			}
		})
	}

	// At a reload: the pair swapped for a FIFO, then for a link to /dev/zero. Every handshake is
	// answered at once with the good certificate; each failure is logged once; then a good pair
	// is picked up again.
	var logs syncBuffer
	base, _, stop := runHTTP(t, Options{Path: catalog, HTTPTLSCert: certFile, HTTPTLSKey: keyFile,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer stop()
	swap := func(p, with string) {
		t.Helper()
		tmp := p + ".new"
		os.Remove(tmp)
		var err error
		switch with {
		case "fifo":
			err = syscall.Mkfifo(tmp, 0o600)
		default:
			err = os.Symlink(with, tmp)
		}
		if err == nil {
			err = os.Rename(tmp, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, with := range []string{"fifo", "/dev/zero"} {
		swap(certFile, with)
		for range 3 {
			got := make(chan error, 1)
			go func() {
				_, served, err := tlsGet(t, base+"/readyz", good.Pool)
				if err == nil && !served.Equal(good.Leaf) {
					err = errors.New("served another certificate")
				}
				got <- err
			}()
			select {
			case err := <-got:
				if err != nil {
					t.Fatalf("certificate swapped for %s: %v; want the previous certificate served", with, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("certificate swapped for %s: the handshake blocked", with)
			}
		}
	}
	for _, says := range []string{"is a named pipe (FIFO)", "is a device"} {
		if n := strings.Count(logs.String(), says); n != 1 {
			t.Errorf("the reload of a certificate that %s logged %d times, want once:\n%s", says, n, logs.String())
		}
	}
	renewed := certtest.New(t, "renewed")
	certtest.Install(t, dir, renewed.CertPEM, renewed.KeyPEM)
	if _, served, err := tlsGet(t, base+"/readyz", renewed.Pool); err != nil || !served.Equal(renewed.Leaf) {
		t.Errorf("after a good pair was installed again: %v", err)
	}
}
