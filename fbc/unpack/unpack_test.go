package unpack

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

const conformance = "../../../shared/conformance"

func load(t *testing.T, dir string) *fbc.Catalog {
	t.Helper()
	c, err := fbc.Load(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return c
}

func written(t *testing.T, c *fbc.Catalog) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestUnpackRoundTrip unpacks real catalogs and loads them back: resolving the refs gives the
// original catalog byte for byte.
func TestUnpackRoundTrip(t *testing.T) {
	cases := []string{
		"fbc/community-v4.12-bundleobject-subset/catalog",
		"fbc/deprecations-konflux/catalog",
		"fbc/custom-schema-blobs/catalog",
		"sqlite/opm-testdata-bundles-substitutesfor/migrate",
		"sqlite/real-indexer-testdata-schema5/migrate",
	}
	for _, rel := range cases {
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			src := filepath.Join(conformance, rel)
			if _, err := os.Stat(src); err != nil {
				t.Skipf("conformance catalog %s absent", src)
			}
			orig := load(t, src)
			want := written(t, orig)
			out := filepath.Join(t.TempDir(), "unpacked")
			if err := Unpack(orig, out, false); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(written(t, orig), want) {
				t.Fatal("Unpack changed the catalog it was given")
			}
			back := load(t, out)
			refs := countRefs(back)
			if err := ResolveRefs(out, back); err != nil {
				t.Fatal(err)
			}
			if got := written(t, back); !bytes.Equal(got, want) {
				t.Errorf("unpack + load + ResolveRefs differs from the original (%d refs)", refs)
			}
			fsys := rootFS(t, out)
			backFS := loadFS(t, fsys)
			if err := ResolveRefsFS(fsys, backFS); err != nil {
				t.Fatal(err)
			}
			if got := written(t, backFS); !bytes.Equal(got, want) {
				t.Errorf("unpack + LoadFS + ResolveRefsFS differs from the original (%d refs)", refs)
			}
			t.Logf("%d objects unpacked, %d of them kept as JSON (YAML would not give the same bytes back)", refs, jsonFiles(t, out))
		})
	}
}

func jsonFiles(t *testing.T, root string) int {
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.HasPrefix(data, []byte("{")) {
			n++
		}
		return err
	})
	must(t, err)
	return n
}

func countRefs(c *fbc.Catalog) int {
	n := 0
	for _, b := range c.Bundles {
		for _, p := range b.Properties {
			if p.Type == property.TypeBundleObject && bytes.Contains(p.Value, []byte(`"ref"`)) {
				n++
			}
		}
	}
	return n
}

func TestUnpackLayout(t *testing.T) {
	src := filepath.Join(conformance, "sqlite/opm-testdata-bundles-substitutesfor/migrate")
	if _, err := os.Stat(src); err != nil {
		t.Skip("conformance catalog absent")
	}
	out := filepath.Join(t.TempDir(), "u")
	if err := Unpack(load(t, src), out, false); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		"etcd/etcd.json",
		"etcd/.indexignore",
		"etcd/objects/etcdoperator.v0.9.2/etcdoperator.v0.9.2_operators.coreos.com_v1alpha1_clusterserviceversion.yaml",
		"etcd/objects/etcdoperator.v0.9.2/etcdclusters.etcd.database.coreos.com_apiextensions.k8s.io_v1beta1_customresourcedefinition.yaml",
	} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	pkgJSON, _ := os.ReadFile(filepath.Join(out, "etcd/etcd.json"))
	if !bytes.Contains(pkgJSON, []byte(`"ref": "objects/etcdoperator.v0.9.2/etcdoperator.v0.9.2_operators.coreos.com_v1alpha1_clusterserviceversion.yaml"`)) {
		t.Error("etcd.json has no ref to the CSV file")
	}
	yamlFile, _ := os.ReadFile(filepath.Join(out, "etcd/objects/etcdoperator.v0.9.2/etcdoperator.v0.9.2_operators.coreos.com_v1alpha1_clusterserviceversion.yaml"))
	if !bytes.HasPrefix(yamlFile, []byte("apiVersion: operators.coreos.com/v1alpha1\n")) {
		t.Errorf("object file is not YAML: %.80q", yamlFile)
	}
	if err := Unpack(load(t, src), out, false); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("unpacking over a non-empty directory: %v", err)
	}
}

