package filter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
)

const twoCatalogs = `apiVersion: mirror.openshift.io/v2alpha1
kind: ImageSetConfiguration
mirror:
  platform:
    channels:
    - name: stable-4.18
  additionalImages:
  - name: registry.redhat.io/ubi8/ubi:latest
  operators:
  - catalog: registry.redhat.io/redhat/redhat-operator-index:v4.18
    packages:
    - name: elasticsearch-operator
      defaultChannel: stable-v0
      channels:
      - name: stable-v0
        minVersion: 5.6.0
  - catalog: registry.redhat.io/redhat/community-operator-index:v4.18
    full: true
    packages:
    - name: infinispan
`

func TestParseISC(t *testing.T) {
	cfg, err := ParseConfig([]byte(twoCatalogs), "isc.yaml", Selector{Index: -1, Catalog: "registry.redhat.io/redhat/redhat-operator-index:v4.18"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Full || len(cfg.Packages) != 1 || cfg.Packages[0].DefaultChannel != "stable-v0" || cfg.Packages[0].Channels[0].Range.String() != "minVersion 5.6.0" {
		t.Errorf("parsed %+v", cfg)
	}
	if !cfg.Packages[0].Channels[0].Range.Contains(semver.MustParse("5.6.1")) || cfg.Packages[0].Channels[0].Range.Contains(semver.MustParse("5.5.9")) {
		t.Error("range 5.6.0 and up")
	}
	cfg, err = ParseConfig([]byte(twoCatalogs), "isc.yaml", Selector{Index: 1})
	if err != nil || !cfg.Full || cfg.Packages[0].Name != "infinispan" {
		t.Errorf("--operator 1: %+v %v", cfg, err)
	}
	cfg, err = ParseConfig([]byte(twoCatalogs), "isc.yaml", Selector{Index: -1, Catalog: "docker://registry.redhat.io/redhat/community-operator-index:v4.18"})
	if err != nil || !cfg.Full {
		t.Errorf("docker:// reference: %+v %v", cfg, err)
	}
	if !sameCatalog("oci:///srv/catalog", "oci-layout:/srv/catalog/") || sameCatalog("oci:///srv/a", "oci-layout:/srv/b") {
		t.Error("oci:// and oci-layout: name the same layout")
	}
	_, err = ParseConfig([]byte(twoCatalogs), "isc.yaml", Selector{Index: -1, Catalog: "other:v1"})
	if err == nil || !strings.Contains(err.Error(), "--operator") || !strings.Contains(err.Error(), "community-operator-index") {
		t.Errorf("no entry for the catalog: %v", err)
	}
	_, err = ParseConfig([]byte(twoCatalogs), "isc.yaml", Selector{Index: 2})
	if err == nil || !strings.Contains(err.Error(), "2 entries") {
		t.Errorf("--operator 2: %v", err)
	}
}

// TestUnknownKeyIsNamed: a misspelled key is refused with its name and line, at any depth.
func TestUnknownKeyIsNamed(t *testing.T) {
	for _, tc := range []struct{ from, to, key, line string }{
		{"minVersion: 5.6.0", "minVerison: 5.6.0", "minVerison", "isc.yaml:16"},
		{"    packages:\n    - name: infinispan", "    pakages:\n    - name: infinispan", "pakages", "isc.yaml:19"},
		{"defaultChannel: stable-v0", "defaultChanel: stable-v0", "defaultChanel", "isc.yaml:13"},
	} {
		text := strings.Replace(twoCatalogs, tc.from, tc.to, 1)
		_, err := ParseConfig([]byte(text), "isc.yaml", Selector{Index: 0})
		if err == nil || !strings.Contains(err.Error(), `"`+tc.key+`"`) || !strings.HasPrefix(err.Error(), tc.line+":") {
			t.Errorf("%s: got %v", tc.key, err)
		}
	}
}

func TestConfigRefusals(t *testing.T) {
	if _, err := ParseConfig([]byte(strings.Replace(twoCatalogs, "    - name: infinispan\n", "    - name: infinispan\n      minVersion: 1.0.0\n", 1)), "isc.yaml", Selector{Index: 1}); err == nil || !strings.Contains(err.Error(), "full: true cannot be combined") {
		t.Errorf("full and a range: %v", err)
	}
	for _, tc := range []struct{ text, want string }{
		{strings.Replace(twoCatalogs, "      defaultChannel: stable-v0\n", "      maxVersion: 6.0.0\n", 1), "set one of them"},
		{strings.Replace(twoCatalogs, "minVersion: 5.6.0", "minVersion: five", 1), "not a semantic version"},
		{strings.Replace(twoCatalogs, "minVersion: 5.6.0", "minVersion: 5.6.0\n        maxVersion: 5.0.0", 1), "above maxVersion"},
		{strings.Replace(twoCatalogs, "v2alpha1", "v1alpha1", 1), "v2alpha1"},
		{"kind: Pod\napiVersion: v1\n", "give an ImageSetConfiguration"},
		{"kind: [", "not a YAML"},
		{twoCatalogs + "---\n" + twoCatalogs, "holds a second YAML document, at line " + fmt.Sprint(strings.Count(twoCatalogs, "\n")+2)},
		{strings.Replace(twoCatalogs, "minVersion: 5.6.0", "minVersion: \""+strings.Repeat("1.", 100000)+"\"", 1), `(200000 bytes) is not a semantic version (e.g. 1.2.3): Invalid character(s) found in patch number`},
	} {
		_, err := ParseConfig([]byte(tc.text), "isc.yaml", Selector{Index: 0})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}

func TestParseFilterConfiguration(t *testing.T) {
	text := `apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1
kind: FilterConfiguration
packages:
- name: habana
  versionRange: ">=1.21.0, <1.22.0"
- name: infinispan
  channels:
  - name: 2.4.x
    versionRange: 2.4.x
`
	cfg, err := ParseConfig([]byte(text), "f.yaml", Selector{Index: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Packages[0].Range
	if !r.Contains(semver.MustParse("1.21.1-600")) || r.Contains(semver.MustParse("1.21.0-555")) || r.Contains(semver.MustParse("1.22.0")) {
		t.Errorf("range %s", r)
	}
	if !cfg.Packages[1].Channels[0].Range.Contains(semver.MustParse("2.4.18")) {
		t.Error("2.4.x")
	}
	if _, err := ParseConfig([]byte(strings.Replace(text, "versionRange: 2.4.x", "versionRang: 2.4.x", 1)), "f.yaml", Selector{Index: -1}); err == nil || !strings.Contains(err.Error(), "f.yaml:9") {
		t.Errorf("unknown key: %v", err)
	}
}

func TestFromFlags(t *testing.T) {
	cfg, err := FromFlags(Flags{Packages: []string{"a"}, Channels: []string{"b/stable", "b/fast"},
		MinVersions: []string{"a=1.0.0", "b/fast=2.0.0"}, MaxVersions: []string{"a=1.5.0"}, DefaultChannels: []string{"b=fast"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Packages) != 2 || cfg.Packages[0].Range.String() != "minVersion 1.0.0, maxVersion 1.5.0" ||
		cfg.Packages[1].DefaultChannel != "fast" || len(cfg.Packages[1].Channels) != 2 || cfg.Packages[1].Channels[1].Range.String() != "minVersion 2.0.0" {
		t.Errorf("%+v", cfg)
	}
	cfg, err = FromFlags(Flags{Bundles: []string{"a/a.v1.0.0", "a/a.v1.1.0"}, DefaultChannels: []string{"a=fast"}})
	if err != nil || len(cfg.Packages) != 1 || strings.Join(cfg.Packages[0].Bundles, " ") != "a.v1.0.0 a.v1.1.0" || cfg.Packages[0].DefaultChannel != "fast" {
		t.Errorf("--bundle: %+v, %v", cfg, err)
	}
	for _, f := range []Flags{
		{Bundles: []string{"a.v1.0.0"}}, {Bundles: []string{"a/"}}, {Bundles: []string{"a/x"}, Channels: []string{"a/stable"}},
		{Bundles: []string{"a/x"}, Full: true}, {Bundles: []string{"a/x"}, MinVersions: []string{"a=1.0.0"}},
		{Channels: []string{"nochannel"}}, {MinVersions: []string{"a"}}, {MinVersions: []string{"/c=1.0.0"}},
		{DefaultChannels: []string{"a"}}, {Full: true, MaxVersions: []string{"a=1.0.0"}}, {MinVersions: []string{"a=x"}},
	} {
		if _, err := FromFlags(f); err == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}

// FuzzParseConfig: any document is parsed or refused with an error, never a panic, and what parses
// passes its own checks.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(twoCatalogs), 0)
	f.Add([]byte(bundlesISC("      defaultChannel: stable-1.0\n", "sailoperator.v1.0.0", "sailoperator.v1.27.1")), 0)
	f.Add([]byte("apiVersion: olm.operatorframework.io/filter/mirror/v1alpha1\nkind: FilterConfiguration\npackages:\n- name: a\n  versionRange: '>=1.0.0 <2.0.0 || 3.x'\n"), -1)
	f.Add([]byte("apiVersion: mirror.openshift.io/v1alpha2\nkind: ImageSetConfiguration\nstorageConfig:\n  local:\n    path: /tmp/m\nmirror:\n  operators:\n  - catalog: x\n    targetName: y\n    packages:\n    - name: a\n      minBundle: a.v1\n"), -1)
	if files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "conformance", "filter", "*", "isc.yaml")); len(files) > 0 {
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data, -1)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, index int) {
		if index < -1 || index > 4 {
			index = -1
		}
		cfg, err := ParseConfig(data, "fuzz.yaml", Selector{Index: index, Catalog: "x"})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		if err := cfg.Check(); err != nil {
			t.Errorf("parsed config fails its check: %v", err)
		}
		for _, p := range cfg.Packages {
			p.Range.Contains(semver.MustParse("1.0.0"))
		}
	})
}

// An oc-mirror v1 ImageSetConfiguration (v1alpha2) is read as the same v2alpha1 one, its
// storageConfig and targetName accepted and named in the notice; v1's keys in a v2alpha1 file, and
// minBundle (a range olmcat cannot honour), are refused with their line.
func TestParseISCv1alpha2(t *testing.T) {
	v2, err := ParseConfig([]byte(twoCatalogs), "isc.yaml", Selector{Index: 0})
	if err != nil {
		t.Fatal(err)
	}
	v1text := strings.Replace(twoCatalogs, "v2alpha1", "v1alpha2", 1)
	v1text = strings.Replace(v1text, "kind: ImageSetConfiguration\n", "kind: ImageSetConfiguration\nstorageConfig:\n  registry:\n    imageURL: mirror.example:5000/oc-mirror-metadata\n    skipTLS: false\n", 1)
	v1, err := ParseConfig([]byte(v1text), "isc.yaml", Selector{Index: 0})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Notice != "" || !strings.Contains(v1.Notice, "oc-mirror v1") || !strings.Contains(v1.Notice, "storageConfig") {
		t.Errorf("notices: v2 %q, v1 %q", v2.Notice, v1.Notice)
	}
	v1.Notice = ""
	if fmt.Sprint(v1.Packages) != fmt.Sprint(v2.Packages) || v1.Full != v2.Full {
		t.Errorf("v1alpha2 read otherwise than v2alpha1:\n%+v\n%+v", v1, v2)
	}
	withStorage := strings.Replace(v1text, "v1alpha2", "v2alpha1", 1)
	if _, err := ParseConfig([]byte(withStorage), "isc.yaml", Selector{Index: 0}); err == nil || !strings.Contains(err.Error(), `"storageConfig" is a key of oc-mirror v1`) || !strings.HasPrefix(err.Error(), "isc.yaml:3:") {
		t.Errorf("storageConfig in v2alpha1: %v", err)
	}
	minBundle := strings.Replace(v1text, "minVersion: 5.6.0", "minBundle: foo.v5.6.0", 1)
	if _, err := ParseConfig([]byte(minBundle), "isc.yaml", Selector{Index: 0}); err == nil || !strings.Contains(err.Error(), "minBundle") || !strings.Contains(err.Error(), "minVersion") {
		t.Errorf("minBundle: %v", err)
	}
}
