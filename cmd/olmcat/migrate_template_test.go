package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateToTemplatesCommand: the index.db fixture to templates, in both layouts, with the
// report; the flags that do not apply are refused; the output is never the input.
func TestMigrateToTemplatesCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "templates")
	report := filepath.Join(dir, "report.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"migrate", "../../fixtures/index.db", out, "--to", "semver-template", "--report", report}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep struct {
		To       string `json:"to"`
		Semver   int    `json:"semverTemplates"`
		Basic    int    `json:"basicTemplates"`
		Packages []struct {
			Package, Template, File, SemverRefused string
		} `json:"packages"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.To != "semver-template" || len(rep.Packages) == 0 || rep.Semver+rep.Basic != len(rep.Packages) {
		t.Fatalf("report: %s", data)
	}
	for _, p := range rep.Packages {
		if p.File != filepath.Join(p.Package, "catalog-templates", p.Template+".yaml") {
			t.Errorf("%s: file %s", p.Package, p.File)
		}
		text, err := os.ReadFile(filepath.Join(out, p.File))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(text, []byte("---\n")) {
			t.Errorf("%s is not a YAML template:\n%.200s", p.File, text)
		}
		if p.Template == "basic" && p.SemverRefused == "" {
			t.Errorf("%s: basic without a reason", p.Package)
		}
	}
	if !strings.Contains(stderr.String(), "olmcat: wrote the templates of ") {
		t.Errorf("no summary on stderr:\n%s", stderr.String())
	}

	stderr.Reset()
	if code := run([]string{"migrate", "../../fixtures/index.db", out, "--to", "basic-template"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("over a non-empty output without --force: exit %d, want 2", code)
	}
	flat := filepath.Join(dir, "flat")
	if code := run([]string{"migrate", "../../fixtures/index.db", flat, "--to", "basic-template", "--template-layout", "flat", "-o", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("flat: exit %d: %s", code, stderr.String())
	}
	entries, _ := os.ReadDir(flat)
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			t.Errorf("flat layout holds %s", e.Name())
		}
	}
	if len(entries) == 0 {
		t.Error("flat layout is empty")
	}

	for _, args := range [][]string{
		{"--to", "basic-template", "--migrate-level", "bundle-object-to-csv-metadata"},
		{"--to", "semver-template", "--template-layout", "tree"},
		{"--template-layout", "flat"},
		{"--to", "rendered-template"},
	} {
		stderr.Reset()
		if code := run(append([]string{"migrate", "../../fixtures/index.db", filepath.Join(dir, "x")}, args...), &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
	cat := filepath.Join(dir, "catalog")
	if code := run([]string{"migrate", "../../fixtures/index.db", cat}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if code := run([]string{"migrate", cat, filepath.Join(cat, "templates"), "--to", "basic-template", "--force"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("output inside the input: exit %d, want 2", code)
	}
}

// TestRenderTemplateStdinAndFlags: a template on standard input (no argument, or TYPE only), and
// opm's flag rules.
func TestRenderTemplateStdinAndFlags(t *testing.T) {
	tmpl := "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: p\n  defaultChannel: c\n" +
		"- schema: olm.channel\n  package: p\n  name: c\n  entries:\n  - name: p.v1\n"
	for _, args := range [][]string{{"render-template"}, {"render-template", "basic"}, {"render-template", "-"}, {"render-template", "basic", "-"}} {
		var stdout, stderr bytes.Buffer
		code := execute(t.Context(), args, strings.NewReader(tmpl), &stdout, &stderr)
		if code != 0 || !strings.Contains(stdout.String(), `"defaultChannel": "c"`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"render-template", "--skip-tls", "--use-http"}, "Error: invalid flag combination"},
		{[]string{"render-template", "-o", "toml"}, `Error: invalid --output value "toml", expected (json|yaml|mermaid)`},
		{[]string{"render-template", "fancy", "-"}, `Error: invalid template type "fancy"`},
		{[]string{"render-template", "--migrate-level", "all"}, `Error: unknown migration level "all"`},
		{[]string{"render-template", "semver"}, "Error: rendering template: render: unable to read file: "},
		{[]string{"convert-template", "basic", "-o", "mermaid"}, `Error: invalid --output value "mermaid"`},
	} {
		var stdout, stderr bytes.Buffer
		code := execute(t.Context(), tc.args, strings.NewReader(tmpl), &stdout, &stderr)
		if code != 1 || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), tc.want) || !strings.Contains(stderr.String(), "\nolmcat: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// A failed render-template keeps opm's Error: line and then says, on its olmcat: line, what to do
// about this failure: the TYPE that does not match the schema, the bundle entry to fix at its
// line, the --bundles-from that cannot be read.
func TestRenderTemplateFailuresSayWhatToDo(t *testing.T) {
	dir := t.TempDir()
	const head = "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: p\n  defaultChannel: c\n"
	noImage := filepath.Join(dir, "no-image.yaml")
	writeFile(t, noImage, head+"- schema: olm.bundle\n  image: \"\"\n") // the entry is line 6
	extra := filepath.Join(dir, "extra.yaml")
	writeFile(t, extra, head+"- schema: olm.bundle\n  package: p\n  image: 127.0.0.1:1/p-bundle:v2\n")
	semver := filepath.Join(dir, "semver.yaml")
	writeFile(t, semver, "schema: olm.semver\nStable:\n  Bundles:\n  - Image: 127.0.0.1:1/p-bundle:v1\n")
	for _, tc := range []struct {
		args        []string
		error, what string
	}{
		{[]string{"render-template", "semver", noImage}, `Error: rendering template: render: unable to read file: error unmarshaling JSON: while decoding JSON: json: unknown field "entries"`,
			noImage + " has the schema olm.template.basic, which is TYPE basic, not semver: give TYPE basic, or leave TYPE out"},
		{[]string{"render-template", "basic", semver}, `Error: rendering template: template has unknown schema ("olm.semver"), should be "olm.template.basic"`,
			semver + " has the schema olm.semver, which is TYPE semver, not basic: give TYPE semver"},
		{[]string{"render-template", noImage}, "Error: rendering template: unexpected fields present in basic template bundle",
			noImage + ": line 6: this olm.bundle entry has no image: "},
		{[]string{"render-template", extra}, "Error: rendering template: unexpected fields present in basic template bundle",
			extra + ": line 6: this olm.bundle entry (image 127.0.0.1:1/p-bundle:v2) has package: a basic template names each bundle by its image only"},
		{[]string{"render-template", semver, "--bundles-from", filepath.Join(dir, "published")}, "Error: rendering template: ",
			"--bundles-from " + filepath.Join(dir, "published") + " cannot be read: name a catalog that exists"},
		// A --bundles-from that fails to render is named, not taken for the template.
		{[]string{"render-template", semver, "--bundles-from", noImage}, "Error: rendering template: ",
			"--bundles-from " + noImage + " cannot be read: "},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		first, rest, _ := strings.Cut(stderr, "\n")
		if code != 1 || stdout != "" || !strings.HasPrefix(first, tc.error) || !strings.HasPrefix(rest, "olmcat: "+tc.what) {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s\nwant exit 1, %q, then olmcat: %s", tc.args, code, stdout, stderr, tc.error, tc.what)
		}
	}
	// convert-template reads one FBC file: given a whole catalog, it says which command takes one.
	for _, in := range []string{"../../fixtures/index.db", "../../fixtures/catalog"} {
		code, stdout, stderr := runCLI(t, "convert-template", "basic", in)
		first, rest, _ := strings.Cut(stderr, "\n")
		if code != 1 || stdout != "" || !strings.HasPrefix(first, `Error: unable to open input: "`+in+`" (`) ||
			!strings.HasPrefix(rest, "olmcat: convert-template basic reads one FBC file or stream (JSON or YAML); for a whole catalog (a directory, an index.db, an index image) 'olmcat migrate CATALOG OUT --to basic-template' writes a template per package") {
			t.Errorf("convert-template basic %s: exit %d, stdout %q, stderr:\n%s", in, code, stdout, stderr)
		}
		if strings.HasSuffix(in, ".db") && !strings.Contains(first, "an index.db (a SQLite database), not YAML or JSON text") {
			t.Errorf("convert-template basic %s does not say it is an index.db:\n%s", in, stderr)
		}
	}
	// A flag that does not parse is a usage error, as for every olmcat command (a departure from
	// opm's exit 1 the README states).
	for _, args := range [][]string{{"render-template", semver, "--bogus"}, {"render-template", semver, "--pull-parallelism", "0"}} {
		if code, stdout, stderr := runCLI(t, args...); code != 2 || stdout != "" || !strings.HasPrefix(stderr, "olmcat: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and an olmcat: line", args, code, stdout, stderr)
		}
	}
	// Read as a catalog, the template's error names the entry too.
	code, _, stderr := runCLI(t, "validate", noImage)
	if code != 2 || !strings.Contains(stderr, "(line 6: this olm.bundle entry has no image: ") {
		t.Errorf("validate: exit %d, want 2 and the entry's line:\n%s", code, stderr)
	}
}

// A bundle without an image (old index.db rows have none) is named in a warning with the path of
// the template to edit, as written, not relative to the output.
func TestMigrateToTemplatesNamesBundlesWithoutImage(t *testing.T) {
	db := filepath.Join("..", "..", "..", "shared", "conformance", "sqlite", "real-indexer-testdata-schema5", "input.db")
	if _, err := os.Stat(db); err != nil {
		t.Skipf("sqlite corpus not found: %v", err)
	}
	out := filepath.Join(t.TempDir(), "templates")
	code, _, stderr := runCLI(t, "migrate", db, out, "--to", "basic-template")
	want := "olmcat: warning: " + filepath.Join(out, "prometheus", "catalog-templates", "basic.yaml") +
		`: bundle "prometheusoperator.0.14.0" has no image (an index.db row added from a manifest directory has none): its entry is written as {schema: olm.bundle, image: ""}`
	if code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr does not say %q:\n%s", code, want, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "prometheus", "catalog-templates", "basic.yaml"))
	if err != nil || !strings.Contains(string(data), "- image: \"\"\n  schema: olm.bundle\n") {
		t.Errorf("the template has no entry with an empty image (%v):\n%s", err, data)
	}
}
