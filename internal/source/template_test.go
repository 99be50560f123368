package source_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/bundlefetch"
	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/templatetest"
)

func TestTemplateSchema(t *testing.T) {
	for _, c := range []struct {
		name, doc, want string
	}{
		{"yaml", "---\nschema: olm.template.basic\nentries: []\n", "olm.template.basic"},
		{"key after the entries, as opm convert-template -o yaml writes", "entries:\n- schema: olm.package\n  name: p\nschema: olm.template.basic\n", "olm.template.basic"},
		{"capitalised key, as opm accepts", "# a comment\nSchema: olm.semver\nGenerateMajorChannels: true\n", "olm.semver"},
		{"quoted value and comment", "schema: \"olm.template.substitutes\" # substitutes\n", "olm.template.substitutes"},
		{"json", `{"schema": "olm.template.basic", "entries": []}`, "olm.template.basic"},
		{"json capitalised key", "\n  {\"Schema\": \"olm.semver\"}", "olm.semver"},
		{"an FBC", "schema: olm.package\nname: p\n---\nschema: olm.template.basic\n", ""},
		{"an FBC in JSON", `{"schema":"olm.package","name":"p"}{"schema":"olm.semver"}`, ""},
		{"nested schema key", "entries:\n  schema: olm.semver\nname: x\n", ""},
		{"unknown template schema", "schema: olm.template.fancy\n", ""},
		{"flow-style yaml, as opm reads it", "{schema: olm.template.basic, entries: [{schema: olm.bundle, image: 'r/b:1'}]}\n", "olm.template.basic"},
		{"flow-style yaml over lines, capitalised key", "\n{Schema: olm.semver,\n  Stable: {Bundles: [{Image: r/b:1}]}}\n", "olm.semver"},
		{"flow-style FBC blob", "{schema: olm.package, name: p}\n", ""},
		{"neither JSON nor YAML", "{schema: olm.semver, [\n", ""},
		{"empty", "", ""},
		// The JSON object is read a token at a time (issue 35 item 1), as encoding/json decodes it.
		{"json, the last schema key wins", `{"schema":"olm.package","entries":[],"Schema":"olm.semver"}`, "olm.semver"},
		{"json, a null schema leaves the one before", `{"schema":"olm.semver","SCHEMA":null}`, "olm.semver"},
		{"json, a schema that is no string", `{"schema":{"name":"olm.semver"}}`, ""},
		{"json, nested schema keys first", `{"entries":[{"schema":"olm.bundle","a":[1,{"b":null}]}],"x":{"schema":"olm.package"},"schema":"olm.template.basic"}`, "olm.template.basic"},
		{"json, unterminated", `{"schema":"olm.template.basic","entries":[`, ""},
		{"json with a trailing comma, read as flow-style yaml", `{"schema": "olm.semver", "stable": {"bundles": []},}`, "olm.semver"},
	} {
		got, ok := source.TemplateSchema(strings.NewReader(c.doc))
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: got %q %v, want %q", c.name, got, ok, c.want)
		}
		// A reader that cannot seek (the flow-style YAML is read again from what was kept).
		got, ok = source.TemplateSchema(io.MultiReader(strings.NewReader(c.doc)))
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s (not seekable): got %q %v, want %q", c.name, got, ok, c.want)
		}
	}
}

