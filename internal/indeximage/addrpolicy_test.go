package indeximage

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// Issue 35 item 4: what a template may not name beyond loopback, private and link-local
// addresses, by its registry written as an address. Nothing is dialed: Check reads nothing.
func TestRefPolicyRefusesRangesThatAreNotTheInternet(t *testing.T) {
	p := &RefPolicy{}
	for _, c := range []struct{ host, kind, says string }{
		{"100.100.100.200", kindMetadata, "a cloud metadata address"},
		{"100.64.0.1", "shared (100.64.0.0/10, carrier-grade NAT and cloud services)", "a shared (100.64.0.0/10"},
		{"100.127.255.254:5000", "shared (100.64.0.0/10, carrier-grade NAT and cloud services)", "shared"},
		{"198.18.0.1", "benchmarking (198.18.0.0/15)", "a benchmarking (198.18.0.0/15) address"},
		{"198.19.255.1", "benchmarking (198.18.0.0/15)", "benchmarking"},
		{"0.1.2.3", `"this network" (0.0.0.0/8)`, `a "this network" (0.0.0.0/8) address`},
		{"240.0.0.1", "reserved (240.0.0.0/4)", "a reserved (240.0.0.0/4) address"},
		{"255.255.255.255", "broadcast", "a broadcast address"},
		{"224.0.1.1", "multicast", "a multicast address"},
		{"224.0.0.1", "link-local", "a link-local address"},
		{"[ff0e::1]", "multicast", "multicast"},
		{"192.0.0.192", kindMetadata, "cloud metadata"},
		{"192.0.0.8", "IETF protocol assignments (192.0.0.0/24)", "an IETF protocol assignments"},
		{"192.0.2.10", "documentation (192.0.2.0/24)", "a documentation (192.0.2.0/24) address"},
		{"203.0.113.7", "documentation (203.0.113.0/24)", "documentation"},
		{"[fd00:ec2::254]", kindMetadata, "a cloud metadata address"},
		{"[fec0::1]", "site-local (fec0::/10)", "site-local"},
		{"[100::1]", "discard-only (100::/64)", "discard-only"},
		// IPv6 forms that deliver to an IPv4 address, judged by it.
		{"[64:ff9b::7f00:1]", "loopback", "a NAT64 (64:ff9b::/96) address carrying 127.0.0.1, a loopback address"},
		{"[64:ff9b::a9fe:a9fe]", "link-local", "carrying 169.254.169.254, a link-local address"},
		{"[64:ff9b::6464:64c8]:443", kindMetadata, "carrying 100.100.100.200, a cloud metadata address"},
		{"[64:ff9b:1::a00:1]", "private", "a local-use NAT64 (64:ff9b:1::/48) address carrying 10.0.0.1, a private address"},
		{"[64:ff9b:1:7f00:1::]", "untranslatable", "whose IPv4 address cannot be told"},
		{"[2002:7f00:1::1]", "loopback", "a 6to4 (2002::/16) address carrying 127.0.0.1, a loopback address"},
		{"[2002:a9fe:a9fe::]", "link-local", "carrying 169.254.169.254"},
		// Teredo: server 65.54.227.120, client 127.0.0.1 stored inverted (80.ff.ff.fe).
		{"[2001:0:4136:e378:8000:63bf:80ff:fffe]", "loopback", "a Teredo (2001::/32) address carrying 127.0.0.1, a loopback address"},
		// Teredo with a public client and the server at 10.0.0.1.
		{"[2001:0:a00:1:8000:63bf:f7f7:f7f7]", "private", "carrying 10.0.0.1, a private address"},
		{"[::127.0.0.1]", "loopback", "an IPv4-compatible (::/96) address carrying 127.0.0.1"},
		{"[::ffff:0:a9fe:a9fe]", "link-local", "an IPv4-translated (::ffff:0:0:0/96) address carrying 169.254.169.254"},
		{"[::ffff:100.100.100.200]", kindMetadata, "a cloud metadata address"}, // IPv4-mapped: the IPv4 address itself
	} {
		ref := c.host + "/ns/b:1"
		err := p.Check(ref)
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("%s: got %v, want refused", ref, err)
			continue
		}
		if refused.Kind != c.kind || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "--allow-registry "+c.host) {
			t.Errorf("%s: refused as %q: %q; want %q saying %q and --allow-registry %s", ref, refused.Kind, err, c.kind, c.says, c.host)
		}
		// The same escape as for a private registry: the registry named on the command line.
		if err := (&RefPolicy{AllowHosts: []string{c.host}}).Check(ref); err != nil {
			t.Errorf("--allow-registry %s: %s still refused: %v", c.host, ref, err)
		}
	}
	// The same forms carrying a public IPv4 address reach it: IPv6-only runners reach IPv4
	// registries through DNS64/NAT64.
	for _, host := range []string{"[64:ff9b::808:808]", "[64:ff9b:1::808:808]", "[2002:808:808::1]", "[2001:0:4136:e378:8000:63bf:f7f7:f7f7]", "[::ffff:8.8.8.8]", "8.8.8.8", "100.128.0.1", "198.20.0.1", "[2606:4700::1111]"} {
		if err := p.Check(host + "/ns/b:1"); err != nil {
			t.Errorf("%s refused: %v", host, err)
		}
	}
}

