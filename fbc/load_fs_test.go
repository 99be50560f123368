package fbc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// mapFSOf copies the tree at dir into a MapFS, symbolic links as links.
func mapFSOf(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[name] = &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(filepath.ToSlash(target))}
		case d.IsDir():
			m[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[name] = &fstest.MapFile{Mode: 0o644, Data: data}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// collect returns every blob a walk hands over, and its problems as text.
func collect(t *testing.T, walk func(func(Blob) error) error) ([]Blob, []string) {
	t.Helper()
	var blobs []Blob
	err := walk(func(b Blob) error { blobs = append(blobs, b); return nil })
	return blobs, errorStrings(loadErrorList(t, err))
}

// fsForms are the fs.FS views of a catalog directory WalkFS must read exactly as Walk reads the
// directory.
func fsForms(t *testing.T, dir string) map[string]fs.FS {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return map[string]fs.FS{"os.Root": r.FS(), "os.DirFS": os.DirFS(dir), "MapFS": mapFSOf(t, dir)}
}

// Every valid conformance catalog gives the same blobs at the same locations through WalkFS as
// through Walk, and the same packages through WalkPackagesFS as through WalkPackages.
func TestWalkFSConformanceCatalogs(t *testing.T) {
	for _, dir := range validCatalogDirs(t) {
		name, _ := filepath.Rel(conformanceDir, dir)
		t.Run(name, func(t *testing.T) {
			want, wantErrs := collect(t, func(fn func(Blob) error) error { return Walk(dir, fn) })
			if len(want) == 0 || wantErrs != nil {
				t.Fatalf("Walk: %d blobs, problems %v", len(want), wantErrs)
			}
			wantPkgs := packageFingerprints(t, func(fn func(string, *Catalog) error) error { return WalkPackages(dir, fn) })
			for form, fsys := range fsForms(t, dir) {
				got, gotErrs := collect(t, func(fn func(Blob) error) error { return WalkFS(fsys, fn) })
				if gotErrs != nil {
					t.Errorf("%s: problems %v", form, gotErrs)
				}
				if msg := blobsDiffer(want, got); msg != "" {
					t.Errorf("%s: WalkFS differs from Walk: %s", form, msg)
				}
				gotPkgs := packageFingerprints(t, func(fn func(string, *Catalog) error) error { return WalkPackagesFS(fsys, fn) })
				if diff := cmp.Diff(wantPkgs, gotPkgs); diff != "" {
					t.Errorf("%s: WalkPackagesFS differs from WalkPackages (-path +fs):\n%s", form, diff)
				}
			}
		})
	}
}

// blobsDiffer describes the first difference between two blob lists ("" when equal). cmp is far
// too slow on megabytes of blob text.
func blobsDiffer(want, got []Blob) string {
	for i := range min(len(want), len(got)) {
		w, g := want[i], got[i]
		if w.Schema != g.Schema || w.Package != g.Package || w.Name != g.Name || w.Loc != g.Loc || !bytes.Equal(w.Data, g.Data) {
			return fmt.Sprintf("blob #%d is %s %q at %s, want %s %q at %s (or its text differs)", i, g.Schema, g.Name, g.Loc, w.Schema, w.Name, w.Loc)
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d blobs, want %d", len(got), len(want))
	}
	return ""
}

func packageFingerprints(t *testing.T, walk func(func(string, *Catalog) error) error) []string {
	t.Helper()
	var out []string
	if err := walk(func(pkg string, c *Catalog) error {
		out = append(out, pkg+"\n"+catalogFingerprint(t, c))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// The invalid conformance catalogs give the same problems, at the same locations, through WalkFS.
func TestWalkFSInvalidConformanceCases(t *testing.T) {
	for _, dir := range conformanceGlob(t, "invalid/*/catalog") {
		want, wantErrs := collect(t, func(fn func(Blob) error) error { return Walk(dir, fn) })
		for form, fsys := range fsForms(t, dir) {
			got, gotErrs := collect(t, func(fn func(Blob) error) error { return WalkFS(fsys, fn) })
			if !slices.Equal(gotErrs, wantErrs) || blobsDiffer(want, got) != "" {
				t.Errorf("%s %s: WalkFS gives %d blobs and %v, Walk %d blobs and %v", dir, form, len(got), gotErrs, len(want), wantErrs)
			}
		}
	}
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a/catalog.json": {Data: []byte(blobFile("olm.package", "a") + "\n{\"schema\":")},
		"b/catalog.yaml": {Data: []byte("schema: olm.package\nname: b\n---\nschema: olm.bundle\nname: b.v1\n")},
		"c/catalog.json": {Data: []byte(blobFile("olm.package", "c"))},
	}
	c, err := LoadFS(fsys)
	errs := loadErrorList(t, err)
	if len(errs) != 2 || errs[0].Loc != (Location{"a/catalog.json", 2}) || errs[1].Loc != (Location{"b/catalog.yaml", 4}) {
		t.Fatalf("problems %v", err)
	}
	if len(c.Packages) != 3 || c.Packages[2].Loc != (Location{"c/catalog.json", 1}) {
		t.Errorf("packages %+v", c.Packages)
	}
}

// The .indexignore files of TestWalkHonoursIndexIgnore, read from a MapFS.
func TestWalkFSHonoursIndexIgnore(t *testing.T) {
	fsys := fstest.MapFS{
		".indexignore":      {Data: []byte("a\n/ignore\n*.md\nbuilt/\n")},
		"dir1/.indexignore": {Data: []byte("b\n!a\n")},
	}
	for _, n := range []string{"a", "b", "notes.md", "ignore/x", "dir1/a", "dir1/b", "dir1/c", "built/x", "deep/built", "sub/built/z"} {
		fsys[n] = &fstest.MapFile{Data: []byte(blobFile("x.y", n))}
	}
	got, errs := walkFilesWith(t, func(fn func(Blob) error) error { return WalkFS(fsys, fn) })
	if errs != nil {
		t.Fatal(errs)
	}
	if want := []string{"b", "deep/built", "dir1/a", "dir1/c"}; !slices.Equal(got, want) {
		t.Errorf("files read %v, want %v", got, want)
	}
}

// readLinkLess hides every method of an fs.FS but Open: no ReadDirFS, StatFS or ReadLinkFS.
type readLinkLess struct{ fs.FS }

// Links through an fs.FS: a link to a file inside is read under the link's name; a broken link, a
// link to a directory and a link leading out are reported, naming the link and its target.
func TestWalkFSSymlinks(t *testing.T) {
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
	}
	fsys := fstest.MapFS{
		"real/catalog.json": {Data: []byte(blobFile("x.y", "real"))},
		"inside/link.json":  link("../real/catalog.json"),
		"dangling.json":     link("nowhere.json"),
		"dirlink":           link("real"),
		"escape.json":       link("../secret.json"),
		"absolute.json":     link("/etc/passwd"),
	}
	want := map[string]string{
		"absolute.json": `is a symbolic link to "/etc/passwd", outside the catalog directory`,
		"dangling.json": `is a broken symbolic link (to "nowhere.json": file does not exist)`,
		"dirlink":       "is a symbolic link to a directory",
		"escape.json":   `is a symbolic link to "../secret.json", outside the catalog directory`,
	}
	check := func(t *testing.T, fsys fs.FS, want map[string]string) {
		files, errs := walkFilesWith(t, func(fn func(Blob) error) error { return WalkFS(fsys, fn) })
		if w := []string{"inside/link.json", "real/catalog.json"}; !slices.Equal(files, w) {
			t.Errorf("files read %v, want %v", files, w)
		}
		if len(errs) != len(want) {
			t.Fatalf("want %d problems, got %d: %v", len(want), len(errs), errs)
		}
		for _, e := range errs {
			if want[e.Loc.File] == "" || !strings.Contains(e.Error(), want[e.Loc.File]) || !errors.Is(e, ErrNotRegularFile) {
				t.Errorf("%s: %v, want %q", e.Loc.File, e, want[e.Loc.File])
			}
		}
	}
	t.Run("ReadLinkFS", func(t *testing.T) { check(t, fsys, want) })
	t.Run("OpenOnly", func(t *testing.T) {
		// Without ReadLink the target cannot be named: each is a link that cannot be followed.
		cannot := map[string]string{}
		for name, msg := range want {
			cannot[name] = msg
			if name != "dirlink" {
				cannot[name] = "is a symbolic link that cannot be followed (file does not exist)"
			}
		}
		check(t, readLinkLess{fsys}, cannot)
	})
}

func TestWalkFSUnreadableRoot(t *testing.T) {
	err := WalkFS(os.DirFS(filepath.Join(t.TempDir(), "nope")), func(Blob) error { return nil })
	errs := loadErrorList(t, err)
	if len(errs) != 1 || errs[0].Loc.File != "." || !errors.Is(errs[0], fs.ErrNotExist) || !strings.Contains(err.Error(), "cannot read the directory") {
		t.Errorf("got %v", err)
	}
}