// templateCase writes the corpus's basic template with its images on a test registry.
func templateCase(t *testing.T) (reg *imagetest.CountingRegistry, file string, want map[string][]byte) {
	t.Helper()
	caseDir := corpusPath(t, "templates/render/basic-cat-facts-operator")
	reg = imagetest.NewCountingRegistry(t)
	imagetest.PushCorpusImages(t, reg.Host, caseDir)
	reg.Reset()
	data := bytes.ReplaceAll(mustRead(t, filepath.Join(caseDir, "template.yaml")), []byte(imagetest.CorpusHost+"/"), []byte(reg.Host+"/"))
	file = filepath.Join(t.TempDir(), "catalog-templates", "v4.18.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// opm's bundles, with the test registry's host.
	expected := bytes.ReplaceAll(mustRead(t, filepath.Join(caseDir, "expected.json")), []byte(imagetest.CorpusHost+"/"), []byte(reg.Host+"/"))
	c, err := fbc.LoadReader(bytes.NewReader(expected), "expected.json")
	if err != nil {
		t.Fatal(err)
	}
	want = map[string][]byte{}
	for _, b := range c.Bundles {
		want[b.Name], _ = json.Marshal(b)
	}
	return reg, file, want
}

func checkBundles(t *testing.T, ref string, src *source.Source, want map[string][]byte) {
	t.Helper()
	c, err := src.Load(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", ref, err)
	}
	if len(c.Bundles) != len(want) || len(c.Packages) != 1 || len(c.Channels) != 1 {
		t.Fatalf("%s: %d packages, %d channels, %d bundles; want 1, 1, %d", ref, len(c.Packages), len(c.Channels), len(c.Bundles), len(want))
	}
	for _, b := range c.Bundles {
		got, _ := json.Marshal(b)
		if !bytes.Equal(got, want[b.Name]) {
			t.Errorf("%s: bundle %s differs from opm's:\n got %.300s\nwant %.300s", ref, b.Name, got, want[b.Name])
		}
	}
	if src.Template() != "olm.template.basic" {
		t.Errorf("%s: Template() = %q", ref, src.Template())
	}
}

func TestTemplateIsACatalogReference(t *testing.T) {
	_, file, want := templateCase(t)
	ctx := context.Background()
	opts := source.Options{Templates: imagetest.RenderBasicTemplate}
	for _, ref := range []string{file, "-"} {
		o := opts
		o.Stdin = bytes.NewReader(mustRead(t, file))
		src, err := source.Open(ctx, ref, o)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		checkBundles(t, ref, src, want)
		if got := src.InputPaths(); ref == file && (len(got) != 1 || got[0] != file) {
			t.Errorf("input paths %v", got)
		}
		src.Close()
	}
}

// A template written in flow-style YAML (`{schema: olm.template.basic, entries: [...]}`, not
// JSON) is a template, as opm detects it.
func TestFlowStyleTemplateIsACatalogReference(t *testing.T) {
	_, file, want := templateCase(t)
	flow := templatetest.FlowStyle(t, mustRead(t, file))
	if err := os.WriteFile(file, flow, 0o644); err != nil {
		t.Fatal(err)
	}
	if schema, ok := source.TemplateSchema(bytes.NewReader(flow)); !ok || schema != "olm.template.basic" {
		t.Fatalf("TemplateSchema: %q %v", schema, ok)
	}
	src, err := source.Open(context.Background(), file, source.Options{Templates: imagetest.RenderBasicTemplate})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	checkBundles(t, file, src, want)
}

// Both sides of a review, git:REV:PATH and the work tree, render through one fetcher: each bundle
// image is pulled once.
func TestTemplateAtGitRevisionSharesPulls(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	reg, file, want := templateCase(t)
	repo := filepath.Dir(filepath.Dir(file))
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "template"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var log bytes.Buffer
	f, err := bundlefetch.New(bundlefetch.Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	opts := source.Options{Templates: imagetest.RenderBasicTemplate, Bundles: f}
	for _, ref := range []string{"git:HEAD:" + file, file} {
		src, err := source.Open(context.Background(), ref, opts)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		checkBundles(t, ref, src, want)
		src.Close()
	}
	if s := f.Stats(); s.Pulled != len(want) || s.Reused != len(want) {
		t.Errorf("stats %+v, want %d pulled once and reused once", s, len(want))
	}
	if n := reg.Count("GET", "manifests"); n != len(want) {
		t.Errorf("%d manifest GETs for %d bundle images", n, len(want))
	}
	if !strings.Contains(log.String(), "4 bundle images: 4 already rendered for another input") {
		t.Errorf("stderr line: %q", log.String())
	}
}

func TestTemplateErrors(t *testing.T) {
	reg, file, _ := templateCase(t)
	ctx := context.Background()
	_, err := source.Open(ctx, file, source.Options{})
	var se *source.Error
	if !errors.As(err, &se) || se.Problem != source.BadTemplate || !strings.Contains(err.Error(), "olm.template.basic") {
		t.Errorf("no renderer: %v", err)
	}
	data := strings.Replace(string(mustRead(t, file)), "cat-facts-operator-bundle:1.1.0", "cat-facts-operator-bundle:9.9.9", 1)
	_, err = source.Open(ctx, "-", source.Options{Templates: imagetest.RenderBasicTemplate, Stdin: strings.NewReader(data)})
	var ie *template.ImageError
	if !errors.As(err, &se) || se.Problem != source.UnreadBundleImages || !errors.As(err, &ie) {
		t.Fatalf("missing image: %v", err)
	}
	for _, part := range []string{"bundle images could not be read: 1 image: " + reg.Host + "/cat-facts-operator-bundle:9.9.9 (" + reg.Host + ": ", "not found"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("missing image: %q does not say %q", err, part)
		}
	}
}

func FuzzTemplateSchema(f *testing.F) {
	for _, seed := range []string{"schema: olm.semver\n", "---\nentries: []\nSchema: 'olm.template.basic'\n", `{"schema":"olm.template.substitutes"}`,
		"schema: olm.package\n---\nschema: olm.semver\n", "\xef\xbb\xbf{\"Schema\": \"olm.semver\"", "%YAML 1.2\n---\nschema: olm.semver # c\n...",
		"{schema: olm.template.basic, entries: []}", "{Schema: olm.semver,\n Stable: {Bundles: [{Image: a}]}}\n---\n{}", "{schema: &a olm.semver, x: *a}", "{schema: [}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		schema, ok := source.TemplateSchema(bytes.NewReader(data))
		if ok != (schema != "") {
			t.Fatalf("schema %q, ok %v", schema, ok)
		}
		if ok && !slices.Contains(fbc.TemplateSchemas, schema) {
			t.Fatalf("schema %q is not a template schema", schema)
		}
		// A JSON object is read a byte at a time (issue 35 item 1): what encoding/json decodes
		// of it, the scan finds.
		trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
		var doc struct{ Schema string }
		if len(trimmed) > 0 && trimmed[0] == '{' && json.NewDecoder(bytes.NewReader(trimmed)).Decode(&doc) == nil {
			want := doc.Schema
			if !slices.Contains(fbc.TemplateSchemas, want) {
				want = ""
			}
			if schema != want {
				t.Fatalf("scanned schema %q, encoding/json decodes %q", schema, doc.Schema)
			}
		}
	})
}

