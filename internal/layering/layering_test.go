// Package layering holds the test that keeps olmcat's package picture true: imports point one way,
// cmd -> features -> source -> codecs -> model, so the model and the codecs never depend on a
// feature, and every command reaches catalogs through package source.
package layering

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/olmcat/olmcat/"

// layers, lowest first. A package may import packages of its own layer and of lower layers only.
var layers = []struct {
	name     string
	packages []string
}{
	{"model and plumbing", []string{"fbc", "fbc/property", "fbc/csvmeta", "fbc/model", "grpccompat/api",
		"internal/atomicout", "internal/outpath", "internal/bytepool", "internal/filetree", "internal/scratch", "internal/plural", "internal/spool",
		"internal/jsonscan", "internal/textsafe", "internal/nofollow", "internal/imageref", "internal/progress"}},
	{"codecs", []string{"sqlite", "sqlite/tofbc", "internal/indeximage", "fbc/bundledir", "fbc/unpack", "fbc/template",
		"grpccompat/fbcbackend", "grpccompat/opmcache", "fbc/resolve"}},
	{"source", []string{"internal/source", "internal/bundlefetch"}},
	{"features", []string{"convert", "diff", "diff/input", "diff/picture", "diff/report", "fbc/ops", "fbc/filter",
		"fbc/inplace", "grpccompat", "grpccompat/compat", "grpccompat/httpapi", "grpccompat/serve", "grpccompat/replay", "grpccompat/backendtest"}},
	{"command", []string{"cmd/olmcat"}},
	{"test and benchmark support", []string{"fixtures", "fixtures/generate", "fixtures/benchrun", "fixtures/benchtable", "fixtures/fakebase", "fixtures/gencatalog", "fixtures/serveready", "fixtures/procstat", "fixtures/hostile", "fixtures/e2e",
		"internal/imagetest", "internal/readonlytest", "internal/templatetest", "internal/certtest"}},
}

// apart are codecs of one layer that must not import each other, each with why: one room per
// concern. A template renders bundles, which it reads with the bundle code (fbc/csvmeta finds a
// bundle's CSV and its icon), never with the SQLite codec.
var apart = []struct{ from, to, why string }{
	{"fbc/template", "sqlite", "CSV reading (FindCSV, PackageIcon) is bundle code, in fbc/csvmeta"},
	{"fbc/template", "sqlite/tofbc", "templates render bundles, not index databases"},
}

// openers are the codec calls that open a catalog. Above the source layer only package source
// makes them, so that a reference means the same to every command.
var openers = []string{"sqlite.Open(", "sqlite.NewQuerier(", "sqlite.IsSQLiteFile(", "fbc.Load(", "fbc.LoadReader(",
	"fbc.Walk(", "fbc.WalkPackages(", "fbc.WalkReader(",
	"fbc.WalkFS(", "fbc.WalkPackagesFS(", "fbc.LoadFS(", "indeximage.Fetch(", "fbcbackend.Open(", "tofbc.Convert("}

type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

func TestImportsPointOneWay(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	cmd := exec.Command("go", "list", "-json", module+"...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	level := map[string]int{}
	for i, l := range layers {
		for _, p := range l.packages {
			level[p] = i
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		if name == "internal/layering" {
			continue
		}
		from, ok := level[name]
		if !ok {
			t.Errorf("package %s is in no layer: add it to the picture in this test", name)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			to, ok := level[dep]
			if !ok {
				continue // reported as its own package
			}
			if to > from {
				t.Errorf("%s (%s) imports %s (%s): imports must point down the layers", name, layers[from].name, dep, layers[to].name)
			}
			for _, a := range apart {
				if a.from == name && a.to == dep {
					t.Errorf("%s imports %s: %s", name, dep, a.why)
				}
			}
		}
		if name := layers[from].name; name == "features" || name == "command" {
			checkNoOpeners(t, p)
		}
	}
}

func checkNoOpeners(t *testing.T, p listed) {
	for _, f := range p.GoFiles {
		data, err := os.ReadFile(filepath.Join(p.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range openers {
			if strings.Contains(string(data), o) {
				t.Errorf("%s/%s calls %s: commands and features open catalogs through internal/source", p.ImportPath, f, o)
			}
		}
	}
}
