package v1install_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/v1install"
)

const conformanceDir = "../../../shared/conformance"

// recorderNamespaces are the namespaces the recording program tried with the gate on (its
// ClusterExtension's install namespace, and the other namespace given as watchNamespace).
var recorderNamespaces = v1install.Namespaces{Install: "oracle-install-ns", Other: "other-ns"}

// recordedInstall is a line of olmv1/*/install.jsonl, or the install field of resolve.jsonl.
type recordedInstall struct {
	Package string `json:"package"`
	v1install.Verdict
}

type recordedResolve struct {
	Package string             `json:"package"`
	Install *v1install.Verdict `json:"install"`
}

// TestConformanceOLMv1Install judges every bundle operator-controller's installer judged (recorded
// from its code at df2c201d) and compares each field of the verdict exactly: source, verdict and
// error at default gates, verdict, error and accepted configuration with
// SingleOwnNamespaceInstallSupport on, and NoDependencyValidation's error. Then the install field
// of every resolve.jsonl answer (the verdict of the pick).
func TestConformanceOLMv1Install(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "olmv1", "*", "install.jsonl"))
	if len(files) == 0 {
		t.Skipf("OLM v1 recordings not found at %s/olmv1 (run with /work/shared present)", conformanceDir)
	}
	var total, refused, gateAccepted, gateRefused, dependency, picks int
	sources := map[v1install.Source]int{}
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		t.Run(name, func(t *testing.T) {
			side, err := input.Open(context.Background(), filepath.Join(conformanceDir, "fbc", name, "catalog"), input.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(side.Problems) > 0 {
				t.Fatalf("catalog %s does not load cleanly: %v", name, side.Problems)
			}
			bundles := map[string]*fbc.Bundle{}
			for i := range side.Catalog.Bundles {
				b := &side.Catalog.Bundles[i]
				bundles[b.Package+"/"+b.Name] = b
			}
			judged := map[string]bool{}
			forEachLine(t, file, func(line int, text []byte) {
				var rec recordedInstall
				if err := json.Unmarshal(text, &rec); err != nil {
					t.Fatalf("%s:%d: %v", file, line, err)
				}
				b := bundles[rec.Package+"/"+rec.Bundle]
				if b == nil {
					t.Fatalf("%s:%d: bundle %s/%s is not in the catalog", file, line, rec.Package, rec.Bundle)
				}
				judged[rec.Package+"/"+rec.Bundle] = true
				total++
				sources[rec.Source]++
				if !rec.OK {
					refused++
					if rec.OKWithGate {
						gateAccepted++
					} else {
						gateRefused++
					}
				}
				if rec.DependencyError != "" {
					dependency++
				}
				compareVerdict(t, file, line, v1install.JudgeIn(b, recorderNamespaces), rec.Verdict)
			})
			if len(judged) != len(bundles) {
				t.Errorf("%s: %d bundles recorded, the catalog has %d", file, len(judged), len(bundles))
			}
			// the install verdict of each pick in resolve.jsonl
			forEachLine(t, filepath.Join(filepath.Dir(file), "resolve.jsonl"), func(line int, text []byte) {
				var rec recordedResolve
				if err := json.Unmarshal(text, &rec); err != nil {
					t.Fatalf("resolve.jsonl:%d: %v", line, err)
				}
				if rec.Install == nil {
					return
				}
				b := bundles[rec.Package+"/"+rec.Install.Bundle]
				if b == nil {
					t.Fatalf("resolve.jsonl:%d: picked bundle %s is not in the catalog", line, rec.Install.Bundle)
				}
				picks++
				compareVerdict(t, file+" (resolve.jsonl)", line, v1install.JudgeIn(b, recorderNamespaces), *rec.Install)
			})
		})
	}
	t.Logf("%d recorded verdicts (%v): %d refused at default gates (%d accepted with the SingleOwnNamespace gate, %d not), %d with dependency properties; %d picks' verdicts",
		total, sources, refused, gateAccepted, gateRefused, dependency, picks)
	if sources[v1install.SourceBundleObject] == 0 || sources[v1install.SourceCSVMetadata] == 0 || gateAccepted == 0 || gateRefused == 0 || dependency == 0 || picks == 0 {
		t.Fatalf("the recordings no longer cover both sources, gate-accepted and gate-refused bundles, dependency refusals and picks")
	}
}

// compareVerdict compares every recorded field (the fields no recording holds are left out).
func compareVerdict(t *testing.T, file string, line int, got, want v1install.Verdict) {
	t.Helper()
	got.Gate, got.Webhooks = 0, false
	if got != want {
		t.Errorf("%s:%d: bundle %s\n got  %+v\n want %+v", file, line, want.Bundle, got, want)
	}
}

func forEachLine(t *testing.T, file string, each func(line int, text []byte)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		each(line, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// The inline checker (diff's) finds what the worker checker (validate's) finds, on every recorded
// catalog.
func TestInlineCheckerAgrees(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "olmv1", "*", "install.jsonl"))
	if len(files) == 0 {
		t.Skipf("OLM v1 recordings not found at %s/olmv1 (run with /work/shared present)", conformanceDir)
	}
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		side, err := input.Open(context.Background(), filepath.Join(conformanceDir, "fbc", name, "catalog"), input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		workers, inline := v1install.NewChecker(), v1install.NewInlineChecker()
		for i := range side.Catalog.Bundles {
			workers.CheckBundle(&side.Catalog.Bundles[i])
			inline.CheckBundle(&side.Catalog.Bundles[i])
		}
		brief := func(is model.Issues) []string {
			var out []string
			for _, i := range is {
				out = append(out, i.Rule+" "+i.Package+" "+i.Bundle+" "+i.Message)
			}
			slices.Sort(out)
			return out
		}
		w, in := brief(workers.Finish()), brief(inline.Finish())
		if len(w) == 0 && name == "community-v4.12-bundleobject-subset" {
			t.Errorf("%s: no finding at all", name)
		}
		if !slices.Equal(w, in) {
			t.Errorf("%s: the inline checker found %d findings, the workers %d", name, len(in), len(w))
		}
	}
}
