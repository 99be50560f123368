package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/templatetest"
)

// A template in a pull request cannot reach the runner: a bundle image on a loopback registry, or
// a path on this machine, is refused (render-template: opm's exit 1 and Error: line; other
// commands: exit 2) with the flag that allows it, and allowed with that flag.
func TestTemplateMayNotReachTheRunner(t *testing.T) {
	old := templateRegistriesAllowedInTests
	templateRegistriesAllowedInTests = nil
	t.Cleanup(func() { templateRegistriesAllowedInTests = old })

	c := templatetest.CaseByID(t, "render", "semver-clusterpulse")
	host := templatetest.PushImages(t, c) // 127.0.0.1:PORT
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "semver.yaml")
	writeFile(t, tmpl, templatetest.ToHost(string(c.Read(t, "template.yaml")), host))
	want := templatetest.ToHost(string(c.Read(t, "expected.json")), host)

	code, stdout, stderr := runCLI(t, "render-template", tmpl)
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "Error: ") {
		t.Fatalf("render-template of a loopback registry: exit %d, stdout %d bytes; want exit 1, an Error: line and nothing on stdout\n%s", code, len(stdout), stderr)
	}
	for _, s := range []string{host + "/", "loopback address", "--allow-registry " + host, "\nolmcat: "} {
		if !strings.Contains(stderr, s) {
			t.Errorf("render-template stderr does not say %q:\n%s", s, stderr)
		}
	}
	code, _, stderr = runCLI(t, "validate", tmpl)
	if code != 2 || !strings.Contains(stderr, "--allow-registry "+host) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("validate of a loopback registry: exit %d, want 2 and one line naming --allow-registry %s:\n%s", code, host, stderr)
	}
	for _, allow := range []string{host, "127.0.0.1", "localhost", "127.0.0.0/8"} {
		if got := mustRun(t, "render-template", tmpl, "--allow-registry", allow); got != want {
			t.Errorf("render-template --allow-registry %s: output differs from opm's (%d bytes, want %d)", allow, len(got), len(want))
		}
	}
	mustRun(t, "validate", tmpl, "--allow-registry", host)
	// A --bundles-from that is itself a template renders its bundles under the same rule.
	code, _, stderr = runCLI(t, "validate", tmpl, "--bundles-from", tmpl)
	if code != 2 || !strings.Contains(stderr, "--allow-registry "+host) {
		t.Errorf("validate --bundles-from TEMPLATE of a loopback registry: exit %d, want 2 naming --allow-registry %s:\n%s", code, host, stderr)
	}
	if code, _, stderr := runCLI(t, "validate", tmpl, "--allow-registry", "10.0.0.0/8"); code != 2 || !strings.Contains(stderr, "loopback") {
		t.Errorf("--allow-registry 10.0.0.0/8 allowed a loopback registry: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "validate", tmpl, "--allow-registry", "10.0.0.0/99"); code != 2 || !strings.Contains(stderr, "CIDR") {
		t.Errorf("--allow-registry 10.0.0.0/99: exit %d, want 2 saying CIDR\n%s", code, stderr)
	}

	// An oci-layout: reference: refused without reading it (a missing one is refused alike), read
	// with --allow-local-images.
	lp, err := layout.Write(filepath.Join(dir, "layout"), empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	ref := ""
	for r, img := range c.Images {
		if img.Bundle != "" {
			ref = r
			if err := lp.AppendImage(imagetest.LabelledBundleImage(t, filepath.Join(c.Dir, "bundles", img.Bundle), img.Labels)); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	local := filepath.Join(dir, "local.yaml")
	writeFile(t, local, "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: oci-layout:"+filepath.Join(dir, "layout")+"\n")
	missing := filepath.Join(dir, "missing.yaml")
	writeFile(t, missing, "schema: olm.template.basic\nentries:\n- schema: olm.bundle\n  image: oci-layout:"+filepath.Join(dir, "nothing")+"\n")
	var refusals []string
	for _, file := range []string{local, missing} {
		code, _, stderr := runCLI(t, "render", file)
		if code != 2 || !strings.Contains(stderr, "--allow-local-images") || !strings.Contains(stderr, "a path on this machine") {
			t.Errorf("render of a template naming an oci-layout: exit %d, want 2 naming --allow-local-images:\n%s", code, stderr)
		}
		refusals = append(refusals, strings.ReplaceAll(stderr, filepath.Base(file), "F"))
	}
	if strings.ReplaceAll(refusals[0], filepath.Join(dir, "layout"), "X") != strings.ReplaceAll(refusals[1], filepath.Join(dir, "nothing"), "X") {
		t.Errorf("the refusal tells whether the path exists:\n%s\n%s", refusals[0], refusals[1])
	}
	out := mustRun(t, "render", local, "--allow-local-images")
	if !strings.Contains(out, `"olm.bundle"`) {
		t.Errorf("render --allow-local-images of %s (bundle %s) rendered no bundle:\n%s", local, ref, out)
	}
}
