package source_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/unpack"
	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite"
)

const corpus = "../../../shared/conformance"

func corpusPath(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(corpus, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared/conformance beside the checkout): %v", corpus, err)
	}
	return p
}

// rendered is the catalog of a source as opm's writer prints it.
func rendered(t *testing.T, ref string, opts source.Options) []byte {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, ref, opts)
	if err != nil {
		t.Fatalf("open %s: %v", ref, err)
	}
	defer src.Close()
	c, err := src.Load(ctx)
	if err != nil {
		t.Fatalf("load %s: %v", ref, err)
	}
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every reference form of the same catalog reads back as the same catalog, blob for blob.
func TestEveryFormReadsTheSameCatalog(t *testing.T) {
	caseDir := corpusPath(t, "sqlite/kube-green-replaces")
	dir := filepath.Join(caseDir, "migrate")
	want := rendered(t, dir, source.Options{})

	tmp := t.TempDir()
	file := filepath.Join(tmp, "catalog.json")
	if err := os.WriteFile(file, want, 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := fbc.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	unpacked := filepath.Join(tmp, "unpacked")
	if err := unpack.Unpack(cat, unpacked, false); err != nil {
		t.Fatal(err)
	}
	fbcImage := imagetest.FBCImage(t, dir)
	forms := map[string]struct {
		ref  string
		opts source.Options
		form source.Form
	}{
		"dir":            {dir, source.Options{}, source.FormDir},
		"file":           {file, source.Options{}, source.FormFile},
		"stdin":          {"-", source.Options{Stdin: bytes.NewReader(want)}, source.FormStdin},
		"unpacked":       {unpacked, source.Options{}, source.FormDir},
		"index.db":       {filepath.Join(caseDir, "input.db"), source.Options{}, source.FormIndexDB},
		"index.db stdin": {"-", source.Options{Stdin: bytes.NewReader(mustRead(t, filepath.Join(caseDir, "input.db")))}, source.FormStdin},
		"oci-layout":     {imagetest.OCILayout(t, fbcImage), source.Options{}, source.FormOCILayout},
		"docker-archive": {imagetest.DockerArchive(t, fbcImage), source.Options{}, source.FormDockerArchive},
		// an image of the unpacked catalog: its objects/ refs are resolved inside the image's tree
		"unpacked image": {imagetest.OCILayout(t, imagetest.FBCImage(t, unpacked)), source.Options{}, source.FormOCILayout},
		"db oci-layout":  {imagetest.OCILayout(t, imagetest.DBImage(t, filepath.Join(caseDir, "input.db"))), source.Options{}, source.FormOCILayout},
	}
	for name, f := range forms {
		t.Run(name, func(t *testing.T) {
			ref, err := source.Parse(f.ref)
			if err != nil || ref.Form != f.form {
				t.Fatalf("Parse(%s) = %v, %v; want form %s", f.ref, ref.Form, err, f.form)
			}
			if got := rendered(t, f.ref, f.opts); !bytes.Equal(got, want) {
				t.Errorf("%s reads as a different catalog (%d bytes, want %d)", f.ref, len(got), len(want))
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// An unpacked catalog streams (Walk, as serve and validate read it) with its objects in place.
func TestUnpackedRoundTripsOnEveryCorpusCatalog(t *testing.T) {
	var dirs []string
	fbcCases, _ := filepath.Glob(filepath.Join(corpusPath(t, "fbc"), "*", "catalog"))
	dirs = append(dirs, fbcCases...)
	dirs = append(dirs, filepath.Join(corpusPath(t, "sqlite/kube-green-replaces"), "migrate"))
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			want := rendered(t, dir, source.Options{})
			cat, err := fbc.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			unpacked := filepath.Join(t.TempDir(), "u")
			if err := unpack.Unpack(cat, unpacked, false); err != nil {
				t.Fatal(err)
			}
			if got := rendered(t, unpacked, source.Options{}); !bytes.Equal(got, want) {
				t.Errorf("Load of the unpacked catalog differs from the original")
			}
			src, err := source.Open(context.Background(), unpacked, source.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			streamed := &fbc.Catalog{}
			if err := src.Walk(context.Background(), streamed.Add); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := fbc.Write(&b, streamed, fbc.JSON); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("Walk of the unpacked catalog differs from the original")
			}
		})
	}
}

// Each bad input gets one problem and one wording, whatever reads it.
func TestBadInputs(t *testing.T) {
	tmp := t.TempDir()
	db := corpusPath(t, "sqlite/real-foo-index-v0.2.0/input.db")
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	readme := filepath.Dir(write("readme/README.md", []byte("# my catalog\n\nSee the docs.\n")))
	text := write("text/index.db", []byte("hello\n"))
	full := mustRead(t, db)
	truncated := write("truncated.db", full[:len(full)/2])
	dropped := write("dropped.db", full)
	execSQL(t, dropped, `DROP TABLE channel_entry`)
	future := write("future.db", full)
	execSQL(t, future, `UPDATE schema_migrations SET version = 99`)
	noLabel := imagetest.OCILayout(t, imagetest.Image(t, map[string][]byte{"configs/x.json": []byte("{}")}, nil))
	corrupt := imagetest.OCILayout(t, imagetest.CorruptLayerImage(t))

	for _, c := range []struct {
		ref     string
		problem source.Problem
		detail  string
	}{
		{filepath.Join(tmp, "missing"), source.NotFound, "no such file or directory"},
		{empty, source.EmptyCatalog, "no catalog blobs found under " + empty},
		{readme, source.EmptyCatalog, "no catalog blobs found under " + readme},
		{text, source.NotACatalog, "not a SQLite database: it looks like a text file"},
		{truncated, source.DamagedDatabase, "file is truncated"},
		{dropped, source.DamagedDatabase, "table channel_entry is missing"},
		{future, source.UnsupportedSchema, "schema version 99 is newer than this olmcat understands"},
		{noLabel, source.BadImage, "label"},
		{corrupt, source.BadImage, ""},
		{"grpc://localhost:50051", source.NotHere, "a live gRPC server is not a catalog"},
		{"localhost:50051", source.NotHere, "a live gRPC server is not a catalog"},
		{"git:HEAD", source.BadGitRevision, "expected git:REV:PATH"},
	} {
		t.Run(filepath.Base(c.ref), func(t *testing.T) {
			_, err := source.Open(context.Background(), c.ref, source.Options{})
			var e *source.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want a *source.Error", err, err)
			}
			if e.Problem != c.problem || !strings.Contains(e.Detail, c.detail) || !strings.HasPrefix(err.Error(), c.ref+": "+string(c.problem)) {
				t.Errorf("error %q, want problem %q with %q", err, c.problem, c.detail)
			}
		})
	}
	// --allow-empty accepts the empty ones.
	for _, ref := range []string{empty} {
		src, err := source.Open(context.Background(), ref, source.Options{AllowEmpty: true})
		if err != nil {
			t.Errorf("%s with AllowEmpty: %v", ref, err)
			continue
		}
		c, err := src.Load(context.Background())
		if err != nil || len(c.Packages) != 0 {
			t.Errorf("%s with AllowEmpty: %d packages, %v", ref, len(c.Packages), err)
		}
		src.Close()
	}
}

func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestCheckOutput(t *testing.T) {
	tmp := t.TempDir()
	cat := filepath.Join(tmp, "cat")
	if err := os.MkdirAll(filepath.Join(cat, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cat, "pkg", "catalog.json"), []byte(`{"schema":"olm.package","name":"p"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(cat, link); err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(context.Background(), cat, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for out, want := range map[string]string{
		cat:                                 "it is the input",
		cat + "/":                           "it is the input",
		link:                                "it is the input",
		filepath.Join(cat, "pkg"):           "it lies inside the input",
		filepath.Join(cat, "new", "x.db"):   "it lies inside the input",
		filepath.Join(link, "new"):          "it lies inside the input",
		tmp:                                 "it contains the input",
		filepath.Join(tmp, "elsewhere"):     "",
		filepath.Join(tmp, "cat-sibling"):   "",
		filepath.Join(tmp, "catx", "inner"): "",
	} {
		err := source.CheckOutput(out, src)
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckOutput(%s): %v, want nil", out, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "output overlaps an input")):
			t.Errorf("CheckOutput(%s): %v, want %q", out, err, want)
		}
	}
}

func TestFS(t *testing.T) {
	dir := filepath.Join(corpusPath(t, "sqlite/kube-green-replaces"), "migrate")
	image := imagetest.OCILayout(t, imagetest.FBCImage(t, dir))
	for _, ref := range []string{dir, filepath.Join(dir, "kube-green", "catalog.json"), filepath.Join(filepath.Dir(dir), "input.db"), image} {
		src, err := source.Open(context.Background(), ref, source.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := fstest.TestFS(src.FS(), firstFile(t, ref)); err != nil {
			t.Errorf("%s: %v", ref, err)
		}
		src.Close()
	}
	src, err := source.Open(context.Background(), "-", source.Options{Stdin: strings.NewReader(`{"schema":"olm.package","name":"p"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := fstest.TestFS(src.FS(), "stdin"); err != nil {
		t.Error(err)
	}
}

func firstFile(t *testing.T, ref string) string {
	t.Helper()
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		return filepath.Base(ref)
	}
	return "kube-green/catalog.json"
}

// A catalog that was recognized but holds no package (an index.db or an FBC emptied on purpose)
// is read as an empty catalog, with a warning; AllowEmpty says it is intended and silences it.
func TestCatalogWithoutPackagesIsRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	emptyDB := filepath.Join(dir, "empty.db")
	w, err := sqlite.Create(ctx, emptyDB, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	noPackage := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(noPackage, []byte(`{"schema":"example.com.notes","note":"every package was removed"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	emptyImage := imagetest.OCILayout(t, imagetest.Image(t, map[string][]byte{"configs/.indexignore": []byte("*\n")},
		map[string]string{indeximage.ConfigsLabel: "/configs"}))
	for _, c := range []struct{ ref, what string }{{emptyDB, "index.db"}, {noPackage, "catalog"}, {emptyImage, "catalog"}} {
		for _, allow := range []bool{false, true} {
			var warnings []string
			src, err := source.Open(ctx, c.ref, source.Options{AllowEmpty: allow, Warn: func(w string) { warnings = append(warnings, w) }})
			if err != nil {
				t.Fatalf("%s (AllowEmpty %v): %v", c.ref, allow, err)
			}
			cat, err := src.Load(ctx)
			src.Close()
			if err != nil || len(cat.Packages) != 0 {
				t.Errorf("%s: %d packages, %v", c.ref, len(cat.Packages), err)
			}
			want := []string{c.ref + ": the " + c.what + " holds no package: it is read as an empty catalog (pass --allow-empty to say that is intended)"}
			if allow {
				want = nil
			}
			if !slices.Equal(warnings, want) {
				t.Errorf("%s (AllowEmpty %v): warnings %q, want %q", c.ref, allow, warnings, want)
			}
		}
	}
}
