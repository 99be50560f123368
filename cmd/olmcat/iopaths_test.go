package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 35 item 5: --force replaced inputs and other outputs. Every path a command reads is an
// input no output may be, hold or lie in, and no two outputs share a path or nest; exit 2 before
// anything is written, whatever --force says.
func TestNoOutputIsAnInputOrAnotherOutput(t *testing.T) {
	fixture, err := filepath.Abs("../../fixtures/catalog")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.CopyFS("cat", os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	writeFile := func(name, data string) {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	isc := "kind: ImageSetConfiguration\napiVersion: mirror.openshift.io/v2alpha1\nmirror:\n  operators:\n  - catalog: cat\n    packages:\n    - name: operator-000\n"
	writeFile("isc.yaml", isc)
	writeFile("c.pem", "cert")
	writeFile("k.pem", "key")
	writeFile("plan.json", "{}")
	writeFile("t.yaml", "schema: olm.template.basic\nentries: []\n")
	if err := os.Symlink("isc.yaml", "link.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("old", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"filter", "cat", "out", "--config", "isc.yaml", "--images", "isc.yaml", "--force"}, "--images isc.yaml: output overlaps an input: it is the input isc.yaml (--config)"},
		{[]string{"filter", "cat", "out", "--config", "isc.yaml", "--report", "link.yaml", "--force"}, "--report link.yaml: output overlaps an input: it is the input isc.yaml (--config)"},
		{[]string{"filter", "cat", "isc.yaml", "--to", "sqlite", "--config", "isc.yaml", "--force"}, "isc.yaml: output overlaps an input: it is the input isc.yaml (--config)"},
		{[]string{"filter", "t.yaml", "cat", "--bundles-from", "cat", "--package", "operator-000", "--force"}, "cat: output overlaps an input: it is the input cat (--bundles-from)"},
		{[]string{"filter", "t.yaml", ".", "--bundles-from", "cat", "--package", "operator-000", "--force"}, ".: output overlaps an input: it contains the input t.yaml"},
		{[]string{"migrate", "t.yaml", "cat/x", "--bundles-from", "oci-layout:cat", "--force"}, "it lies inside the input oci-layout:cat (--bundles-from)"},
		{[]string{"filter", "cat", "old", "--config", "isc.yaml", "--to-image", "docker-archive:old", "--server", "olmcat", "--force"}, "--to-image docker-archive:old: it is the output old, another output of the command"},
		{[]string{"filter", "cat", "old", "--config", "isc.yaml", "--images", "x.tar", "--to-image", "docker-archive:x.tar", "--force"}, "--to-image docker-archive:x.tar: it is --images x.tar, another output"},
		{[]string{"filter", "cat", "old", "--config", "isc.yaml", "--images", "old/images.txt", "--force"}, "--images old/images.txt: it lies inside the output old"},
		{[]string{"migrate", "cat", "old", "--report", "r.json", "--oci-layout", "r.json", "--force"}, "--oci-layout r.json: it is --report r.json"},
		{[]string{"migrate", "t.yaml", "old", "--cache-dir", "old", "--force"}, "--cache-dir old: it is the output old"},
		{[]string{"migrate", "t.yaml", "old", "--cache-dir", "old/cache", "--force"}, "--cache-dir old/cache: it lies inside the output old"},
		{[]string{"serve", "cat", "--http-addr", "127.0.0.1:0", "--http-tls-cert", "c.pem", "--http-tls-key", "k.pem", "--termination-log", "k.pem"}, "--termination-log k.pem: output overlaps an input: it is the input k.pem (--http-tls-key)"},
		{[]string{"compat", "cat", "cat", "--plan", "plan.json", "--save-plan", "plan.json", "--force"}, "--save-plan plan.json: output overlaps an input: it is the input plan.json (--plan)"},
		{[]string{"deprecate", "cat", "--package", "operator-000", "--message", "m", "--output-dir", "out", "--cache-dir", "out", "--force"}, "--output-dir out: it is --cache-dir out"},
	} {
		before := treeSums(t, ".")
		code, stdout, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line saying %q", c.args, code, stderr, c.want)
		}
		if after := treeSums(t, "."); after != before {
			t.Errorf("%v: the files changed:\n%s\nwas:\n%s", c.args, after, before)
		}
	}
	// Not overlaps: a device written in place, the cache holding an output, apart paths.
	for _, args := range [][]string{
		{"filter", "cat", "out1", "--config", "isc.yaml", "--images", "/dev/null", "--force"},
		{"migrate", "cat", "cache/out2", "--cache-dir", "cache", "--report", "r2.json"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if data, err := os.ReadFile("isc.yaml"); err != nil || string(data) != isc {
		t.Errorf("isc.yaml changed: %q %v", data, err)
	}
}

// treeSums lists every path under root with its mode and a file's content hash, for a before/after compare.
func treeSums(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
