package fbc

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// walkFiles returns, in order, the files Walk read blobs from, and the walk's problems. A directory
// is also walked through WalkFS over its os.Root, which must give the same files and problems.
func walkFiles(t *testing.T, root string) ([]string, []*LoadError) {
	t.Helper()
	files, errs := walkFilesWith(t, func(fn func(Blob) error) error { return Walk(root, fn) })
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		return files, errs
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fsFiles, fsErrs := walkFilesWith(t, func(fn func(Blob) error) error { return WalkFS(r.FS(), fn) })
	if !slices.Equal(fsFiles, files) {
		t.Errorf("WalkFS read %v, Walk %v", fsFiles, files)
	}
	// A link cycle is the one cause worded differently: filepath.EvalSymlinks has its own message.
	want := errorStrings(errs)
	for i := range want {
		want[i] = strings.ReplaceAll(want[i], "EvalSymlinks: too many links", "too many levels of symbolic links")
	}
	if got := errorStrings(fsErrs); !slices.Equal(got, want) {
		t.Errorf("WalkFS problems:\n%s\nWalk problems:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return files, errs
}

func walkFilesWith(t *testing.T, walk func(func(Blob) error) error) ([]string, []*LoadError) {
	t.Helper()
	var files []string
	err := walk(func(b Blob) error {
		if len(files) == 0 || files[len(files)-1] != b.Loc.File {
			files = append(files, b.Loc.File)
		}
		return nil
	})
	return files, loadErrorList(t, err)
}

func errorStrings(errs []*LoadError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func blobFile(schema, name string) string {
	return `{"schema":"` + schema + `","name":"` + name + `"}`
}

// Every file is read whatever its name, in sorted path order, JSON or YAML by content.
func TestWalkReadsEveryFileInOrder(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"b/catalog.json":        blobFile("x.y", "b1") + blobFile("x.y", "b2"),
		"a/z/deep.yml":          "schema: x.y\nname: deep\n",
		"a/catalog.yaml":        "---\nschema: x.y\nname: a\n",
		"a/no-extension":        blobFile("x.y", "noext"),
		"a/json-named.yaml":     blobFile("x.y", "jsonInYamlFile"),
		"c/empty.json":          "",
		"a-sibling/catalog.txt": "schema: x.y\nname: sibling\n",
	})
	files, errs := walkFiles(t, dir)
	if errs != nil {
		t.Fatal(errs)
	}
	// Directory by directory, entries sorted by name (as fs.WalkDir): all of a/ before a-sibling/.
	want := []string{"a/catalog.yaml", "a/json-named.yaml", "a/no-extension", "a/z/deep.yml", "a-sibling/catalog.txt", "b/catalog.json"}
	if !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
}

// The behaviour of .indexignore files, as opm's matcher has it: patterns are relative to the
// directory of their .indexignore, the last matching pattern wins (deeper files are read later), a
// pattern naming a directory covers what is below it, "!" re-includes.
func TestWalkHonoursIndexIgnore(t *testing.T) {
	names := []string{
		"a", "b", "c", "notes.md", "ignore/a", "ignore/b", "ignore/c",
		"dir1/a", "dir1/b", "dir1/c", "dir1/ignore/a", "dir1/ignore/b", "dir1/ignore/c",
		"really/file1", "really/file2", "really/long/file1", "really/long/path/to/file1", "really/long/path/to/file2",
		"built/x", "built/sub/y", "deep/built", "deep/sub/built/z",
	}
	files := map[string]string{
		".indexignore":      "# comment\n  a  \n/ignore\n/really/**/file1\n\n*.md\nbuilt/\n",
		"dir1/.indexignore": "b\n/ignore\n!a\n",
	}
	for _, n := range names {
		files[n] = blobFile("x.y", n)
	}
	got, errs := walkFiles(t, writeTree(t, files))
	if errs != nil {
		t.Fatal(errs)
	}
	want := []string{
		"b", "c", "deep/built", "dir1/a", "dir1/c", "dir1/ignore/a",
		"really/file2", "really/long/path/to/file2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("files read:\n%v\nwant:\n%v", got, want)
	}
}

// opm applies the .indexignore files in walk order: one in a directory whose name sorts before
// ".indexignore" is applied before the root's, so the root's patterns override it.
func TestIndexIgnoreOrderFollowsWalkOrder(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".indexignore":        "!keep.json\n",
		"-early/.indexignore": "*.json\n",
		"-early/keep.json":    blobFile("x.y", "1"),
		"-early/drop.json":    blobFile("x.y", "2"),
		"zlate/.indexignore":  "*.json\n",
		"zlate/keep.json":     blobFile("x.y", "3"),
	})
	got, errs := walkFiles(t, dir)
	if errs != nil {
		t.Fatal(errs)
	}
	if want := []string{"-early/keep.json"}; !slices.Equal(got, want) {
		t.Errorf("files read %v, want %v", got, want)
	}
}