// A directory of nothing but catalog templates (a repository's operators/P/catalog-templates/) is
// refused, naming the templates and saying to name one; a directory with an FBC in it is an FBC.
func TestTemplateDirectoryIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "catalog-templates")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// v4.17 as the corpus writes its semver template (`Schema:`, which the FBC loader does not
	// read as a blob), v4.18 its basic template.
	for name, from := range map[string]string{
		"v4.17.yaml": "templates/render/semver-clusterpulse/template.yaml",
		"v4.18.yaml": "templates/render/basic-cat-facts-operator/template.yaml",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), mustRead(t, corpusPath(t, from)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := source.Options{Templates: imagetest.RenderBasicTemplate}
	for _, o := range []source.Options{opts, {Templates: opts.Templates, AllowEmpty: true}} {
		_, err := source.Open(context.Background(), dir, o)
		var e *source.Error
		if !errors.As(err, &e) || e.Problem != source.NotACatalog {
			t.Fatalf("allow-empty %v: %v, want a not-a-catalog error", o.AllowEmpty, err)
		}
		for _, part := range []string{"2 catalog templates (v4.17.yaml, v4.18.yaml)", "name one template file, e.g. " + dir + "/v4.18.yaml"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%q does not say %q", err, part)
			}
		}
	}
	// With the rendered catalog beside them, the directory is that FBC.
	expected := mustRead(t, corpusPath(t, "templates/render/basic-cat-facts-operator/expected.json"))
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), expected, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("an FBC directory holding templates too: %v", err)
	}
	src.Close()
}

// A bundle image's error says the reference once: the layers below repeat it ("REF: bad image:
// image REF: ..."), and a template error names it again.
func TestBundleImageErrorSaysTheReferenceOnce(t *testing.T) {
	ref := "127.0.0.1:5000/op-bundle:1.0.0"
	cause := errors.New("connection refused")
	inner := &source.Error{Ref: ref, Problem: source.BadImage, Detail: "image " + ref + ": Get \"https://127.0.0.1:5000/v2/\": connection refused", Err: cause}
	err := source.BundleImageError(ref, inner)
	if got, want := err.Error(), `failed to pull image "`+ref+`": Get "https://127.0.0.1:5000/v2/": connection refused`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !errors.Is(err, cause) || err.Registry != "127.0.0.1:5000" {
		t.Errorf("the cause or the registry was lost: %#v", err)
	}
	if got := source.BundleImageError(ref, cause).Error(); got != `failed to pull image "`+ref+`": connection refused` {
		t.Errorf("a plain cause: %s", got)
	}
}

// The images a template names that could not be read are said in one sentence: the count, the
// images that failed alike grouped with their reason, each image once; the images a --bundles-from
// catalog holds as olm.csv.metadata get --migrate-level as the fix.
func TestUnreadImagesSentence(t *testing.T) {
	dns := errors.New("lookup quay.io: no such host")
	imgs := []*template.ImageError{
		{Ref: "quay.io/a:1", Registry: "quay.io", Err: dns},
		{Ref: "quay.io/a:2", Registry: "quay.io", Err: dns},
		{Ref: "quay.io/a:1", Registry: "quay.io", Err: dns},
		{Ref: "r.example/b:1", Registry: "r.example", Err: errors.New("manifest unknown")},
		{Ref: "quay.io/c:1", Registry: "quay.io", Err: dns, HeldBy: "catalog/", HeldAs: "olm.csv.metadata"},
	}
	err := source.UnreadImages("v4.18.yaml", imgs, template.ImageErrors(imgs))
	want := "v4.18.yaml: bundle images could not be read: 4 images: quay.io/a:1, quay.io/a:2 (quay.io: lookup quay.io: no such host); " +
		"r.example/b:1 (r.example: manifest unknown); " +
		"quay.io/c:1 (in --bundles-from catalog/ as olm.csv.metadata, not what this render prints, so pulled: quay.io: lookup quay.io: no such host) " +
		"(--bundles-from catalog/ holds 1 bundle as olm.csv.metadata, which is printed with --migrate-level bundle-object-to-csv-metadata only"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got  %s\nwant %s...", err, want)
	}
	if !source.IsInputError(err) || err.Problem != source.UnreadBundleImages {
		t.Errorf("not an input error of its own problem: %#v", err)
	}
	var ie *template.ImageError
	if !errors.As(err, &ie) || ie.Ref != "quay.io/a:1" {
		t.Errorf("the first image is not found in the error: %v", ie)
	}
}
