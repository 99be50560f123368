package serve

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/certtest"
)

// tlsGet fetches url on a new connection, trusting only pool, and returns the body and the
// certificate the server presented.
func tlsGet(t *testing.T, url string, pool *x509.CertPool) ([]byte, *x509.Certificate, error) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:    &tls.Config{RootCAs: pool},
		DisableKeepAlives:  true,
		DisableCompression: true,
		ForceAttemptHTTP2:  true, // offered; the server answers HTTP/1.1 only, as catalogd
	}}
	resp, err := client.Get(url)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if resp.ProtoMajor != 1 || resp.TLS.NegotiatedProtocol != "http/1.1" {
		t.Errorf("GET %s: %s, ALPN %q; want HTTP/1.1 only", url, resp.Proto, resp.TLS.NegotiatedProtocol)
	}
	return body, resp.TLS.PeerCertificates[0], nil
}

// HTTPS: a client that trusts the certificate gets the bytes plain HTTP serves, /metrics too (on
// the HTTP address and on --metrics-addr); a renewed certificate is served from the next
// handshake on, without a restart; a renewal that does not load keeps the previous certificate.
func TestHTTPS(t *testing.T) {
	catalog := needCorpus(t, "sqlite/kube-green-replaces/input.db")
	dir := t.TempDir()
	first := certtest.New(t, "first")
	certFile, keyFile := certtest.Install(t, dir, first.CertPEM, first.KeyPEM)

	plainBase, _, stopPlain := runHTTP(t, Options{Path: catalog})
	want := getBody(t, plainBase+"/api/v1/all")
	if err := stopPlain(); err != nil {
		t.Fatal(err)
	}

	var logs syncBuffer
	var metricsAddr string
	base, _, stop := runHTTP(t, Options{Path: catalog, HTTPTLSCert: certFile, HTTPTLSKey: keyFile,
		MetricsAddr: "127.0.0.1:0", MetricsReady: func(a net.Addr) { metricsAddr = a.String() },
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer stop()
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("base %s", base)
	}
	got, served, err := tlsGet(t, base+"/api/v1/all", first.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(want)) || len(want) == 0 {
		t.Errorf("/api/v1/all over HTTPS: %d bytes, over HTTP %d, not the same", len(got), len(want))
	}
	if !served.Equal(first.Leaf) {
		t.Errorf("served %s, want the first certificate", served.Subject)
	}
	for _, u := range []string{base + "/metrics", "https://" + metricsAddr + "/metrics"} {
		if body, _, err := tlsGet(t, u, first.Pool); err != nil || !strings.Contains(string(body), "olmcat_build_info") {
			t.Errorf("GET %s: %v, %.100q", u, err, body)
		}
	}
	if resp, err := plainClient.Get("http://" + strings.TrimPrefix(base, "https://") + "/api/v1/all"); err != nil {
		t.Errorf("plain HTTP to the HTTPS port: %v, want a 400 answer", err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the HTTPS port: %s, want 400", resp.Status)
		}
	}

	second := certtest.New(t, "second")
	certtest.Install(t, dir, second.CertPEM, second.KeyPEM)
	if _, served, err = tlsGet(t, base+"/readyz", second.Pool); err != nil {
		t.Fatalf("after renewal: %v", err)
	}
	if !served.Equal(second.Leaf) {
		t.Errorf("after renewal: served %s, want the second certificate", served.Subject)
	}
	if _, _, err := tlsGet(t, base+"/readyz", first.Pool); err == nil {
		t.Error("after renewal, a client that trusts only the first certificate still connects")
	}
	if !strings.Contains(logs.String(), "reloaded the TLS certificate") {
		t.Errorf("no reload logged:\n%s", logs.String())
	}

	// A half-done renewal (a new certificate, the old key) is refused; the second pair stays.
	third := certtest.New(t, "third")
	certtest.Install(t, dir, third.CertPEM, second.KeyPEM)
	for range 2 {
		if _, served, err = tlsGet(t, base+"/readyz", second.Pool); err != nil || !served.Equal(second.Leaf) {
			t.Fatalf("after a mismatched renewal: %v, %v; want the second certificate still", err, served)
		}
	}
	if n := strings.Count(logs.String(), "cannot reload the TLS certificate"); n != 1 || !strings.Contains(logs.String(), keyFile) {
		t.Errorf("the failed reload logged %d times, want once naming %s:\n%s", n, keyFile, logs.String())
	}
	certtest.Install(t, dir, third.CertPEM, third.KeyPEM)
	if _, served, err = tlsGet(t, base+"/readyz", third.Pool); err != nil || !served.Equal(third.Leaf) {
		t.Fatalf("after the renewal completed: %v", err)
	}

	// The metrics count the three pairs read and the one refused, and say when the served one expires.
	body, _, err := tlsGet(t, "https://"+metricsAddr+"/metrics", third.Pool)
	if err != nil {
		t.Fatal(err)
	}
	families := parseMetrics(t, metricsAddr, bytes.NewReader(body))
	lint(t, "HTTPS", families)
	expectValue(t, families, "HTTPS", "olmcat_tls_certificate_reads_total", nil, 3)
	expectValue(t, families, "HTTPS", "olmcat_tls_certificate_read_errors_total", nil, 1)
	expectValue(t, families, "HTTPS", "olmcat_tls_certificate_expiry_timestamp_seconds", nil, float64(third.Leaf.NotAfter.Unix()))
}

// A pair that cannot serve HTTPS stops the start with an error naming the file at fault, before
// anything listens or loads.
func TestHTTPSBadKeyPair(t *testing.T) {
	catalog := needCorpus(t, "sqlite/kube-green-replaces/input.db")
	dir := t.TempDir()
	a, b := certtest.New(t, "a"), certtest.New(t, "b")
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certA, keyA, keyB := write("a.crt", a.CertPEM), write("a.key", a.KeyPEM), write("b.key", b.KeyPEM)
	garbage := write("garbage.pem", []byte("not a certificate\n"))
	missing := filepath.Join(dir, "missing.key")
	for _, c := range []struct {
		name, cert, key, fault, says string
	}{
		{"mismatched", certA, keyB, keyB, "does not match the certificate"},
		{"key is a certificate", certA, certA, certA, "TLS key"},
		{"cert is garbage", garbage, keyA, garbage, "no PEM CERTIFICATE"},
		{"cert is a key", keyA, keyA, keyA, "TLS certificate"},
		{"key missing", certA, missing, missing, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Run(context.Background(), Options{Path: catalog, Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0",
				HTTPTLSCert: c.cert, HTTPTLSKey: c.key})
			var tlsErr *TLSError
			if !errors.As(err, &tlsErr) || tlsErr.File != c.fault || !strings.Contains(err.Error(), c.fault) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("want a TLSError naming %s and saying %q, got %v", c.fault, c.says, err)
			}
		})
	}
}

