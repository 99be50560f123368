package indeximage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsImageRef(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "quay.io")
	if err := os.MkdirAll(filepath.Join(existing, "ns"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"quay.io/ns/index:v4.12":                                true,
		"registry.redhat.io/redhat/redhat-operator-index:v4.16": true,
		"localhost:5000/index":                                  true,
		"localhost/index:1":                                     true,
		"127.0.0.1:5000/ns/index@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": true,
		"docker://quay.io/ns/index":   true,
		"oci-layout:./out":            true,
		"docker-archive:index.tar":    true,
		"catalog":                     false,
		"catalogs/prod":               false,
		"index.db":                    false,
		"./quay.io/ns":                false,
		filepath.Join(existing, "ns"): false,
		"quay.io":                     false,
		"Quay.io/NS/Index":            false,
	}
	for s, want := range cases {
		if got := IsImageRef(s); got != want {
			t.Errorf("IsImageRef(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseLayoutAndArchiveRefs(t *testing.T) {
	tmp := t.TempDir()
	withColon := filepath.Join(tmp, "a:b")
	os.Mkdir(withColon, 0o755)
	archive := filepath.Join(tmp, "x.tar")
	os.WriteFile(archive, nil, 0o644)
	cases := []struct {
		in                     string
		path, tag, digest, ref string
	}{
		{"oci-layout:" + tmp, tmp, "", "", ""},
		{"oci-layout:" + tmp + ":v1", tmp, "v1", "", ""},
		{"oci-layout:" + tmp + ":quay.io/ns/x:v1", tmp, "quay.io/ns/x:v1", "", ""},
		{"oci-layout:" + tmp + "@sha256:abcd", tmp, "", "sha256:abcd", ""},
		{"oci-layout:" + withColon, withColon, "", "", ""},
		{"oci-layout:missing:v2", "missing", "v2", "", ""},
		{"docker-archive:" + archive, archive, "", "", ""},
		{"docker-archive:" + archive + ":quay.io/ns/x:v1", archive, "", "", "quay.io/ns/x:v1"},
	}
	for _, c := range cases {
		r, err := parseImageRef(c.in, false)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		ref := ""
		if r.named != nil {
			ref = r.named.String()
		}
		if r.path != c.path || r.tag != c.tag || r.digest != c.digest || ref != c.ref {
			t.Errorf("%s: got path %q tag %q digest %q ref %q", c.in, r.path, r.tag, r.digest, ref)
		}
	}
	for _, bad := range []string{"oci-layout:", "docker-archive:", "quay.io/ns/Index:v1", "oci-layout:" + tmp + ":"} {
		if _, err := parseImageRef(bad, false); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestUntagged(t *testing.T) {
	dir := t.TempDir()
	for ref, want := range map[string]string{
		"quay.io/ns/olmcat:v1":                                "quay.io/ns/olmcat",
		"quay.io/ns/olmcat":                                   "quay.io/ns/olmcat",
		"localhost:5000/olmcat:v2":                            "localhost:5000/olmcat",
		"quay.io/ns/olmcat@sha256:" + strings.Repeat("0", 64): "quay.io/ns/olmcat",
		OCILayoutPrefix + dir + ":v1":                         OCILayoutPrefix + dir,
		OCILayoutPrefix + dir:                                 OCILayoutPrefix + dir,
		"not a reference:::":                                  "not a reference:::",
	} {
		if got := Untagged(ref); got != want {
			t.Errorf("Untagged(%q) = %q, want %q", ref, got, want)
		}
	}
}
