package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const migrateCorpus = conformance + "/sqlite"

func migrateCase(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(migrateCorpus, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance corpus not found at %s", migrateCorpus)
	}
	return dir
}

// concatenated returns the files of opm's output directory joined in package order, which is also
// what render prints.
func concatenated(t *testing.T, dir, ext string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "catalog"+ext))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func TestMigrateCommandMatchesOpm(t *testing.T) {
	caseDir := migrateCase(t, "kube-green-replaces")
	for _, v := range []struct{ dir, ext string }{{"migrate", ".json"}, {"migrate-yaml", ".yaml"}, {"migrate-csvmeta", ".json"}} {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"migrate", filepath.Join(caseDir, "input.db"), out}
		switch v.dir {
		case "migrate-yaml":
			args = append(args, "-o", "yaml")
		case "migrate-csvmeta":
			args = append(args, "--migrate-level", "bundle-object-to-csv-metadata")
		}
		code, _, stderr := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(stderr, "olmcat: migrated ") || strings.Count(stderr, "\n") != 1 {
			t.Fatalf("%v: exit %d, stderr %q; want only the one-line summary (no departures)", args, code, stderr)
		}
		if got, want := concatenated(t, out, v.ext), concatenated(t, filepath.Join(caseDir, v.dir), v.ext); got != want {
			t.Errorf("%s: output differs from opm's", v.dir)
		}
	}
}

func TestMigrateCommandReportAndStrict(t *testing.T) {
	input := filepath.Join(migrateCase(t, "synthetic-skips40"), "input.db")
	dir := t.TempDir()
	out, report := filepath.Join(dir, "out"), filepath.Join(dir, "report.json")
	code, _, stderr := runCLI(t, "migrate", input, out, "--report", report)
	if code != 0 || !strings.Contains(stderr, "158 departures from opm v1.72 migrate") || !strings.Contains(stderr, "csv-edge-added") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var r struct {
		SchemaVersion int
		Packages      int
		Departures    []struct{ Code, Package, Channel, Bundle, Opm, Olmcat, AddedSkip string }
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != 13 || r.Packages != 10 || len(r.Departures) == 0 || r.Departures[0].AddedSkip == "" || r.Departures[0].Opm == "" {
		t.Errorf("report %+v", r)
	}

	strictOut := filepath.Join(dir, "strict")
	code, _, stderr = runCLI(t, "migrate", input, strictOut, "--strict")
	if code != exitFindings || !strings.Contains(stderr, "--strict is set; nothing was written") {
		t.Errorf("strict: exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(strictOut); !os.IsNotExist(err) {
		t.Error("strict mode wrote output")
	}

	code, _, stderr = runCLI(t, "migrate", input, out)
	if code != exitUsage || !strings.Contains(stderr, "not empty") {
		t.Errorf("existing output: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr = runCLI(t, "migrate", input, out, "--force"); code != 0 {
		t.Errorf("--force: exit %d, stderr %q", code, stderr)
	}
}

func TestMigrateCommandBadInputs(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "index.db")
	os.WriteFile(text, []byte("not a database\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"migrate", text, filepath.Join(dir, "o1")}, exitUsage, "index.db: not a catalog: not a SQLite database: it looks like a text file"},
		{[]string{"migrate", filepath.Join(dir, "missing.db"), filepath.Join(dir, "o2")}, exitUsage, "missing.db: not found"},
		{[]string{"migrate", dir, filepath.Join(t.TempDir(), "o3")}, exitUsage, "empty catalog: no catalog blobs found under"},
		// Paths are checked before any input is opened (issue 35 item 5).
		{[]string{"migrate", text, text, "--force"}, exitUsage, "index.db: output overlaps an input: it is the input"},
		{[]string{"migrate", text, filepath.Join(dir, "o4"), "-o", "xml"}, exitUsage, "unknown output format"},
		{[]string{"migrate", text, filepath.Join(dir, "o5"), "--migrate-level", "all-the-way"}, exitUsage, "unknown migration level"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestRenderCommand(t *testing.T) {
	caseDir := migrateCase(t, "real-indexer-testdata-schema5")
	renamed := filepath.Join(t.TempDir(), "catalog.yaml") // detected by content, not by name
	data, err := os.ReadFile(filepath.Join(caseDir, "input.db"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(renamed, data, 0o444)
	want := concatenated(t, filepath.Join(caseDir, "migrate"), ".json")
	for _, in := range []string{renamed, filepath.Join(caseDir, "migrate")} {
		code, stdout, stderr := runCLI(t, "render", in)
		if code != 0 || stdout != want {
			t.Errorf("render %s: exit %d, stderr %q, output equal: %v", in, code, stderr, stdout == want)
		}
	}
	foo := migrateCase(t, "real-foo-index-v0.2.0")
	code, stdout, _ := runCLI(t, "render", "-o", "yaml", filepath.Join(foo, "input.db"), renamed)
	if code != 0 || !strings.HasPrefix(stdout, "---\n") || !strings.Contains(stdout, "name: foo\n") || !strings.Contains(stdout, "name: etcd\n") {
		t.Errorf("render of two inputs: exit %d", code)
	}
}
