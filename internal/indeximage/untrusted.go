package indeximage

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// RefPolicy says which image references a file names may be pulled: the bundle images of a
// catalog template, which a pull request may change, unlike the command line. Paths on this machine
// (oci-layout:, docker-archive:) and registries on loopback, private, link-local or unspecified
// addresses, on the machine's own addresses and on the other ranges classify refuses (shared,
// benchmarking, reserved, NAT64 or 6to4 forms of a refused IPv4 address, ...) are refused unless
// allowed here, so that a template cannot make the runner read its
// files or reach the services of its network. Registry names are checked as written and again on
// every address dialed (a name that resolves to 127.0.0.1 is refused as 127.0.0.1 is), unless
// Options.Transport is set or the dial goes to the HTTP(S)_PROXY of the environment.
type RefPolicy struct {
	// AllowHosts are the registries that may be on such addresses: a host name or IP address
	// (any port), HOST:PORT, a CIDR (10.0.0.0/8, fd00::/8), or "localhost" (every loopback address).
	AllowHosts []string
	// AllowLocal allows oci-layout: and docker-archive: references.
	AllowLocal bool
	// LocalPathRefused, when set, is asked of each allowed local reference's path: a non-empty
	// answer (how the path lies against one of the command's outputs) refuses it, so that a
	// template cannot have a command read the image it is replacing.
	LocalPathRefused func(path string) string

	// transports are the policy's HTTP transports by whether TLS is verified, made once so that
	// the pulls of one run share their connections.
	mu         sync.Mutex
	transports map[bool]*http.Transport
}

// RefusedError is an image reference a RefPolicy refuses.
type RefusedError struct {
	Ref  string
	Host string // the registry as written (HOST[:PORT]); "" for a local path
	// Addr is the address that is loopback, private, link-local, unspecified or another a
	// template may not name (the host itself, or what its name resolved to); Kind says which.
	Addr, Kind string
	what       string // the kind as the message says it ("a loopback address"); "" for Kind's words
	// overlap is how a local path lies against an output of the command (LocalPathRefused).
	overlap string
}

// OverlapsOutput says whether the reference was refused for lying against an output of the
// command (RefPolicy.LocalPathRefused), not for what it may reach.
func (e *RefusedError) OverlapsOutput() bool { return e.overlap != "" }

func (e *RefusedError) Error() string {
	if e.Host == "" && e.overlap != "" {
		return e.overlap + ": a template's bundle image is read while the command writes its outputs, so it may not be, contain or lie inside one; nothing was written"
	}
	if e.Host == "" {
		return "a path on this machine, which a template may not name unless --allow-local-images is given"
	}
	what := e.what
	if what == "" {
		what = "a " + e.Kind + " address"
	}
	if e.Addr == e.Host || strings.HasPrefix(e.Host, e.Addr+":") || strings.HasPrefix(e.Host, "["+e.Addr+"]") {
		return fmt.Sprintf("%s, which a template may not name unless --allow-registry %s is given (or OLMCAT_ALLOW_REGISTRY=%s set)", what, e.Host, e.Host)
	}
	return fmt.Sprintf("%s resolves to %s, %s, which a template may not name unless --allow-registry %s is given (or OLMCAT_ALLOW_REGISTRY=%s set)", e.Host, e.Addr, what, e.Host, e.Host)
}

// ParseAllowedHost checks one RefPolicy.AllowHosts entry, for a flag's value.
func ParseAllowedHost(s string) error {
	if s == "" {
		return errors.New("want HOST, HOST:PORT, a CIDR (10.0.0.0/8) or localhost")
	}
	if strings.Contains(s, "/") {
		if _, err := netip.ParsePrefix(s); err != nil {
			return fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or fd00::/8", s)
		}
		return nil
	}
	if strings.ContainsAny(s, " @?#") {
		return fmt.Errorf("%q is not HOST or HOST:PORT", s)
	}
	return nil
}

// Check refuses ref if it is a local path and local paths are not allowed, or if it names a registry
// by a loopback, private, link-local or unspecified address, or as localhost, or by another address
// that is not the public Internet or is this machine's (see classify), that is not allowed.
// It reads nothing: a refused path is not looked at, and host names are not resolved here (the
// dialer checks what they resolve to). References it cannot parse are left to the pull.
func (p *RefPolicy) Check(ref string) error {
	if p == nil {
		return nil
	}
	if strings.HasPrefix(ref, OCILayoutPrefix) || strings.HasPrefix(ref, DockerArchivePrefix) {
		if !p.AllowLocal {
			return &RefusedError{Ref: ref}
		}
		if p.LocalPathRefused != nil {
			if local, err := parseImageRef(ref, false); err == nil && local.path != "" {
				if how := p.LocalPathRefused(local.path); how != "" {
					return &RefusedError{Ref: ref, overlap: local.path + " " + how}
				}
			}
		}
		return nil
	}
	named, err := name.ParseReference(strings.TrimPrefix(ref, RegistryPrefix))
	if err != nil {
		return nil
	}
	hostPort := named.Context().RegistryStr()
	host, port := splitHostPort(hostPort)
	if p.allowsName(host, port) {
		return nil
	}
	var addr netip.Addr
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		addr = netip.IPv6Loopback()
	} else if a, err := netip.ParseAddr(host); err == nil {
		addr = a.Unmap()
	} else {
		return nil // a name: its addresses are checked when dialed
	}
	if r := classify(addr); r != nil && !p.allowsAddr(addr, port) {
		return r.error(ref, hostPort, host)
	}
	return nil
}