func TestIgnorePatternMatching(t *testing.T) {
	tests := []struct {
		pattern, domain, path string
		isDir, want           bool
	}{
		{"*.md", "", "x/README.md", false, true},
		{"/top", "", "top/file", false, true},
		{"/top", "", "x/top/file", false, false},
		{"top", "", "x/top/file", false, true},
		{"dir/", "", "dir", false, false},
		{"dir/", "", "dir", true, true},
		{"dir/", "", "x/dir/file", false, true},
		{"a/**/b", "", "a/b", false, true},
		{"a/**/b", "", "a/x/y/b", false, true},
		{"a/**", "", "a/x", false, true},
		{"a/**", "", "a", false, false},
		{"**/b", "", "x/y/b", false, true},
		{"a/*/c", "", "a/b/c", false, true},
		{"a/*/c", "", "a/b/x/c", false, false},
		{"x", "sub", "x", false, false},
		{"x", "sub", "sub/x", false, true},
		{"/x", "sub", "sub/y/x", false, false},
		{`\#file`, "", "#file", false, true},
		{"[", "", "[", false, false}, // malformed glob matches nothing
	}
	for _, tc := range tests {
		var domain []string
		if tc.domain != "" {
			domain = strings.Split(tc.domain, "/")
		}
		p, ok := parseIgnorePattern(tc.pattern, domain)
		if !ok {
			t.Fatalf("pattern %q not parsed", tc.pattern)
		}
		if got := p.match(strings.Split(tc.path, "/"), tc.isDir); got != tc.want {
			t.Errorf("pattern %q (in %q) on %q (dir %v): %v, want %v", tc.pattern, tc.domain, tc.path, tc.isDir, got, tc.want)
		}
	}
}

func TestWalkDirectoryOfBinaryFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"img.png":        "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"sub/data.gz":    "\x1f\x8b\x08\x00\x00\x00\x00\x00",
		"sub/latin1.txt": "caf\xe9 cr\xe8me",
		"ok.json":        blobFile("x.y", "ok"),
	})
	files, errs := walkFiles(t, dir)
	if len(files) != 1 || files[0] != "ok.json" {
		t.Errorf("the good file was not read: %v", files)
	}
	want := []string{"img.png", "sub/data.gz", "sub/latin1.txt"}
	if len(errs) != len(want) {
		t.Fatalf("want %d problems, got %v", len(want), errs)
	}
	for i, e := range errs {
		if e.Loc.File != want[i] || !errors.Is(e, ErrNotCatalogData) || !strings.Contains(e.Error(), "not a JSON or YAML file") {
			t.Errorf("problem %d: %v, want a not-JSON-or-YAML error naming %s", i, e, want[i])
		}
	}
}

// Problems in several files are all reported, each in its file, and the good files still load.
func TestLoadCollectsProblemsAcrossFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/catalog.json": blobFile("olm.package", "a") + "\n{\"schema\":",
		"b/catalog.yaml": "schema: olm.package\nname: b\n---\nschema: olm.bundle\nname: b.v1\n",
		"c/catalog.json": blobFile("olm.package", "c"),
	})
	c, err := Load(dir)
	errs := loadErrorList(t, err)
	if len(errs) != 2 || errs[0].Loc != (Location{"a/catalog.json", 2}) || errs[1].Loc != (Location{"b/catalog.yaml", 4}) {
		t.Fatalf("problems %v", err)
	}
	if len(c.Packages) != 3 {
		t.Errorf("%d packages loaded, want 3", len(c.Packages))
	}
}

func TestLoadMissingRoot(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope"))
	errs := loadErrorList(t, err)
	if len(errs) != 1 || !errors.Is(errs[0], os.ErrNotExist) || !strings.Contains(err.Error(), "nope: cannot open the catalog") {
		t.Errorf("got %v", err)
	}
}

func TestWalkStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = saved }()
	go func() {
		_, _ = w.WriteString("schema: olm.package\nname: a\n---\nschema: olm.bundle\nname: a.v1\n")
		_ = w.Close()
	}()
	c, err := Load("-")
	errs := loadErrorList(t, err)
	if len(c.Packages) != 1 || len(errs) != 1 || errs[0].Loc != (Location{StdinName, 4}) {
		t.Errorf("stdin: %d packages, problems %v", len(c.Packages), errs)
	}
}

