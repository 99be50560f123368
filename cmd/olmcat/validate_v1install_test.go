package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// olmcat validate says v1-not-installable for exactly the bundles OLM v1's own code refused to
// install or to resolve to (../shared/conformance/olmv1/*/install.jsonl: not ok at the default
// gates, or a dependencyError), each once, with the bundle, the package, the source judged and
// whether the SingleOwnNamespace gate helps as the recording says.
func TestValidateV1NotInstallable(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformance, "olmv1", "*", "install.jsonl"))
	if len(files) == 0 {
		t.Skipf("OLM v1 recordings not found at %s/olmv1 (run with /work/shared present)", conformance)
	}
	findings := 0
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		type verdict struct {
			Package, Bundle, Source, Error, DependencyError string
			OK                                              bool
			OKWithGate                                      bool `json:"okWithSingleOwnNamespaceGate"`
		}
		want := map[string]verdict{}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var v verdict
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			if !v.OK || v.DependencyError != "" {
				want[v.Package+"/"+v.Bundle] = v
			}
		}
		f.Close()
		_, out, _ := runCLI(t, "validate", "-o", "json", filepath.Join(conformance, "fbc", name, "catalog"))
		var report struct {
			Issues []struct {
				Severity, Rule, Package, Bundle, Message string
				OLM                                      []string
			}
		}
		if err := json.Unmarshal([]byte(out), &report); err != nil {
			t.Fatalf("%s: %v\n%.300s", name, err, out)
		}
		got := map[string]bool{}
		for _, i := range report.Issues {
			if i.Rule != "v1-not-installable" {
				continue
			}
			key := i.Package + "/" + i.Bundle
			w, ok := want[key]
			if !ok || got[key] {
				t.Errorf("%s: unexpected or repeated finding for %s: %s", name, key, i.Message)
				continue
			}
			got[key] = true
			findings++
			if i.Severity != "warning" || len(i.OLM) != 1 || i.OLM[0] != "v1" {
				t.Errorf("%s: %s: severity %s, olm %v", name, key, i.Severity, i.OLM)
			}
			mustSay := []string{}
			if !w.OK {
				mustSay = append(mustSay, w.Error, "judged from its olm."+strings.Replace(w.Source, "bundle.object", "bundle.object manifests", 1))
				if w.OKWithGate {
					mustSay = append(mustSay, "with the SingleOwnNamespaceInstallSupport feature gate on, it installs")
				} else {
					mustSay = append(mustSay, "the SingleOwnNamespaceInstallSupport feature gate does not help")
				}
			}
			if w.DependencyError != "" {
				mustSay = append(mustSay, w.DependencyError)
			}
			for _, s := range mustSay {
				if !strings.Contains(i.Message, s) {
					t.Errorf("%s: %s: the message lacks %q: %s", name, key, s, i.Message)
				}
			}
		}
		for key := range want {
			if !got[key] {
				t.Errorf("%s: no v1-not-installable for %s (OLM v1 refuses it: %+v)", name, key, want[key])
			}
		}
	}
	if findings == 0 {
		t.Fatal("the recordings no longer hold a bundle OLM v1 refuses")
	}
	t.Logf("%d v1-not-installable findings, as recorded", findings)
}
