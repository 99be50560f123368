package compat

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

// DialOptions configure a live target.
type DialOptions struct {
	// TLS connects with TLS, verifying the server against the system roots (or CAFile).
	TLS bool
	// Insecure connects with TLS without verifying the server's certificate.
	Insecure bool
	// CAFile is a PEM file of CA certificates to verify the server with; implies TLS.
	CAFile string
	// Timeout bounds the reachability probe made by Dial (default 10 s).
	Timeout time.Duration
}

// IsAddress reports whether s names a live server: grpc://host:port or grpcs://host:port.
func IsAddress(s string) bool {
	return strings.HasPrefix(s, "grpc://") || strings.HasPrefix(s, "grpcs://")
}

type liveTarget struct {
	addr string
	kind Kind
	conn *grpc.ClientConn
}

// Dial connects to a live api.Registry server at addr (grpc://host:port; grpcs:// means TLS) and
// probes it with one GetPackage call, so an unreachable address, a server that does not serve
// api.Registry, or a bad TLS setup is reported now, clearly, rather than as thousands of failed
// calls. The probe's answer also tells the kind of server (opm's two servers word their
// not-found messages differently).
func Dial(ctx context.Context, addr string, o DialOptions) (Target, error) {
	hostport, useTLS, err := parseAddress(addr)
	if err != nil {
		return nil, err
	}
	creds := insecure.NewCredentials()
	if useTLS || o.TLS || o.Insecure || o.CAFile != "" {
		cfg, err := tlsConfig(o)
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(cfg)
	}
	conn, err := grpc.NewClient("passthrough:///"+hostport,
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxAnswerSize)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	t := &liveTarget{addr: addr, conn: conn}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := t.Invoke(pctx, probeCall())
	if err == nil {
		err = probeError(addr, ans, timeout)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	t.kind = kindFromProbe(ans)
	return t, nil
}

func parseAddress(addr string) (hostport string, useTLS bool, err error) {
	u, err := url.Parse(addr)
	if err != nil || (u.Scheme != "grpc" && u.Scheme != "grpcs") || u.Host == "" {
		return "", false, fmt.Errorf("%q is not a server address: write grpc://HOST:PORT (or grpcs://HOST:PORT for TLS)", addr)
	}
	if u.Path != "" && u.Path != "/" {
		return "", false, fmt.Errorf("%q: a server address has no path (write grpc://HOST:PORT)", addr)
	}
	if _, port, err := net.SplitHostPort(u.Host); err != nil || port == "" {
		return "", false, fmt.Errorf("%q: the address needs a port (grpc://HOST:PORT; opm serves on 50051)", addr)
	}
	return u.Host, u.Scheme == "grpcs", nil
}

func tlsConfig(o DialOptions) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.Insecure}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// probeCall is a lookup every api.Registry server answers with a not-found error.
func probeCall() *Call {
	return &Call{ID: "probe", Method: GetPackage, Request: []byte(`{"name":"no-such-package"}`)}
}

func probeError(addr string, a *Answer, timeout time.Duration) error {
	switch a.Code {
	case codes.OK, codes.Unknown, codes.NotFound:
		return nil
	case codes.Unimplemented:
		return fmt.Errorf("%s does not serve api.Registry (%s): is it an OLM catalog server?", addr, a.Message)
	case codes.DeadlineExceeded:
		return fmt.Errorf("%s did not answer within %s", addr, timeout)
	case codes.Unavailable:
		hint := ""
		switch {
		case strings.Contains(a.Message, "x509") || strings.Contains(a.Message, "tls:"):
			hint = " (TLS: give the server's CA with --ca-file, or --insecure to skip verification)"
		case strings.Contains(a.Message, "server preface") || strings.Contains(a.Message, "EOF"):
			hint = " (does it expect TLS? try --tls or grpcs://)"
		}
		return fmt.Errorf("cannot reach %s: %s%s", addr, a.Message, hint)
	}
	return fmt.Errorf("%s answered a GetPackage probe with %s: %s", addr, a.Code, a.Message)
}

// kindFromProbe tells the server kind by how it words "package not found": opm registry serve
// writes the name bare, opm serve quotes it.
func kindFromProbe(a *Answer) Kind {
	switch a.Message {
	case "package no-such-package not found":
		return KindSQLite
	case `package "no-such-package" not found`:
		return KindFBC
	}
	return KindUnknown
}

func (t *liveTarget) String() string { return t.addr }
func (t *liveTarget) Kind() Kind     { return t.kind }
func (t *liveTarget) Close() error   { return t.conn.Close() }

func (t *liveTarget) Invoke(ctx context.Context, c *Call) (*Answer, error) {
	return invokeConn(ctx, t.conn, c, nil)
}

func (t *liveTarget) invokeStream(ctx context.Context, c *Call, each func(proto.Message)) (*Answer, error) {
	return invokeConn(ctx, t.conn, c, each)
}