// splitHostPort splits a registry "HOST[:PORT]" ("[::1]:5000" too); port is "" when absent.
func splitHostPort(hostPort string) (host, port string) {
	if h, p, err := net.SplitHostPort(hostPort); err == nil {
		return h, p
	}
	return strings.Trim(hostPort, "[]"), ""
}

// restrictedKind says what kind of address a template may not name: "loopback", "private",
// "link-local" or "unspecified"; "" for any other.
func restrictedKind(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate(): // 10/8, 172.16/12, 192.168/16, fc00::/7
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(): // 169.254/16, fe80::/10
		return "link-local"
	case a.IsUnspecified(): // 0.0.0.0 and :: reach this machine
		return "unspecified"
	}
	return ""
}

// allowsName reports whether an AllowHosts entry names host (with any port, or port).
func (p *RefPolicy) allowsName(host, port string) bool {
	for _, e := range p.AllowHosts {
		if strings.Contains(e, "/") {
			continue
		}
		eh, ep := splitHostPort(e)
		if strings.EqualFold(eh, host) && (ep == "" || ep == port) {
			return true
		}
	}
	return false
}

// allowsAddr reports whether an AllowHosts entry covers the address a (a CIDR, the address, or
// localhost for a loopback address), with any port or port.
func (p *RefPolicy) allowsAddr(a netip.Addr, port string) bool {
	a = a.Unmap()
	for _, e := range p.AllowHosts {
		if prefix, err := netip.ParsePrefix(e); err == nil {
			if prefix.Masked().Contains(a) {
				return true
			}
			continue
		}
		eh, ep := splitHostPort(e)
		if ep != "" && ep != port {
			continue
		}
		if strings.EqualFold(eh, "localhost") && a.IsLoopback() {
			return true
		}
		if ea, err := netip.ParseAddr(eh); err == nil && ea.Unmap() == a {
			return true
		}
	}
	return false
}

// dialContext is the dialer of a pull under the policy: each address dialed (after the name is
// resolved, and on every redirect) is checked, except the environment's proxy's.
func (p *RefPolicy) dialContext() func(ctx context.Context, network, address string) (net.Conn, error) {
	proxies := proxyHosts()
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port := splitHostPort(address)
		d := &net.Dialer{Timeout: dialTimeout, KeepAlive: dialTimeout}
		if !proxies[strings.ToLower(address)] && !p.allowsName(host, port) {
			d.Control = p.control(address, port)
		}
		return d.DialContext(ctx, network, address)
	}
}

// control is the dialer's check of each address dialed for address (HOST:PORT as asked), before
// anything is sent to it.
func (p *RefPolicy) control(address, port string) func(network, dialed string, _ syscall.RawConn) error {
	return func(_, dialed string, _ syscall.RawConn) error {
		ip, _ := splitHostPort(dialed)
		a, err := netip.ParseAddr(ip)
		if err != nil {
			return nil
		}
		if r := classify(a); r != nil && !p.allowsAddr(a, port) {
			return r.error("", address, a.Unmap().String())
		}
		return nil
	}
}

// dialTimeout is net/http's default transport's dial timeout and keep-alive.
const dialTimeout = 30 * time.Second

// proxyHosts are the HOST:PORT of the proxies the environment configures: the user chose them, a
// template did not, so they may be on a private address.
func proxyHosts() map[string]bool {
	out := map[string]bool{}
	for _, v := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		s := os.Getenv(v)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "://") {
			s = "http://" + s
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			continue
		}
		host := u.Host
		if u.Port() == "" {
			port := "80"
			if u.Scheme == "https" {
				port = "443"
			}
			host = net.JoinHostPort(u.Hostname(), port)
		}
		out[strings.ToLower(host)] = true
	}
	return out
}

// transport is go-containerregistry's default transport dialing under the policy, verifying TLS
// certificates unless skipVerify.
func (p *RefPolicy) transport(skipVerify bool) *http.Transport {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.transports[skipVerify]; t != nil {
		return t
	}
	t := remote.DefaultTransport.(*http.Transport).Clone()
	if skipVerify {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure or --skip-tls-verify asked for it
	}
	t.DialContext = p.dialContext()
	if p.transports == nil {
		p.transports = map[bool]*http.Transport{}
	}
	p.transports[skipVerify] = t
	return t
}
