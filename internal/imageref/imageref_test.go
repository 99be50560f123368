package imageref

import (
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-containerregistry/pkg/name"
)

func TestProblem(t *testing.T) {
	hex64 := strings.Repeat("0123456789abcdef", 4)
	for _, c := range []struct {
		ref, want string // want: a part of the problem, "" for a reference
	}{
		{"quay.io/ns/bundle:v1.0.0", ""},
		{"busybox", ""},
		{"localhost:5000/a/b", ""},
		{"registry.redhat.io/ns/op@sha256:" + hex64, ""},
		{"quay.io/ns/op:v1@sha256:" + hex64, ""},
		{"quay.io/ns/op@sha512:" + hex64 + hex64, ""},
		{"oci-layout:/tmp/my bundles/layout", ""},
		{"docker-archive:bundle.tar", ""},
		{"oci-layout:", "no path"},
		{"oci-layout: /tmp/x", "white space around"},
		{"docker-archive:/tmp/x\nevil.example/pwn:latest", "line end"},
		{"", "empty"},
		{"quay.io/ns/bundle:v1\nevil.example/pwn:latest", "line end"},
		{"quay.io/ns/bundle:v1\r\nevil.example/pwn:latest", "line end"},
		{"\x1b[2Kquay.io/ns/bundle:v1", "control character U+001B"},
		{" quay.io/ns/bundle:v1", "white space"},
		{"quay.io/ns/bundle:v1 ", "white space"},
		{"quay.io/ns/bundle:v1\u2028", "white space"},
		{"quay.io/ns/bundle:v1\u200b", "unprintable"},
		{"quay.io/ns/op@sha256:" + hex64[:63], "64 lowercase hex"},
		{"quay.io/ns/op@sha256:" + strings.ToUpper(hex64), "64 lowercase hex"},
		{"quay.io/ns/op@ssssss:" + hex64, "sha256, sha384 or sha512"},
		{"quay.io/ns/op@" + hex64, "sha256, sha384 or sha512"},
		{"quay.io/Ns/Op:v1", "REPOSITORY"},
		{"quay.io/ns/op:v1:v2", "REPOSITORY"},
		{"quay.io/ns/op:" + strings.Repeat("t", 129), "REPOSITORY"},
	} {
		got := Problem(c.ref)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("Problem(%q) = %q, want %q", c.ref, got, c.want)
		}
		if got != "" && len(c.ref) > 12 && strings.Contains(got, c.ref) {
			t.Errorf("Problem(%q) repeats the reference: %q", c.ref, got)
		}
	}
}

func TestQuoteCutsAndEscapes(t *testing.T) {
	q := Quote(strings.Repeat("é", 300) + "\n")
	if len(q) > 230 || strings.ContainsAny(q, "\n\r\x1b") || !strings.HasSuffix(q, `..." (601 bytes)`) {
		t.Errorf("Quote = %q", q)
	}
}

// FuzzProblem: a string Problem accepts is one line that go-containerregistry parses (or a local
// image's path), with no control character or white space (a path may hold spaces).
func FuzzProblem(f *testing.F) {
	for _, s := range []string{"quay.io/ns/b:v1", "a\nb", "x@sha256:" + strings.Repeat("a", 64), " y", "\x1b", "busybox"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		p := Problem(ref)
		if strings.ContainsAny(p, "\n\r\x1b") {
			t.Fatalf("the problem holds a control character: %q", p)
		}
		if p != "" {
			return
		}
		local := strings.HasPrefix(ref, "oci-layout:") || strings.HasPrefix(ref, "docker-archive:")
		if _, err := name.ParseReference(ref); err != nil && !local {
			t.Fatalf("accepted %q, which does not parse: %v", ref, err)
		}
		for _, r := range ref {
			if unicode.IsControl(r) || unicode.IsSpace(r) && !(local && r == ' ') {
				t.Fatalf("accepted %q, which holds %U", ref, r)
			}
		}
	})
}
