package compat

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/sqlite"
)

// selfSigned makes a certificate for 127.0.0.1 and writes it as a PEM CA file.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "compat test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caFile
}

func TestDialTLS(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-foo-index-v0.2.0")
	q, err := sqlite.NewQuerier(filepath.Join(dir, "input.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	cert, caFile := selfSigned(t)
	gs := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&cert)))
	api.RegisterRegistryServer(gs, grpccompat.NewRegistry(q))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis)
	defer gs.Stop()
	addr := "grpc://" + lis.Addr().String()
	for _, tc := range []struct {
		name string
		o    DialOptions
		want string // "" = connects
	}{
		{"ca file", DialOptions{CAFile: caFile}, ""},
		{"insecure", DialOptions{Insecure: true}, ""},
		{"system roots", DialOptions{TLS: true}, "--ca-file"},
		{"plaintext", DialOptions{}, "--tls"},
		{"ca file without certificates", DialOptions{CAFile: filepath.Join(dir, "CASE.json")}, "holds no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Timeout = 5 * time.Second
			tg, err := Dial(t.Context(), addr, tc.o)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				defer tg.Close()
				if tg.Kind() != KindSQLite {
					t.Errorf("kind %s", tg.Kind())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Dial = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
