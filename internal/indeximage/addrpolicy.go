package indeximage

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// What a template may not name besides loopback, private, link-local and unspecified addresses
// (issue 35 item 4): the addresses of the machine itself, where a service bound to 0.0.0.0 on the
// CI runner answers; the ranges that are not the public Internet (shared address space, where
// cloud metadata services such as 100.100.100.200 live, benchmarking, "this network", multicast,
// reserved, documentation); and IPv6 addresses that carry an IPv4 address a translator or a
// tunnel delivers to (NAT64, 6to4, Teredo, IPv4-compatible and -translated), judged by the IPv4
// address they carry. The IANA special-purpose address registries list the ranges.

// Kinds of refused address beyond restrictedKind's.
const (
	kindOwn      = "own"
	kindMetadata = "cloud metadata"
)

type specialRange struct {
	prefix netip.Prefix
	kind   string
}

func ranges(kinds ...string) []specialRange {
	out := make([]specialRange, 0, len(kinds)/2)
	for i := 0; i < len(kinds); i += 2 {
		out = append(out, specialRange{netip.MustParsePrefix(kinds[i]), kinds[i+1]})
	}
	return out
}

// metadataAddrs are the cloud metadata services not in a range refused anyway as a whole
// (169.254.169.254 is link-local): Alibaba Cloud's, AWS's IPv6 one (in fc00::/7, named for the
// message), Oracle Cloud's (in 192.0.0.0/24).
var metadataAddrs = ranges(
	"100.100.100.200/32", kindMetadata,
	"fd00:ec2::254/128", kindMetadata,
	"192.0.0.192/32", kindMetadata,
)

// specialRanges are the ranges that are not the public Internet, beyond what netip's predicates
// (loopback, private, link-local, unspecified, multicast) tell.
var specialRanges = ranges(
	"0.0.0.0/8", `"this network" (0.0.0.0/8)`,
	"100.64.0.0/10", "shared (100.64.0.0/10, carrier-grade NAT and cloud services)",
	"192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)",
	"192.0.2.0/24", "documentation (192.0.2.0/24)",
	"192.88.99.0/24", "6to4 relay anycast (192.88.99.0/24)",
	"198.18.0.0/15", "benchmarking (198.18.0.0/15)",
	"198.51.100.0/24", "documentation (198.51.100.0/24)",
	"203.0.113.0/24", "documentation (203.0.113.0/24)",
	"255.255.255.255/32", "broadcast",
	"240.0.0.0/4", "reserved (240.0.0.0/4)",
	"100::/64", "discard-only (100::/64)",
	"2001:2::/48", "benchmarking (2001:2::/48)",
	"2001:db8::/32", "documentation (2001:db8::/32)",
	"3fff::/20", "documentation (3fff::/20)",
	"fec0::/10", "site-local (fec0::/10)",
)

// embeddedIPv4 is the IPv4 address a (an IPv6 address, unmapped) carries, with the form that
// carries it, for the forms that deliver to that IPv4 address: IPv4-compatible (::/96),
// IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96; 64:ff9b:1::/48 with the IPv4 address in
// its last 32 bits), 6to4 (2002::/16) and Teredo (2001::/32: the client's address, stored
// inverted, and the server's). unknown is a local-use NAT64 address (64:ff9b:1::/48) whose prefix
// is longer than the /96 form, so that which bits are the IPv4 address cannot be told.
func embeddedIPv4(a netip.Addr) (v4 []netip.Addr, form string, unknown bool) {
	if !a.Is6() {
		return nil, "", false
	}
	b := a.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	zero := func(from, to int) bool {
		for _, x := range b[from:to] {
			if x != 0 {
				return false
			}
		}
		return true
	}
	switch {
	case zero(0, 12) && !zero(12, 14): // ::a.b.c.d, not :: nor ::1 (nor ::x of 16 bits)
		return []netip.Addr{last}, "IPv4-compatible (::/96)", false
	case zero(0, 8) && b[8] == 0xff && b[9] == 0xff && zero(10, 12):
		return []netip.Addr{last}, "IPv4-translated (::ffff:0:0:0/96)", false
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(4, 12):
		return []netip.Addr{last}, "NAT64 (64:ff9b::/96)", false
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1:
		if zero(6, 12) {
			return []netip.Addr{last}, "local-use NAT64 (64:ff9b:1::/48)", false
		}
		return nil, "local-use NAT64 (64:ff9b:1::/48)", true
	case b[0] == 0x20 && b[1] == 0x02:
		return []netip.Addr{netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})}, "6to4 (2002::/16)", false
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0:
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		server := netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]})
		return []netip.Addr{client, server}, "Teredo (2001::/32)", false
	}
	return nil, "", false
}

