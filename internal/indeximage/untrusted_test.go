package indeximage

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func TestRefPolicyRefusesWhatATemplateMayNotName(t *testing.T) {
	var none *RefPolicy
	if err := none.Check("oci-layout:/etc"); err != nil {
		t.Errorf("no policy refused %v", err)
	}
	p := &RefPolicy{}
	for _, c := range []struct{ ref, kind string }{
		{"127.0.0.1:5000/ns/b:1", "loopback"},
		{"127.8.9.10/ns/b:1", "loopback"},
		{"[::1]:5000/ns/b:1", "loopback"},
		{"localhost:5000/ns/b:1", "loopback"},
		{"registry.localhost/ns/b:1", "loopback"},
		{"10.1.2.3/ns/b:1", "private"},
		{"172.16.0.1/ns/b:1", "private"},
		{"172.31.255.255:443/ns/b:1", "private"},
		{"192.168.1.1/ns/b:1", "private"},
		{"[fd12::1]/ns/b:1", "private"},
		{"[fc00::1]:5000/ns/b:1", "private"},
		{"169.254.169.254/latest/meta:1", "link-local"},
		{"[fe80::1]/ns/b:1", "link-local"},
		{"0.0.0.0:5000/ns/b:1", "unspecified"},
		{"[2001:db8::1]/ns/b:1", "documentation (2001:db8::/32)"},
		{"docker://127.0.0.1/ns/b:1", "loopback"},
		{"oci-layout:/no/such/dir:tag", ""},
		{"docker-archive:/tmp/fifo", ""},
	} {
		err := p.Check(c.ref)
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("%s: got %v, want refused", c.ref, err)
			continue
		}
		if refused.Kind != c.kind || refused.Ref != c.ref {
			t.Errorf("%s: refused as %q (%+v), want %q", c.ref, refused.Kind, refused, c.kind)
		}
		want := "--allow-registry"
		if c.kind == "" {
			want = "--allow-local-images"
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %q does not name %s", c.ref, err, want)
		}
	}
	for _, ref := range []string{"quay.io/ns/b:1", "172.32.0.1/ns/b:1", "8.8.8.8/ns/b:1", "192.169.0.1/ns/b:1", "registry.example/ns/b@sha256:" + strings.Repeat("a", 64)} {
		if err := p.Check(ref); err != nil {
			t.Errorf("%s refused: %v", ref, err)
		}
	}
}

func TestRefPolicyAllows(t *testing.T) {
	for _, c := range []struct {
		allow   []string
		ref     string
		allowed bool
	}{
		{[]string{"127.0.0.1"}, "127.0.0.1:5000/ns/b:1", true},
		{[]string{"127.0.0.1:5000"}, "127.0.0.1:5000/ns/b:1", true},
		{[]string{"127.0.0.1:5001"}, "127.0.0.1:5000/ns/b:1", false},
		{[]string{"127.0.0.1:5000"}, "127.0.0.1/ns/b:1", false},
		{[]string{"localhost"}, "127.0.0.1:5000/ns/b:1", true},
		{[]string{"localhost"}, "[::1]:5000/ns/b:1", true},
		{[]string{"localhost"}, "localhost:5000/ns/b:1", true},
		{[]string{"localhost"}, "10.0.0.1/ns/b:1", false},
		{[]string{"10.0.0.0/8"}, "10.200.3.4:5000/ns/b:1", true},
		{[]string{"10.0.0.0/8"}, "192.168.0.1/ns/b:1", false},
		{[]string{"fd00::/8"}, "[fd12::1]/ns/b:1", true},
		{[]string{"[::1]:5000"}, "[::1]:5000/ns/b:1", true},
		{[]string{"REGISTRY.LOCALHOST"}, "registry.localhost/ns/b:1", true},
	} {
		p := &RefPolicy{AllowHosts: c.allow}
		if err := p.Check(c.ref); (err == nil) != c.allowed {
			t.Errorf("allow %v, %s: got %v, want allowed %v", c.allow, c.ref, err, c.allowed)
		}
	}
	if err := (&RefPolicy{AllowLocal: true}).Check("oci-layout:/some/dir"); err != nil {
		t.Errorf("AllowLocal refused a layout: %v", err)
	}
	for _, bad := range []string{"", "10.0.0.0/33", "a b", "user@host"} {
		if ParseAllowedHost(bad) == nil {
			t.Errorf("ParseAllowedHost(%q) accepted it", bad)
		}
	}
	for _, good := range []string{"localhost", "127.0.0.1:5000", "10.0.0.0/8", "[::1]:5000", "registry.internal"} {
		if err := ParseAllowedHost(good); err != nil {
			t.Errorf("ParseAllowedHost(%q): %v", good, err)
		}
	}
}

// A registry named by a DNS name is checked on the address dialed: "localhost" written otherwise
// (here a name the test resolves to 127.0.0.1 through the dialer: the system resolver's localhost)
// is refused as 127.0.0.1, unless allowed.
func TestRefPolicyChecksTheDialedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	addr := net.JoinHostPort("localhost", port) // resolved by the system resolver to a loopback address
	get := func(p *RefPolicy) error {
		tr := remote.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = p.dialContext()
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://"+addr+"/v2/", nil)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	err := get(&RefPolicy{})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Kind != "loopback" || refused.Host != addr {
		t.Fatalf("dialing %s: got %v, want refused as loopback", addr, err)
	}
	if !strings.Contains(err.Error(), "resolves to") || !strings.Contains(err.Error(), "--allow-registry "+addr) {
		t.Errorf("message %q does not say what the name resolved to and how to allow it", err)
	}
	for _, allow := range []string{"localhost", "127.0.0.0/8", "localhost:" + port} {
		if err := get(&RefPolicy{AllowHosts: []string{allow, "::1"}}); err != nil {
			t.Errorf("allowed %s: %v", allow, err)
		}
	}
}

// FuzzRefPolicyCheck: Check never panics nor reads anything, and a reference it lets through under
// the empty policy names neither a local path nor a registry at a loopback, private, link-local or
// unspecified IP address (nor localhost).
func FuzzRefPolicyCheck(f *testing.F) {
	for _, s := range []string{"127.0.0.1:5000/a/b:1", "[::ffff:127.0.0.1]/a:1", "[fe80::1%25eth0]/a:1", "oci-layout:/x", "docker://10.0.0.1/a@sha256:" + strings.Repeat("0", 64), "quay.io/a/b:c", "LOCALHOST/a:1", "0/a:1", "2130706433/a:1"} {
		f.Add(s, "10.0.0.0/8")
	}
	f.Fuzz(func(t *testing.T, ref, allow string) {
		(&RefPolicy{AllowHosts: []string{allow}}).Check(ref)
		if (&RefPolicy{}).Check(ref) != nil {
			return
		}
		if strings.HasPrefix(ref, OCILayoutPrefix) || strings.HasPrefix(ref, DockerArchivePrefix) {
			t.Fatalf("%q: a local path let through", ref)
		}
		named, err := name.ParseReference(strings.TrimPrefix(ref, RegistryPrefix))
		if err != nil {
			return
		}
		host, _ := splitHostPort(named.Context().RegistryStr())
		if strings.EqualFold(host, "localhost") {
			t.Fatalf("%q: localhost let through", ref)
		}
		if a, err := netip.ParseAddr(host); err == nil && restrictedKind(a) != "" {
			t.Fatalf("%q: %s address %s let through", ref, restrictedKind(a), a)
		}
	})
}