// refCatalog writes a one-bundle catalog whose object is the given ref, plus a valid object file.
func refCatalog(t *testing.T, ref string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "cat")
	must(t, os.MkdirAll(filepath.Join(root, "demo", "objects", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "demo", "objects", "b", "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "demo", ".indexignore"), []byte("/objects/\n"), 0o644))
	blob := `{"schema":"olm.bundle","name":"b","package":"demo","image":"","properties":[{"type":"olm.bundle.object","value":{"ref":"` + ref + `"}}]}`
	must(t, os.WriteFile(filepath.Join(root, "demo", "demo.json"), []byte(blob+"\n"), 0o644))
	return root
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolveRefs(t *testing.T) {
	root := refCatalog(t, "objects/b/cm.yaml")
	c := load(t, root)
	if err := ResolveRefs(root, c); err != nil {
		t.Fatal(err)
	}
	if got := string(c.Bundles[0].Properties[0].Value); !strings.Contains(got, `"data"`) {
		t.Errorf("ref not resolved: %s", got)
	}

	outside := filepath.Join(t.TempDir(), "secret.yaml")
	must(t, os.WriteFile(outside, []byte("apiVersion: v1\nkind: Secret\n"), 0o644))
	for ref, want := range map[string]string{
		"../../etc/passwd":   "leaves the catalog directory",
		"../../../../x.yaml": "leaves the catalog directory",
		"/etc/passwd":        "relative path",
		"objects/b/no.yaml":  "cannot read",
		"objects/b/link.yml": "symbolic link",
	} {
		root := refCatalog(t, ref)
		must(t, os.Symlink(outside, filepath.Join(root, "demo", "objects", "b", "link.yml")))
		c := load(t, root)
		before := written(t, c)
		err := ResolveRefs(root, c)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `bundle "b"`) {
			t.Errorf("ref %q: got %v, want an error containing %q", ref, err, want)
		}
		if !bytes.Equal(written(t, c), before) {
			t.Errorf("ref %q: a failed ResolveRefs changed the catalog", ref)
		}
		// The same refs are refused through the os.Root's fs.FS, which keeps links inside.
		if ref == "objects/b/link.yml" {
			want = "path escapes from parent"
		}
		err = ResolveRefsFS(rootFS(t, root), c)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `bundle "b"`) {
			t.Errorf("ref %q through an fs.FS: got %v, want an error containing %q", ref, err, want)
		}
	}
}

func rootFS(t *testing.T, dir string) fs.FS {
	t.Helper()
	r, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r.FS()
}

func TestResolverPerBundle(t *testing.T) {
	root := refCatalog(t, "objects/b/cm.yaml")
	r := NewResolver(root)
	err := fbc.Walk(root, func(blob fbc.Blob) error {
		c := &fbc.Catalog{}
		if err := c.Add(blob); err != nil || len(c.Bundles) == 0 {
			return err
		}
		b := &c.Bundles[0]
		if !HasRefs(b) {
			t.Error("HasRefs is false for a bundle with a ref")
		}
		if err := r.Bundle(b); err != nil {
			return err
		}
		if HasRefs(b) {
			t.Error("ref left after Bundle")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// No refs: any root will do, even standard input.
	if err := ResolveRefs("-", &fbc.Catalog{Bundles: []fbc.Bundle{{Name: "x"}}}); err != nil {
		t.Errorf("catalog without refs from stdin: %v", err)
	}
}
