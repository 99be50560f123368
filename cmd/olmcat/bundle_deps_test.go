package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleMalformedDependencies: a bundle whose dependencies.yaml has its fields beside value:
// (as community-operators-prod's eventing-kogito 1.2.0) renders as opm renders it, with a warning
// naming file, line and dependency; --strict refuses it with the same message; validate bundle
// warns, or errs with --strict.
func TestBundleMalformedDependencies(t *testing.T) {
	dir := copyTree(t, corpus(t, "bundles/etcd-0.9.4/bundle"))
	deps := "---\ndependencies:\n  - type: olm.package\n    value:\n    packageName: knative-eventing-operator\n    version: \">=0.20.0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "metadata", "dependencies.yaml"), []byte(deps), 0o644); err != nil {
		t.Fatal(err)
	}
	const msg = "/metadata/dependencies.yaml:3: dependency 1 (type olm.package) has no readable value (packageName and version are not under value:); opm renders it as an olm.package.required with an empty packageName and versionRange"
	want := "olmcat: warning: " + filepath.ToSlash(dir) + msg
	for _, spelling := range [][]string{{"render", "bundle"}, {"bundle", "render"}} {
		code, out, errs := runCLI(t, append(spelling, dir)...)
		if code != 0 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %q", spelling, code, errs, want)
		}
		if !strings.Contains(out, `"packageName": "",`) || !strings.Contains(out, `"type": "olm.package.required"`) {
			t.Errorf("%s: the empty olm.package.required opm renders is missing:\n%.3000s", spelling, out)
		}
		code, out, errs = runCLI(t, append(spelling, dir, "--strict")...)
		if code != exitFindings || out != "" || !strings.Contains(errs, "olmcat: "+filepath.ToSlash(dir)+msg) || strings.Contains(errs, "warning:") {
			t.Errorf("%s --strict: exit %d, stdout %d bytes, stderr:\n%s", spelling, code, len(out), errs)
		}
	}
	code, out, _ := runCLI(t, "validate", "bundle", dir)
	if code != 0 || !strings.Contains(out, "metadata/dependencies.yaml:3: warning: dependency 1 (type olm.package)") {
		t.Errorf("validate bundle: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "bundle", "validate", dir, "--strict")
	if code != exitFindings || !strings.Contains(out, "metadata/dependencies.yaml:3: error: dependency 1 (type olm.package)") {
		t.Errorf("validate bundle --strict: exit %d\n%s", code, out)
	}
}
