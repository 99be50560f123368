package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/certtest"
)

// The HTTP flags' usage errors exit 2 before anything is served; an HTTP port in use too.
func TestServeHTTPFlags(t *testing.T) {
	db := conformance + "/sqlite/kube-green-replaces/input.db"
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	dir := t.TempDir()
	a, b := certtest.New(t, "a"), certtest.New(t, "b")
	certA, keyB := filepath.Join(dir, "a.crt"), filepath.Join(dir, "b.key")
	if err := os.WriteFile(certA, a.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyB, b.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", db, "--http-addr", "127.0.0.1:0", "--http-tls-cert", certA}, "--http-tls-cert and --http-tls-key go together"},
		{[]string{"serve", db, "-p", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "-t", "", "--http-tls-cert", certA, "--http-tls-key", keyB},
			"TLS key " + keyB + " does not match the certificate " + certA},
		{[]string{"serve", db, "-p", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "-t", "", "--http-tls-cert", keyB, "--http-tls-key", keyB},
			"TLS certificate " + keyB + ": no PEM CERTIFICATE block"},
		{[]string{"serve", db, "--grpc=false"}, "--grpc=false serves nothing without --http-addr"},
		{[]string{"serve", db, "--http-addr", "127.0.0.1:0", "--http-catalog-name", "Not_A_Name"}, "--http-catalog-name"},
		{[]string{"serve", db, "-p", "127.0.0.1:0", "--http-addr", lis.Addr().String(), "-t", ""}, "cannot listen on " + lis.Addr().String()},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("olmcat %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// compat --http: the same catalog on both sides is equal (exit 0), with the gRPC-only flags refused.
func TestCompatHTTP(t *testing.T) {
	db := conformance + "/sqlite/kube-green-replaces/input.db"
	if code, out, stderr := runCLI(t, "compat", "--http", db, conformance+"/sqlite/kube-green-replaces/input.db", "-o", "json"); code != 0 || !strings.Contains(out, `"verdict": "equal"`) {
		t.Errorf("compat --http of one catalog with itself: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "compat", "--http", "--sample", "3", db, db); code != 2 || !strings.Contains(stderr, "--sample") {
		t.Errorf("compat --http --sample: exit %d, %q", code, stderr)
	}
}