// interfaceAddrs are the addresses of the machine's network interfaces, read on every check (an
// address may come and go while olmcat runs); tests replace it.
var interfaceAddrs = net.InterfaceAddrs

// ownAddress reports whether a is an address of one of the machine's interfaces. When they cannot
// be read, every address is taken for one: refused rather than reached.
func ownAddress(a netip.Addr) (bool, error) {
	addrs, err := interfaceAddrs()
	if err != nil {
		return true, err
	}
	for _, ia := range addrs {
		var ip net.IP
		switch v := ia.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		default:
			continue
		}
		if own, ok := netip.AddrFromSlice(ip); ok && own.Unmap() == a.Unmap() {
			return true, nil
		}
	}
	return false, nil
}

// refusal says why a template may not name address a: nil when it may. It does not look at
// what the policy allows (see RefPolicy.refuses).
type refusal struct {
	kind string // restrictedKind's, a specialRanges kind, kindMetadata or kindOwn
	// form and carried, for an IPv6 address that carries an IPv4 one: the form, and the IPv4
	// address refused (kind is its kind).
	form, carried string
	detail        string // why kindOwn without a match: the interfaces could not be read
}

// classify is every rule a template's registry address is judged by.
func classify(a netip.Addr) *refusal {
	a = a.Unmap()
	if kind := plainKind(a); kind != "" {
		return &refusal{kind: kind}
	}
	if v4s, form, unknown := embeddedIPv4(a); form != "" {
		if unknown {
			return &refusal{kind: "untranslatable", form: form}
		}
		for _, v4 := range v4s {
			if r := classify(v4); r != nil {
				return &refusal{kind: r.kind, form: form, carried: v4.String(), detail: r.detail}
			}
		}
	}
	own, err := ownAddress(a)
	switch {
	case err != nil:
		return &refusal{kind: kindOwn, detail: fmt.Sprintf("this machine's addresses could not be read (%v)", err)}
	case own:
		return &refusal{kind: kindOwn}
	}
	return nil
}

// plainKind is the kind of a special-purpose address by its range alone, "" for another.
func plainKind(a netip.Addr) string {
	for _, r := range metadataAddrs {
		if r.prefix.Contains(a) {
			return r.kind
		}
	}
	if kind := restrictedKind(a); kind != "" {
		return kind
	}
	if a.IsMulticast() {
		return "multicast"
	}
	for _, r := range specialRanges {
		if r.prefix.Contains(a) {
			return r.kind
		}
	}
	return ""
}

// phrase is the refused address's kind as the message says it: "a loopback address", "an address
// of this machine", "a NAT64 (64:ff9b::/96) address carrying 127.0.0.1, a loopback address".
func (r *refusal) phrase() string {
	var what string
	switch r.kind {
	case kindOwn:
		what = "an address of this machine, where its services bound to all interfaces answer"
		if r.detail != "" {
			what = "possibly an address of this machine: " + r.detail
		}
	case "untranslatable":
		return fmt.Sprintf("a %s address whose IPv4 address cannot be told (only the /96 form, 64:ff9b:1::a.b.c.d, is judged by the address it carries)", r.form)
	default:
		what = article(r.kind) + " " + r.kind + " address"
	}
	if r.carried != "" {
		return fmt.Sprintf("%s %s address carrying %s, %s", article(r.form), r.form, r.carried, what)
	}
	return what
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an"
	}
	return "a"
}

// error is the refusal of address addr (as written or dialed) of registry host in ref.
func (r *refusal) error(ref, host, addr string) *RefusedError {
	return &RefusedError{Ref: ref, Host: host, Addr: addr, Kind: r.kind, what: r.phrase()}
}
