package bundledir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCorpusBundlesValidate(t *testing.T) {
	for _, dir := range bundleCases(t) {
		r := Validate(dir, ValidateOptions{})
		if r.Errors() > 0 {
			t.Errorf("%s: %v", dir, r.Findings)
		}
		if strings.Contains(dir, "etcd-0.6.1") && !hasFinding(r, SeverityWarning, `default channel "singlenamespace-alpha" is not one of the bundle's channels`) {
			t.Errorf("etcd 0.6.1: no warning about its default channel: %v", r.Findings)
		}
	}
}

func hasFinding(r Report, sev Severity, text string) bool {
	for _, f := range r.Findings {
		if f.Severity == sev && strings.Contains(f.Message, text) {
			return true
		}
	}
	return false
}

func TestValidateLabelsFromDockerfile(t *testing.T) {
	dir := filepath.Join(conformance, "bundles", "cert-utils-operator-1.3.12", "bundle")
	data, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	if err != nil {
		t.Skip("cert-utils bundle not in the corpus")
	}
	labels, form, err := ParseLabels(data)
	if err != nil || form != "Dockerfile" {
		t.Fatalf("ParseLabels: %v (%s)", err, form)
	}
	if r := Validate(dir, ValidateOptions{Labels: labels, LabelsFrom: "Dockerfile"}); len(r.Findings) != 0 {
		t.Errorf("matching labels give findings: %v", r.Findings)
	}
	labels[LabelPackage] = "other"
	delete(labels, LabelChannels)
	r := Validate(dir, ValidateOptions{Labels: labels, LabelsFrom: "Dockerfile"})
	if !hasFinding(r, SeverityError, `is "other" in Dockerfile but "cert-utils-operator" in annotations.yaml`) ||
		!hasFinding(r, SeverityWarning, LabelChannels+" is missing from Dockerfile") {
		t.Errorf("mismatches not reported: %v", r.Findings)
	}
}

// copyBundle copies a corpus bundle directory so a test can break it.
func copyBundle(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(conformance, "bundles", name, "bundle")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("bundle %s not in the corpus", name)
	}
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestBadBundles(t *testing.T) {
	const csv = "manifests/etcdoperator.v0.9.4.clusterserviceversion.yaml"
	cases := []struct {
		name   string
		break_ func(dir string) error
		want   string
	}{
		{"no CSV", func(d string) error { return os.Remove(filepath.Join(d, csv)) }, "no ClusterServiceVersion in manifests/"},
		{"two CSVs", func(d string) error {
			data, _ := os.ReadFile(filepath.Join(d, csv))
			return os.WriteFile(filepath.Join(d, "manifests/zz-second.clusterserviceversion.yaml"), data, 0o644)
		}, "2 ClusterServiceVersions in manifests/"},
		{"annotations not YAML", func(d string) error {
			return os.WriteFile(filepath.Join(d, "metadata/annotations.yaml"), []byte("annotations:\n  a: [unclosed\n  b: c\n"), 0o644)
		}, "metadata/annotations.yaml: not valid YAML"},
		{"no annotations", func(d string) error { return os.Remove(filepath.Join(d, "metadata/annotations.yaml")) }, "no annotations file"},
		{"no manifests dir", func(d string) error { return os.RemoveAll(filepath.Join(d, "manifests")) }, "no manifests/ directory"},
		{"owned CRD missing", func(d string) error {
			return os.Remove(filepath.Join(d, "manifests/etcdbackups.etcd.database.coreos.com.crd.yaml"))
		}, "owns CRD etcdbackups.etcd.database.coreos.com"},
		{"helm", func(d string) error { return setAnnotation(d, LabelMediaType, "helm") }, `media type "helm": only registry+v1`},
		{"version not a string", func(d string) error { return replaceIn(d, csv, "  version: 0.9.4", "  version: 1.5") }, "spec.version must be a string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyBundle(t, "etcd-0.9.4")
			if err := tc.break_(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Parse(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse: got %v, want an error containing %q", err, tc.want)
			}
			if tc.name != "helm" {
				if r := Validate(dir, ValidateOptions{}); r.Errors() == 0 {
					t.Errorf("Validate found no error: %v", r.Findings)
				}
			}
		})
	}
}

func TestValidateAnnotationValues(t *testing.T) {
	dir := copyBundle(t, "etcd-0.9.4")
	must(t, setAnnotation(dir, LabelMediaType, "registry+v2"))
	must(t, setAnnotation(dir, LabelManifests, "manifests-v1/"))
	must(t, setAnnotation(dir, LabelChannels, "alpha,,beta"))
	r := Validate(dir, ValidateOptions{})
	for _, want := range []string{`is "registry+v2": use registry+v1`, `is "manifests-v1/": it must be manifests/`, "channel 2 is empty"} {
		if !hasFinding(r, SeverityError, want) {
			t.Errorf("no error %q in %v", want, r.Findings)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func setAnnotation(dir, key, value string) error {
	p := filepath.Join(dir, "metadata/annotations.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), key+":") {
			line = "  " + key + ": " + value
		}
		out = append(out, line)
	}
	return os.WriteFile(p, []byte(strings.Join(out, "\n")), 0o644)
}

func replaceIn(dir, file, old, new string) error {
	p := filepath.Join(dir, file)
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if !strings.Contains(string(data), old) {
		return os.ErrNotExist
	}
	return os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
}

func TestParseLabelsForms(t *testing.T) {
	const pkg = LabelPackage
	for _, tc := range []struct{ in, form, want string }{
		{`{"` + pkg + `":"etcd"}`, "JSON labels map", "etcd"},
		{`[{"Id":"sha256:x","Config":{"Labels":{"` + pkg + `":"etcd"}}}]`, "docker inspect output", "etcd"},
		{`{"architecture":"amd64","config":{"Labels":{"` + pkg + `":"etcd"}}}`, "image config", "etcd"},
		{pkg + ": etcd\n", "YAML labels map", "etcd"},
		{"FROM scratch\n# c\nLABEL " + pkg + "=\"et cd\" \\\n  other=1\nCOPY a /a\n", "Dockerfile", "et cd"},
		{"FROM scratch\nLABEL " + pkg + " etcd\n", "Dockerfile", "etcd"},
	} {
		labels, form, err := ParseLabels([]byte(tc.in))
		if err != nil || form != tc.form || labels[pkg] != tc.want {
			t.Errorf("%q: got %v %q %q, want %q %q", tc.in, err, form, labels[pkg], tc.form, tc.want)
		}
	}
	for _, bad := range []string{"", "just text", "FROM x\nLABEL \"unterminated=1\n", "[]", "[1]"} {
		if _, _, err := ParseLabels([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