// A package spread over files, a file holding two packages, and package-less blobs: one call per
// package in name order with all its blobs.
func TestWalkPackagesGroupsFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"1.json": blobFile("olm.package", "zeta") + `{"schema":"olm.bundle","name":"m.v1","package":"mid"}`,
		"2.yaml": "schema: olm.bundle\nname: zeta.v1\npackage: zeta\n",
		"3.json": blobFile("olm.package", "alpha") + `{"schema":"x.docs","package":"alpha"}{"schema":"x.global"}`,
		"4.json": blobFile("olm.package", "mid"),
		"5.json": `{"schema":"olm.bundle","name":"alpha.v1","package":"alpha"}`,
	})
	for form, walkPackages := range walkPackagesForms(t, dir) {
		var got []string
		err := walkPackages(func(pkg string, c *Catalog) error {
			var names []string
			for _, b := range c.Bundles {
				names = append(names, b.Name+"@"+b.Loc.String())
			}
			got = append(got, pkg+":"+strings.Join(names, ",")+"/"+strconv.Itoa(len(c.Packages))+"/"+strconv.Itoa(len(c.Others)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{":/0/1", "alpha:alpha.v1@5.json:1/1/1", "mid:m.v1@1.json:1/1/0", "zeta:zeta.v1@2.yaml:1/1/0"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got  %v\nwant %v", form, got, want)
		}
	}
}

// walkPackagesForms is WalkPackages on dir and WalkPackagesFS on its os.Root.
func walkPackagesForms(t *testing.T, dir string) map[string]func(func(string, *Catalog) error) error {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return map[string]func(func(string, *Catalog) error) error{
		"WalkPackages":   func(fn func(string, *Catalog) error) error { return WalkPackages(dir, fn) },
		"WalkPackagesFS": func(fn func(string, *Catalog) error) error { return WalkPackagesFS(r.FS(), fn) },
	}
}

func TestWalkPackagesStopsBeforeHandingOverOnProblems(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": blobFile("olm.package", "a"),
		"b.json": `{"schema":"olm.bundle","name":"b.v1"}`,
	})
	for form, walkPackages := range walkPackagesForms(t, dir) {
		called := false
		err := walkPackages(func(string, *Catalog) error { called = true; return nil })
		if errs := loadErrorList(t, err); len(errs) != 1 || called {
			t.Errorf("%s: want the problem and no call, got %v (called %v)", form, errs, called)
		}
	}
}

// A blob that splits and names itself but does not decode keeps its package from being handed over;
// the other packages are, and the problem comes back at the end.
func TestWalkPackagesSkipsPackagesThatDoNotDecode(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": blobFile("olm.package", "a") + `{"schema":"olm.bundle","name":"a.v1","package":"a","properties":"oops"}`,
		"b.json": blobFile("olm.package", "b"),
	})
	for form, walkPackages := range walkPackagesForms(t, dir) {
		var got []string
		err := walkPackages(func(pkg string, _ *Catalog) error { got = append(got, pkg); return nil })
		errs := loadErrorList(t, err)
		if !slices.Equal(got, []string{"b"}) || len(errs) != 1 || errs[0].Loc != (Location{"a.json", 1}) || !errors.Is(errs[0], ErrBadField) {
			t.Errorf("%s: handed over %v, problems %v", form, got, errs)
		}
	}
}

// A deferred bundle that does not decode is handed over with its package; Decode gives the problem
// Load would have given, and leaves it deferred.
func TestWalkPackagesDeferredBundleThatDoesNotDecode(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": blobFile("olm.package", "a") + `{"schema":"olm.bundle","name":"a.v1","package":"a","properties":"oops"}`,
	})
	var got []string
	err := Loader{DeferBundle: func(Blob) bool { return true }}.WalkPackages(dir, func(pkg string, c *Catalog) error {
		got = append(got, pkg)
		if len(c.Bundles) != 1 {
			t.Fatalf("bundles %v", c.Bundles)
		}
		b := &c.Bundles[0]
		derr := b.Decode()
		var lerr *LoadError
		if !errors.As(derr, &lerr) || lerr.Loc != (Location{"a.json", 1}) || !errors.Is(lerr, ErrBadField) || !b.Deferred() {
			t.Errorf("Decode: %v (deferred %v)", derr, b.Deferred())
		}
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"a"}) {
		t.Errorf("handed over %v, error %v", got, err)
	}
}