// A Kubernetes secret volume renews its files as the kubelet writes them: a new timestamped
// directory, then the ..data symlink swapped to it by a rename; tls.crt and tls.key are symlinks
// through ..data and never change themselves.
func TestHTTPSSecretVolume(t *testing.T) {
	dir := t.TempDir()
	version := func(name string, c certtest.Cert) {
		t.Helper()
		certtest.Install(t, filepath.Join(dir, name), c.CertPEM, c.KeyPEM)
		if err := os.Symlink(name, filepath.Join(dir, "..data_tmp")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	first, second := certtest.New(t, "first"), certtest.New(t, "second")
	for _, d := range []string{"..2026_11_27_first", "..2026_11_27_second"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	version("..2026_11_27_first", first)
	for _, f := range []string{"tls.crt", "tls.key"} {
		if err := os.Symlink(filepath.Join("..data", f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	base, _, stop := runHTTP(t, Options{Path: needCorpus(t, "sqlite/kube-green-replaces/input.db"), HTTPOnly: true,
		HTTPTLSCert: filepath.Join(dir, "tls.crt"), HTTPTLSKey: filepath.Join(dir, "tls.key")})
	defer stop()
	if _, served, err := tlsGet(t, base+"/livez", first.Pool); err != nil || !served.Equal(first.Leaf) {
		t.Fatalf("first certificate: %v", err)
	}
	version("..2026_11_27_second", second)
	if err := os.RemoveAll(filepath.Join(dir, "..2026_11_27_first")); err != nil {
		t.Fatal(err)
	}
	if _, served, err := tlsGet(t, base+"/livez", second.Pool); err != nil || !served.Equal(second.Leaf) {
		t.Fatalf("after the secret was updated: %v", err)
	}
}
