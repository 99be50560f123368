package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/internal/templatetest"
)

// conformanceBundles is where the bundle directories opm v1.72 rendered live.
func conformanceBundles(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "conformance", "bundles")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("../shared/conformance/bundles is absent (%v): the opm-rendered bundle directories are not here", err)
	}
	return dir
}

// `olmcat render DIR` on a bundle directory prints what `opm render DIR` printed, byte for byte,
// for every recorded bundle, as `bundle render` does; several at once are one stream.
func TestRenderBundleDirectoryAsOpm(t *testing.T) {
	root := conformanceBundles(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		want, err := os.ReadFile(filepath.Join(root, e.Name(), "render.json"))
		if err != nil {
			continue
		}
		n++
		code, out, errs := runCLI(t, "render", filepath.Join(root, e.Name(), "bundle"))
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", e.Name(), code, errs)
		}
		if out != string(want) {
			t.Errorf("%s: render differs from opm's render.json", e.Name())
		}
		if strings.Contains(errs, "schema") {
			t.Errorf("%s: stderr speaks of schemas: %s", e.Name(), errs)
		}
	}
	if n == 0 {
		t.Fatal("no recorded bundle directory")
	}
}

// --alpha-image-ref-template gives a bundle directory its image (and a related image), and then
// --migrate turns its olm.bundle.object properties into olm.csv.metadata, as opm's migration does
// for a bundle with an image; without an image --migrate leaves it as opm leaves it.
func TestRenderBundleDirectoryImageTemplateAndMigrate(t *testing.T) {
	dir := filepath.Join(conformanceBundles(t), "etcd-0.9.4")
	var b struct {
		Image         string
		Properties    []struct{ Type string }
		RelatedImages []struct{ Image string }
	}
	out := mustRun(t, "render", filepath.Join(dir, "bundle"), "--alpha-image-ref-template", "quay.io/ns/{{.Package}}-bundle:v{{.Version}}", "--migrate")
	decode(t, out, &b)
	if b.Image != "quay.io/ns/etcd-bundle:v0.9.4" {
		t.Errorf("image %q, want quay.io/ns/etcd-bundle:v0.9.4", b.Image)
	}
	types := map[string]int{}
	for _, p := range b.Properties {
		types[p.Type]++
	}
	if types["olm.csv.metadata"] != 1 || types["olm.bundle.object"] != 0 {
		t.Errorf("--migrate with an image: properties %v, want one olm.csv.metadata and no olm.bundle.object", types)
	}
	found := false
	for _, r := range b.RelatedImages {
		found = found || r.Image == b.Image
	}
	if !found {
		t.Errorf("the templated image is not among the related images: %+v", b.RelatedImages)
	}
	// Without a template, --migrate changes nothing: the bytes of opm's render-csvmeta.json.
	want, err := os.ReadFile(filepath.Join(dir, "render-csvmeta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, "render", filepath.Join(dir, "bundle"), "--migrate"); got != string(want) {
		t.Error("render --migrate of a bare bundle directory differs from opm's render-csvmeta.json")
	}
	if code, _, errs := runCLI(t, "render", filepath.Join(dir, "bundle"), "--migrate", "--migrate-level", "none"); code != exitUsage || !strings.Contains(errs, "migrate") {
		t.Errorf("--migrate with --migrate-level: exit %d, %s; want exit 2 (opm: mutually exclusive)", code, errs)
	}
	if code, _, errs := runCLI(t, "render", filepath.Join(dir, "bundle"), "--alpha-image-ref-template", "{{.Nope"); code != exitUsage || !strings.Contains(errs, "template") {
		t.Errorf("a broken template: exit %d, %s; want exit 2", code, errs)
	}
	if code, _, errs := runCLI(t, "render", filepath.Join(dir, "bundle"), "--alpha-image-ref-template", "x/{{.Channel}}"); code != exitUsage || !strings.Contains(errs, "Channel") {
		t.Errorf("a template naming an unknown field: exit %d, %s; want exit 2 naming it", code, errs)
	}
}

// `olmcat validate DIR` on a bundle directory validates the bundle (no "blob has no schema"
// errors), says so once, and fails where `validate bundle` fails.
func TestValidateBundleDirectory(t *testing.T) {
	dir := filepath.Join(conformanceBundles(t), "etcd-0.9.4", "bundle")
	code, out, errs := runCLI(t, "validate", dir)
	if code != 0 || strings.Contains(out+errs, "schema") || strings.Count(errs, "bundle directory") != 1 {
		t.Errorf("validate on a bundle directory: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	// A broken copy: its CSV removed, so it is no bundle validate bundle accepts.
	broken := copyTree(t, dir)
	csvs, _ := filepath.Glob(filepath.Join(broken, "manifests", "*clusterserviceversion*"))
	if len(csvs) != 1 {
		t.Fatalf("CSV files: %v", csvs)
	}
	if err := os.Remove(csvs[0]); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "validate", broken, "-o", "json")
	if code != exitFindings {
		t.Errorf("a bundle without its CSV: exit %d, want 1\n%s", code, out)
	}
	_, want, _ := runCLI(t, "validate", "bundle", broken, "-o", "json")
	if out != want {
		t.Errorf("validate DIR -o json differs from validate bundle DIR -o json:\n%s\n%s", out, want)
	}
}

// validate -o json keeps opm's keys ("passed", "error": {"message"}) beside olmcat's, and
// -o yaml is the same document; a valid catalog has no "error", as opm prints it.
func TestValidateOutputOpmKeys(t *testing.T) {
	inv := filepath.Join("..", "..", "..", "shared", "conformance", "invalid", "duplicate-bundle", "catalog")
	if _, err := os.Stat(inv); err != nil {
		t.Skipf("../shared/conformance/invalid is absent: %v", err)
	}
	code, out, _ := runCLI(t, "validate", inv, "-o", "json")
	if code != exitFindings {
		t.Fatalf("exit %d, want 1", code)
	}
	var doc struct {
		Passed *bool
		Error  *struct{ Message string }
		Errors int
		Issues []struct{ Rule string }
	}
	decode(t, out, &doc)
	if doc.Passed == nil || *doc.Passed || doc.Error == nil || !strings.Contains(doc.Error.Message, `duplicate bundle "demo.v1.1.0"`) || doc.Errors != 1 || len(doc.Issues) != 1 {
		t.Errorf("-o json: %s", out)
	}
	code, y, _ := runCLI(t, "validate", inv, "-o", "yaml")
	if code != exitFindings {
		t.Fatalf("-o yaml: exit %d, want 1", code)
	}
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("-o yaml is not YAML: %v\n%s", err, y)
	}
	var a, b any
	_ = json.Unmarshal(j, &a)
	_ = json.Unmarshal([]byte(out), &b)
	if ja, _ := json.Marshal(a); string(ja) != func() string { jb, _ := json.Marshal(b); return string(jb) }() {
		t.Errorf("-o yaml is not the -o json document:\n%s\n%s", y, out)
	}
	out = mustRun(t, "validate", "../../fixtures/index.db", "-o", "json")
	if strings.Contains(out, `"error"`) || !strings.Contains(out, `"passed": true`) {
		t.Errorf("a valid catalog: %s", out)
	}
}

// opm's spellings `alpha render-template` and `alpha convert-template` give opm's bytes; a
// pipeline names its private registry once in OLMCAT_ALLOW_REGISTRY (comma-separated), as it
// would with --allow-registry, and a wrong entry there is refused whatever the command.
func TestAlphaSpellingsAndAllowRegistryEnv(t *testing.T) {
	old := templateRegistriesAllowedInTests
	templateRegistriesAllowedInTests = nil
	t.Cleanup(func() { templateRegistriesAllowedInTests = old })

	c := templatetest.CaseByID(t, "render", "semver-clusterpulse")
	host := templatetest.PushImages(t, c)
	tmpl := filepath.Join(t.TempDir(), "semver.yaml")
	writeFile(t, tmpl, templatetest.ToHost(string(c.Read(t, "template.yaml")), host))
	want := templatetest.ToHost(string(c.Read(t, "expected.json")), host)

	t.Setenv(envAllowRegistry, "")
	code, _, errs := runCLI(t, "alpha", "render-template", "semver", tmpl, "-o", "json")
	if code != 1 || !strings.Contains(errs, "OLMCAT_ALLOW_REGISTRY="+host) {
		t.Fatalf("alpha render-template of a loopback registry without an allowance: exit %d, want 1 naming OLMCAT_ALLOW_REGISTRY:\n%s", code, errs)
	}
	t.Setenv(envAllowRegistry, "registry.internal.example:5000, "+host)
	if got := mustRun(t, "alpha", "render-template", "semver", tmpl, "-o", "json"); got != want {
		t.Errorf("alpha render-template with OLMCAT_ALLOW_REGISTRY: %d bytes, want opm's %d", len(got), len(want))
	}
	if got := mustRun(t, "render-template", "semver", tmpl, "-o", "json"); got != want {
		t.Error("render-template differs from alpha render-template")
	}
	mustRun(t, "validate", tmpl) // every command that reads templates
	t.Setenv(envAllowRegistry, host+",10.0.0.0/99")
	if code, _, errs := runCLI(t, "version"); code != exitUsage || !strings.Contains(errs, "OLMCAT_ALLOW_REGISTRY") || !strings.Contains(errs, "CIDR") {
		t.Errorf("a bad OLMCAT_ALLOW_REGISTRY entry: exit %d, want 2 naming it\n%s", code, errs)
	}
	t.Setenv(envAllowRegistry, "")

	cv := templatetest.CaseByID(t, "convert", "convert-basic-cat-facts-operator")
	for _, format := range []string{"json", "yaml"} {
		got := mustRun(t, "alpha", "convert-template", "basic", filepath.Join(cv.Dir, "input.json"), "-o", format)
		if got != string(cv.Read(t, "expected."+format)) {
			t.Errorf("alpha convert-template basic -o %s differs from opm's", format)
		}
	}
	if code, _, errs := runCLI(t, "alpha"); code != exitUsage || !strings.Contains(errs, "render-template") {
		t.Errorf("bare alpha: exit %d, want 2 naming its commands\n%s", code, errs)
	}
}

// generate dockerfile takes opm v1.72's flags: -i/--base-image, -b/--builder-image (two stages
// when they differ; no RUN ever in a scratch stage), --binary-image as opm's deprecated name.
func TestGenerateDockerfileOpmFlags(t *testing.T) {
	parent := t.TempDir()
	catalog := filepath.Join(parent, "prod")
	writeFile(t, filepath.Join(catalog, "catalog.json"), `{"schema":"olm.package","name":"p"}`)
	dockerfile := filepath.Join(parent, "prod.Dockerfile")
	gen := func(args ...string) string {
		t.Helper()
		mustRun(t, append([]string{"generate", "dockerfile", catalog, "--force"}, args...)...)
		b, err := os.ReadFile(dockerfile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	stages := func(text string) []string { return strings.Split(text, "\nFROM ")[2:] } // the stages after the builder

	one := gen()
	if strings.Count(one, "FROM ") != 1 || !strings.Contains(one, "FROM quay.io/operator-framework/opm:latest\n") {
		t.Errorf("defaults: want one stage on the opm image:\n%s", one)
	}
	if same := gen("-i", "quay.io/x/opm:v1", "-b", "quay.io/x/opm:v1"); strings.Count(same, "FROM ") != 1 {
		t.Errorf("the same base and builder image: want one stage:\n%s", same)
	}
	scratch := gen("-i", "scratch", "-l", "team=olm", "--extra-labels", "tier=1")
	if !strings.HasPrefix(scratch, "# The builder image") || !strings.Contains(scratch, "FROM quay.io/operator-framework/opm:latest as builder\n") {
		t.Errorf("-i scratch: no builder stage on the opm image:\n%s", scratch)
	}
	if s := stages(scratch); len(s) != 1 || !strings.HasPrefix(s[0], "scratch\n") || strings.Contains(s[0], "RUN") || strings.Contains(s[0], "ENTRYPOINT") ||
		!strings.Contains(s[0], "COPY --from=builder /tmp/cache /tmp/cache") || !strings.Contains(s[0], `LABEL "team"="olm"`) || !strings.Contains(s[0], `LABEL "tier"="1"`) {
		t.Errorf("-i scratch: the scratch stage is wrong:\n%s", scratch)
	}
	two := gen("--base-image", "registry.example/opm:v1.72", "--builder-image", "registry.example/builder:1")
	if s := stages(two); !strings.Contains(two, "FROM registry.example/builder:1 as builder\n") || len(s) != 1 ||
		!strings.HasPrefix(s[0], "registry.example/opm:v1.72\n") || !strings.Contains(s[0], `ENTRYPOINT ["/bin/opm"]`) || strings.Contains(s[0], "RUN") {
		t.Errorf("base and builder differ: want opm's two stages:\n%s", two)
	}
	// opm v1.72: -i alone keeps the default builder; --binary-image sets both.
	if onlyBase := gen("-i", "registry.example/opm:v1.72"); !strings.Contains(onlyBase, "FROM quay.io/operator-framework/opm:latest as builder\n") {
		t.Errorf("-i alone: the builder is not the default opm image:\n%s", onlyBase)
	}
	code, _, errs := runCLI(t, "generate", "dockerfile", catalog, "--force", "--binary-image", "registry.example/opm:v1.72")
	if b, _ := os.ReadFile(dockerfile); code != 0 || strings.Count(string(b), "FROM ") != 1 || !strings.Contains(string(b), "FROM registry.example/opm:v1.72\n") || !strings.Contains(errs, "deprecated") {
		t.Errorf("--binary-image: exit %d, %s\n%s", code, errs, b)
	}
	for _, bad := range [][]string{{"-b", "scratch"}, {"--binary-image", "a", "-i", "b"}, {"--server", "olmcat", "-i", "scratch"}} {
		if code, _, errs := runCLI(t, append([]string{"generate", "dockerfile", catalog, "--force"}, bad...)...); code != exitUsage || !strings.HasPrefix(errs, "olmcat: ") {
			t.Errorf("%v: exit %d, want 2\n%s", bad, code, errs)
		}
	}
	olm := gen("--server", "olmcat", "-b", "ghcr.io/olmcat/olmcat:v1")
	if !strings.Contains(olm, "FROM ghcr.io/olmcat/olmcat:v1 as builder\n") || !strings.Contains(olm, `RUN ["/bin/olmcat", "serve"`) || strings.Contains(olm, "/bin/opm") {
		t.Errorf("--server olmcat with another builder:\n%s", olm)
	}
}

// An oc-mirror v1 ImageSetConfiguration (v1alpha2, with its storageConfig) filters as the same
// v2alpha1 one, saying once that it was read so; --images-mapping writes the image list as
// SOURCE=DESTINATION lines for `oc image mirror -f`, named as oc-mirror v2 names them: the
// source's repository path under REGISTRY/PREFIX, the tag kept, a digest as the tag sha256-HEX.
func TestFilterV1ISCAndImagesMapping(t *testing.T) {
	c := corpus(t, "filter/channel-maxversion")
	input := corpus(t, "filter/input")
	dir := t.TempDir()
	v2, err := os.ReadFile(filepath.Join(c, "isc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	v1 := strings.Replace(string(v2), "mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\n",
		"mirror.openshift.io/v1alpha2\nkind: ImageSetConfiguration\nstorageConfig:\n  local:\n    path: /tmp/oc-mirror-metadata\n", 1)
	if v1 == string(v2) {
		t.Fatal("the case's isc.yaml changed")
	}
	writeFile(t, filepath.Join(dir, "isc-v1.yaml"), v1)
	mustRun(t, "filter", input, filepath.Join(dir, "v2"), "--config", filepath.Join(c, "isc.yaml"))
	code, _, errs := runCLI(t, "filter", input, filepath.Join(dir, "v1"), "--config", filepath.Join(dir, "isc-v1.yaml"),
		"--images", filepath.Join(dir, "mapping.txt"), "--images-mapping", "docker://mirror.example.com:5000/olm/")
	if code != 0 {
		t.Fatalf("v1alpha2: exit %d\n%s", code, errs)
	}
	if strings.Count(errs, "v1 ImageSetConfiguration") != 1 || !strings.Contains(errs, "storageConfig") {
		t.Errorf("the v1alpha2 notice is not said once, naming storageConfig:\n%s", errs)
	}
	sameTree(t, filepath.Join(dir, "v1"), filepath.Join(dir, "v2"))

	want, err := os.ReadFile(filepath.Join(c, "expected", "related-images.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "mapping.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sources := strings.Fields(string(want))
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(lines) != len(sources) {
		t.Fatalf("%d mapping lines for oc-mirror's %d images", len(lines), len(sources))
	}
	digests := 0
	for i, line := range lines {
		src, dst, ok := strings.Cut(line, "=")
		if !ok || src != sources[i] {
			t.Fatalf("line %d %q: want source %q", i+1, line, sources[i])
		}
		host, path, _ := strings.Cut(src, "/")
		if !strings.Contains(host, ".") && !strings.Contains(host, ":") {
			path = src // a Docker Hub name without its registry
		}
		repo, id, isDigest := strings.Cut(path, "@")
		if isDigest {
			digests++
			if dst != "mirror.example.com:5000/olm/"+repo+":"+strings.Replace(id, ":", "-", 1) || !strings.HasPrefix(id, "sha256:") {
				t.Errorf("digest reference %s -> %s, want mirror.example.com:5000/olm/%s:sha256-HEX", src, dst, repo)
			}
		} else if dst != "mirror.example.com:5000/olm/"+path {
			t.Errorf("tag reference %s -> %s, want mirror.example.com:5000/olm/%s", src, dst, path)
		}
	}
	if digests == 0 || digests == len(lines) {
		t.Errorf("the case should hold digest and tag references: %d digests of %d", digests, len(lines))
	}
	for _, bad := range [][]string{
		{"--images-mapping", "mirror.example.com"},                                  // no --images
		{"--images", "-", "--images-mapping", "mirror.example.com/olm:v1"},          // a tag
		{"--images", "-", "--images-mapping", ""},                                   // nothing: the plain list
		{"--images", "-", "--images-mapping", "mirror.example.com/olm@sha256:0000"}, // a digest
	} {
		code, _, errs := runCLI(t, append([]string{"filter", input, filepath.Join(dir, "bad"), "--config", filepath.Join(c, "isc.yaml"), "--force"}, bad...)...)
		if bad[len(bad)-1] == "" {
			if code != 0 {
				t.Errorf("%v: exit %d\n%s", bad, code, errs)
			}
			continue
		}
		if code != exitUsage || !strings.Contains(errs, "--images") {
			t.Errorf("%v: exit %d, want 2 naming the flag\n%s", bad, code, errs)
		}
	}
}

// minVersion = maxVersion on a version the channel head only skips (hulft's shape: 10.6.0
// replaces 10.3.0 and skips 10.5.0) keeps that version alone, as oc-mirror v1 does, not the head
// 10.6.0 above maxVersion with its images; the result validates. A wider range is unchanged.
func TestFilterPinnedVersionTheHeadSkips(t *testing.T) {
	catalog := filepath.Join("testdata", "filter-pinned-skipped")
	dir := t.TempDir()
	isc := filepath.Join(dir, "isc.yaml")
	writeFile(t, isc, `apiVersion: mirror.openshift.io/v2alpha1
kind: ImageSetConfiguration
mirror:
  operators:
  - catalog: registry.redhat.io/redhat/certified-operator-index:v4.18
    packages:
    - name: hulft
      channels:
      - name: stable
        minVersion: 10.5.0
        maxVersion: 10.5.0
`)
	out := filepath.Join(dir, "pinned")
	images := mustRun(t, "filter", catalog, out, "--config", isc, "--images", "-")
	var bundles []string
	entries := 0
	code, stream, errs := runCLI(t, "render", out)
	if code != 0 {
		t.Fatalf("render: %s", errs)
	}
	dec := json.NewDecoder(strings.NewReader(stream))
	for dec.More() {
		var b struct {
			Schema, Name string
			Entries      []struct{ Name string }
		}
		if err := dec.Decode(&b); err != nil {
			t.Fatal(err)
		}
		switch b.Schema {
		case "olm.bundle":
			bundles = append(bundles, b.Name)
		case "olm.channel":
			entries += len(b.Entries)
		}
	}
	if strings.Join(bundles, ",") != "hulft.v10.5.0" || entries != 1 {
		t.Errorf("kept bundles %v (%d entries), want hulft.v10.5.0 alone", bundles, entries)
	}
	if strings.Contains(images, "10.6.0") || !strings.Contains(images, "hulft-operator:10.5.0") {
		t.Errorf("images:\n%s", images)
	}
	mustRun(t, "validate", out)

	// A range that is not one version keeps what it kept: the head 10.6.0 and the 10.5.0 it skips.
	wide := filepath.Join(dir, "wide")
	mustRun(t, "filter", catalog, wide, "--package", "hulft", "--min-version", "hulft/stable=10.5.0", "--max-version", "hulft/stable=10.6.0")
	if got := mustRun(t, "render", wide); !strings.Contains(got, `"hulft.v10.6.0"`) || !strings.Contains(got, `"hulft.v10.5.0"`) || strings.Contains(got, `"name": "hulft.v10.3.0"`) {
		t.Errorf("min 10.5.0 max 10.6.0 changed:\n%.2000s", got)
	}
}

// render of two catalogs holding the same packages writes each twice, as opm render does, and
// says so once on stderr, naming the packages and catalogs; distinct catalogs get no warning.
func TestRenderWarnsOncePackagesTwice(t *testing.T) {
	code, out, errs := runCLI(t, "render", "../../fixtures/index.db", "../../fixtures/catalog")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if strings.Count(errs, "warning:") != 1 || !strings.Contains(errs, "3 packages are in more than one catalog") || !strings.Contains(errs, "operator-001 (in ../../fixtures/index.db, ../../fixtures/catalog)") {
		t.Errorf("stderr:\n%s", errs)
	}
	if n := strings.Count(out, `"schema": "olm.package"`); n != 6 {
		t.Errorf("%d olm.package blobs, want 6 (3 packages twice, as opm concatenates)", n)
	}
	// A catalog and a bundle directory of another package: no warning.
	b := filepath.Join(conformanceBundles(t), "etcd-0.9.4", "bundle")
	if code, _, errs := runCLI(t, "render", "../../fixtures/catalog", b); code != 0 || strings.Contains(errs, "warning") {
		t.Errorf("distinct inputs: exit %d\n%s", code, errs)
	}
}

// A bundle directory given where a catalog is read is "not a catalog", exit 2, with the commands
// that take it, instead of one "blob has no schema" error per manifest.
func TestBundleDirectoryIsNoCatalog(t *testing.T) {
	b := filepath.Join(conformanceBundles(t), "etcd-0.9.4", "bundle")
	out := t.TempDir()
	for _, args := range [][]string{
		{"diff", "../../fixtures/catalog", b},
		{"serve", b},
		{"inspect", "packages", b},
		{"migrate", b, filepath.Join(out, "m")},
		{"filter", b, filepath.Join(out, "f"), "--package", "etcd"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "not a catalog: a bundle directory") || !strings.Contains(errs, "olmcat render "+b) || strings.Contains(errs, "schema") {
			t.Errorf("%v: exit %d\n%s", args, code, errs)
		}
	}
}

// The mapping names each kind of reference as oc-mirror v2's dry-run mapping.txt does.
func TestImagesMappingNames(t *testing.T) {
	d, err := parseMirrorDest("docker://mirror.example.com:5000/olm/")
	if err != nil {
		t.Fatal(err)
	}
	hex := strings.Repeat("ab", 32)
	for img, want := range map[string]string{
		"registry.redhat.io/ubi8/ubi:8.9":           "registry.redhat.io/ubi8/ubi:8.9=mirror.example.com:5000/olm/ubi8/ubi:8.9",
		"registry.redhat.io/ubi8/ubi@sha256:" + hex: "registry.redhat.io/ubi8/ubi@sha256:" + hex + "=mirror.example.com:5000/olm/ubi8/ubi:sha256-" + hex,
		"quay.io:443/a/b/c:v1@sha256:" + hex:        "quay.io:443/a/b/c@sha256:" + hex + "=mirror.example.com:5000/olm/a/b/c:v1",
		"busybox:1.36":                              "busybox:1.36=mirror.example.com:5000/olm/library/busybox:1.36",
		"localhost:5000/op-bundle@sha256:" + hex:    "localhost:5000/op-bundle@sha256:" + hex + "=mirror.example.com:5000/olm/op-bundle:sha256-" + hex,
	} {
		got, err := d.mapping(img)
		if err != nil || got != want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", img, got, err, want)
		}
	}
	if _, err := d.mapping("Not A Ref"); err == nil {
		t.Error("a malformed image was mapped")
	}
	for _, bad := range []string{"", "/olm", "mirror.example.com/olm:v1", "mirror.example.com/olm@sha256:00", "mirror example.com"} {
		if _, err := parseMirrorDest(bad); err == nil {
			t.Errorf("--images-mapping %q accepted", bad)
		}
	}
}

// FuzzImagesMapping: any image and destination is mapped or refused with an error, never a panic;
// a mapping is one line with the image as its source side's repository.
func FuzzImagesMapping(f *testing.F) {
	f.Add("mirror.example.com:5000/olm", "registry.redhat.io/ubi8/ubi@sha256:"+strings.Repeat("ab", 32))
	f.Add("mirror.example.com", "quay.io/a/b:v1@sha256:"+strings.Repeat("0f", 32))
	f.Add("docker://m/", "busybox")
	f.Fuzz(func(t *testing.T, dest, image string) {
		d, err := parseMirrorDest(dest)
		if err != nil {
			return
		}
		line, err := d.mapping(image)
		if err != nil {
			return
		}
		src, dst, ok := strings.Cut(line, "=")
		if !ok || strings.ContainsAny(line, "\n") || !strings.HasPrefix(dst, d.registry+"/") || src == "" {
			t.Errorf("%q -> %q", image, line)
		}
	})
}

// render --migrate (and --migrate-level) migrates the bundles of a File-Based Catalog as opm
// render migrates every input: opm's own migrate output of two index.db files, rendered with
// --migrate, gives the bytes of opm's migrate --migrate-level bundle-object-to-csv-metadata.
func TestRenderMigratesFBC(t *testing.T) {
	for _, c := range []string{"kube-green-replaces", "opm-testdata-bundles-substitutesfor"} {
		dir := corpus(t, filepath.Join("sqlite", c))
		got := mustRun(t, "render", filepath.Join(dir, "migrate"), "--migrate")
		want := mustRun(t, "render", filepath.Join(dir, "migrate-csvmeta"))
		if got != want {
			t.Errorf("%s: render --migrate of opm's plain migration differs from opm's csv-metadata migration", c)
		}
		if !strings.Contains(got, `"olm.csv.metadata"`) || strings.Contains(got, `"olm.bundle.object"`) {
			t.Errorf("%s: not migrated", c)
		}
		if level := mustRun(t, "render", filepath.Join(dir, "migrate"), "--migrate-level", "bundle-object-to-csv-metadata"); level != want {
			t.Errorf("%s: --migrate-level differs from --migrate", c)
		}
	}
}
