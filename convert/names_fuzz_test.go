package convert

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/fbc/unpack"
	"github.com/olmcat/olmcat/internal/outpath"
	"github.com/olmcat/olmcat/internal/source"
)

// FuzzNameToPath gives a catalog whose package and bundle names are chosen by the fuzzer to every
// writer that lays a catalog out as files (migrate, the editing commands' --output-dir, unpack,
// migrate --to basic-template in both layouts)
// and checks what issue 19 found broken: no file is written outside the output, whatever the
// names; a name that is written becomes exactly one directory, unchanged; a name that is refused
// is refused with an *outpath.NameError (exit 2 in the command) and nothing at all is written.
func FuzzNameToPath(f *testing.F) {
	for _, seed := range [][2]string{
		{"etcd", "etcd.v1"}, {"../../../victim", "b"}, {"a/../b", "b"}, {"op\x00x", "b"}, {"..", "."},
		{"catalog.json", "b"}, {"p", "../../x"}, {`p\q`, "b"}, {"Etcd", "etcd.v1"}, {"objects", "objects"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pkg, bundle string) {
		root := t.TempDir()
		in := filepath.Join(root, "in", "catalog.json")
		if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(in, namedCatalog(t, pkg, bundle), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		src, err := source.Open(ctx, in, source.Options{})
		if err != nil {
			return // not a catalog the loader takes (the names made it invalid JSON text)
		}
		defer src.Close()
		c, err := src.Load(ctx)
		if err != nil || len(c.Packages) != 1 {
			return
		}
		name := c.Packages[0].Name // the name as loaded (invalid UTF-8 reads as U+FFFD)
		writers := map[string]func(out string) error{
			"migrate": func(out string) error {
				_, err := Migrate(ctx, src, out, MigrateOptions{})
				return err
			},
			"output-dir": func(out string) error { return ops.WriteDir(c, out, fbc.YAML, false) },
			"unpack":     func(out string) error { return unpack.Unpack(c, out, false) },
			"template": func(out string) error {
				_, err := MigrateToTemplates(ctx, src, out, TemplateOptions{})
				return err
			},
			"template-flat": func(out string) error {
				_, err := MigrateToTemplates(ctx, src, out, TemplateOptions{Layout: LayoutFlat})
				return err
			},
		}
		allowed := []string{filepath.Join(root, "in")}
		for what, write := range writers {
			out := filepath.Join(root, "deep", "out-"+what)
			allowed = append(allowed, out)
			err := write(out)
			var nameErr *outpath.NameError
			template := strings.HasPrefix(what, "template")
			// A template writer may refuse a catalog for its own reasons (a package it cannot
			// express); what matters here is where it writes.
			if err != nil && !errors.As(err, &nameErr) && !template {
				t.Fatalf("%s of package %q, bundle %q: %v, want success or an *outpath.NameError", what, pkg, bundle, err)
			}
			assertOnlyUnder(t, root, what, allowed...)
			if err != nil {
				if _, serr := os.Lstat(out); serr == nil {
					t.Fatalf("%s refused package %q (%v) but left %s", what, pkg, err, out)
				}
				continue
			}
			if what == "template-flat" {
				if _, err := os.Stat(filepath.Join(out, name+".yaml")); err != nil {
					t.Fatalf("%s wrote package %q, but not as %s.yaml: %v", what, name, name, err)
				}
				continue
			}
			if fi, err := os.Stat(filepath.Join(out, name)); err != nil || !fi.IsDir() {
				t.Fatalf("%s wrote package %q, but not as the directory %s: %v", what, name, filepath.Join(out, name), err)
			}
		}
	})
}

// assertOnlyUnder fails when anything under root lies outside the given trees (their parents are
// allowed as directories).
func assertOnlyUnder(t *testing.T, root, what string, trees ...string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, tree := range trees {
			if p == tree || strings.HasPrefix(p, tree+string(filepath.Separator)) || (d.IsDir() && strings.HasPrefix(tree, p+string(filepath.Separator))) {
				return nil
			}
		}
		if p == root {
			return nil
		}
		t.Fatalf("%s wrote %s, outside its output", what, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// namedCatalog is a one-bundle catalog whose package and bundle have the given names, with one
// bundle object (unpack writes it under a directory named after the bundle).
func namedCatalog(t *testing.T, pkg, bundle string) []byte {
	obj, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]string{"name": bundle}})
	blobs := []any{
		map[string]any{"schema": "olm.package", "name": pkg, "defaultChannel": "stable"},
		map[string]any{"schema": "olm.channel", "package": pkg, "name": "stable", "entries": []any{map[string]string{"name": bundle}}},
		map[string]any{"schema": "olm.bundle", "package": pkg, "name": bundle, "image": "example.com/b:v1", "properties": []any{
			map[string]any{"type": "olm.package", "value": map[string]string{"packageName": pkg, "version": "1.0.0"}},
			map[string]any{"type": "olm.bundle.object", "value": map[string]string{"data": base64.StdEncoding.EncodeToString(obj)}},
		}},
	}
	var b strings.Builder
	for _, blob := range blobs {
		data, err := json.Marshal(blob)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