// The machine's own addresses (a registry or any service bound to 0.0.0.0 on the CI runner
// answers there) are refused, as written and as dialed, read when checked. Only the decision is
// tested: nothing is dialed.
func TestRefPolicyRefusesTheMachinesOwnAddresses(t *testing.T) {
	real, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatalf("the machine's addresses: %v", err)
	}
	p := &RefPolicy{}
	for _, ia := range real {
		ipnet, ok := ia.(*net.IPNet)
		if !ok {
			continue
		}
		a, _ := netip.AddrFromSlice(ipnet.IP)
		a = a.Unmap()
		if a.Zone() != "" || a.IsLinkLocalUnicast() {
			continue // not a registry address a template can write
		}
		host := a.String()
		if a.Is6() {
			host = "[" + host + "]"
		}
		if err := p.Check(host + "/ns/b:1"); err == nil {
			t.Errorf("%s, an address of this machine, let through", a)
		}
		dialed := net.JoinHostPort(a.String(), "443")
		if err := p.control("registry.example:443", "443")("tcp", dialed, nil); err == nil {
			t.Errorf("dialing %s, an address of this machine, let through", dialed)
		}
	}

	// An address of the machine that no range rule refuses (a public one): refused as this
	// machine's, then let through once it is not.
	own := []net.Addr{&net.IPNet{IP: net.ParseIP("8.8.4.4"), Mask: net.CIDRMask(24, 32)}, &net.IPNet{IP: net.ParseIP("2001:4860:4860::8844"), Mask: net.CIDRMask(64, 128)}}
	defer func(old func() ([]net.Addr, error)) { interfaceAddrs = old }(interfaceAddrs)
	interfaceAddrs = func() ([]net.Addr, error) { return own, nil }
	for _, host := range []string{"8.8.4.4", "[2001:4860:4860::8844]", "[64:ff9b::808:404]", "[2002:808:404::1]", "[::ffff:8.8.4.4]"} {
		err := p.Check(host + ":5000/ns/b:1")
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Kind != kindOwn || !strings.Contains(err.Error(), "an address of this machine") {
			t.Errorf("%s, the machine's own: got %v, want refused as an address of this machine", host, err)
		}
		if err := (&RefPolicy{AllowHosts: []string{host}}).Check(host + ":5000/ns/b:1"); err != nil {
			t.Errorf("--allow-registry %s: %v", host, err)
		}
	}
	err = p.control("ci-runner.example:5000", "5000")("tcp", "8.8.4.4:5000", nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Kind != kindOwn || !strings.Contains(err.Error(), "ci-runner.example:5000 resolves to 8.8.4.4, an address of this machine") || !strings.Contains(err.Error(), "--allow-registry ci-runner.example:5000") {
		t.Errorf("a name that resolves to the machine's own address: got %v", err)
	}
	if err := (&RefPolicy{AllowHosts: []string{"8.8.4.0/24"}}).control("ci-runner.example:5000", "5000")("tcp", "8.8.4.4:5000", nil); err != nil {
		t.Errorf("--allow-registry 8.8.4.0/24: %v", err)
	}
	// Read when checked: the address leaves the machine, and is let through.
	interfaceAddrs = func() ([]net.Addr, error) { return own[1:], nil }
	if err := p.Check("8.8.4.4/ns/b:1"); err != nil {
		t.Errorf("8.8.4.4 is no longer the machine's: %v", err)
	}
	// The addresses cannot be read: refused, saying so.
	interfaceAddrs = func() ([]net.Addr, error) { return nil, errors.New("netlink: permission denied") }
	if err := p.Check("8.8.4.4/ns/b:1"); err == nil || !strings.Contains(err.Error(), "this machine's addresses could not be read (netlink: permission denied)") {
		t.Errorf("unreadable interfaces: got %v, want refused saying so", err)
	}
}

// FuzzEmbeddedIPv4: classify never panics, and an IPv6 address that carries a refused IPv4
// address in any form it knows is refused.
func FuzzEmbeddedIPv4(f *testing.F) {
	for _, s := range []string{"64:ff9b::7f00:1", "2002:a9fe:a9fe::", "2001:0:4136:e378:8000:63bf:80ff:fffe", "::1", "::", "::7f00:1", "64:ff9b:1::1", "2606:4700::1111"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return
		}
		r := classify(a)
		v4s, form, unknown := embeddedIPv4(a.Unmap())
		if unknown && r == nil {
			t.Fatalf("%s: a %s address of unknown IPv4 let through", a, form)
		}
		for _, v4 := range v4s {
			if classify(v4) != nil && r == nil {
				t.Fatalf("%s carries %s (%s), refused, and is let through", a, v4, form)
			}
		}
	})
}
