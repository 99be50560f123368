package unpack

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmcat/olmcat/fbc"
)

// refFS is refCatalog as a MapFS, with links to the object file, to nowhere and to its directory.
func refFS(ref string) fstest.MapFS {
	blob := `{"schema":"olm.bundle","name":"b","package":"demo","image":"","properties":[{"type":"olm.bundle.object","value":{"ref":"` + strings.ReplaceAll(ref, `\`, `\\`) + `"}}]}`
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
	}
	return fstest.MapFS{
		"demo/demo.json":              {Data: []byte(blob + "\n")},
		"demo/.indexignore":           {Data: []byte("/objects/\n")},
		"demo/objects/b/cm.yaml":      {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
		"demo/objects/b/link.yml":     link("cm.yaml"),
		"demo/objects/b/broken.yml":   link("gone.yaml"),
		"demo/objects/b/dirlink":      link(".."),
		"demo/objects/b/bad.yaml":     {Data: []byte("- not\n- an object\n")},
		"demo/objects/other/sub/x.md": {Data: []byte("x")},
	}
}

func loadFS(t *testing.T, fsys fs.FS) *fbc.Catalog {
	t.Helper()
	c, err := fbc.LoadFS(fsys)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return c
}

func TestResolveRefsFS(t *testing.T) {
	for _, ref := range []string{"objects/b/cm.yaml", "objects/b/link.yml", "./objects/../objects/b/cm.yaml", "../demo/objects/b/cm.yaml"} {
		c := loadFS(t, refFS(ref))
		if err := ResolveRefsFS(refFS(ref), c); err != nil {
			t.Fatalf("ref %q: %v", ref, err)
		}
		if got := string(c.Bundles[0].Properties[0].Value); !strings.Contains(got, `"data"`) {
			t.Errorf("ref %q not resolved: %s", ref, got)
		}
	}

	for ref, want := range map[string]string{
		"../../etc/passwd":     "leaves the catalog directory",
		"../../../../x.yaml":   "leaves the catalog directory",
		"/etc/passwd":          "relative path",
		`objects\b\cm.yaml`:    "forward slashes",
		"objects/b/no.yaml":    "cannot read",
		"objects/b/broken.yml": "cannot read",
		"objects/b/dirlink":    "not a regular file",
		"objects/b":            "not a regular file",
		"objects/b/bad.yaml":   "demo/objects/b/bad.yaml: ",
		"objects/b/big.yaml":   "larger than",
	} {
		fsys := refFS(ref)
		if ref == "objects/b/big.yaml" {
			fsys["demo/objects/b/big.yaml"] = &fstest.MapFile{Data: make([]byte, MaxObjectFileSize+1)}
		}
		c := loadFS(t, fsys)
		before := written(t, c)
		err := ResolveRefsFS(fsys, c)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `bundle "b"`) ||
			!strings.HasPrefix(err.Error(), "demo/demo.json:1: ") {
			t.Errorf("ref %q: got %v, want an error at demo/demo.json:1 containing %q", ref, err, want)
		}
		if !bytes.Equal(written(t, c), before) {
			t.Errorf("ref %q: a failed ResolveRefsFS changed the catalog", ref)
		}
	}
}

func TestResolverPerBundleFS(t *testing.T) {
	fsys := refFS("objects/b/cm.yaml")
	r := NewResolverFS(fsys)
	n := 0
	err := fbc.WalkFS(fsys, func(blob fbc.Blob) error {
		c := &fbc.Catalog{}
		if err := c.Add(blob); err != nil || len(c.Bundles) == 0 {
			return err
		}
		b := &c.Bundles[0]
		if err := r.Bundle(b); err != nil {
			return err
		}
		if HasRefs(b) {
			t.Error("ref left after Bundle")
		}
		n++
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("%d bundles resolved, %v", n, err)
	}
}
