package crdsafety

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/crdify/pkg/runner"
)

// fixtureVerdicts are the preflight's failures for each fixture's upgrade (v1.0.0 to v2.0.0), as
// operator-controller's crdupgradesafety answered them at df2c201d (recorded with the fixtures
// dumped by TestDumpFixtures; both directions are in testdata/preflight-verdicts.jsonl), sorted.
// nil: the preflight lets the upgrade through. A line ending in "…" is a prefix (crdify prints
// the whole JSONSchemaProps of a oneOf alternative).
var fixtureVerdicts = map[string][]string{
	"default-added":                   {"v1: ^.spec.opt: default: default added when there was none previously : \"\\\"x\\\"\""},
	"default-changed":                 {"v1: ^.spec.replicas: default: default value changed : \"1\" -> \"2\""},
	"default-removed":                 {"v1: ^.spec.replicas: default: default value removed : \"1\""},
	"description-changed":             nil,
	"enum-added":                      {"v1: ^.spec.opt: enum: enum constraint added when there was none previously : [\"x\"]"},
	"enum-narrowed":                   {"v1: ^.spec.mode: enum: allowed enum values removed : [\"b\"]"},
	"enum-widened":                    nil,
	"field-added":                     nil,
	"field-removed":                   {"existingFieldRemoval: removed field : v1.^.spec.opt", "v1: ^.spec.opt: type: type changed : \"string\" -> \"\""},
	"format-added":                    {"v1: ^.spec.opt: unhandled: unhandled changes found (Format \"\" -> \"date-time\")"},
	"items-loosened":                  nil,
	"lengths-loosened":                nil,
	"maximum-added":                   {"v1: ^.spec.replicas: maximum: maximum constraint added when there was none previously : 3"},
	"maximum-lowered":                 {"v1: ^.spec.size: maximum: maximum decreased : 10 -> 5"},
	"maximum-raised":                  nil,
	"maxitems-lowered":                {"v1: ^.spec.tags: maxItems: maximum decreased : 5 -> 3"},
	"maxlength-lowered":               {"v1: ^.spec.name: maxLength: maximum decreased : 20 -> 10"},
	"maxproperties-lowered":           {"v1: ^.spec.labels: maxProperties: maximum decreased : 5 -> 3"},
	"minimum-lowered":                 nil,
	"minimum-raised":                  {"v1: ^.spec.size: minimum: minimum increased : 1 -> 2"},
	"minitems-raised":                 {"v1: ^.spec.tags: minItems: minimum increased : 1 -> 2"},
	"minlength-raised":                {"v1: ^.spec.name: minLength: minimum increased : 1 -> 2"},
	"minproperties-raised":            {"v1: ^.spec.labels: minProperties: minimum increased : 1 -> 2"},
	"nullable-added":                  {"v1: ^.spec.opt: nullable: nullable added : false -> true"},
	"nullable-removed":                {"v1: ^.spec.opt: nullable: nullable removed : true -> false"},
	"oneof-added-alternative":         {"v1: ^.spec.choice: oneOf: allowed oneOf schemas added: [&JSONSchemaProps{ID:,Schema:,Ref:nil,…"},
	"oneof-removed-alternative":       {"existingFieldRemoval: removed field : v1.^.spec.choice.oneOf[1]", "v1: ^.spec.choice: oneOf: allowed oneOf schemas removed: [&JSONSchemaProps{ID:,Schema:,Ref:nil,…"},
	"pattern-added":                   {"v1: ^.spec.opt: pattern: pattern added : \"\" -> \"^x\""},
	"pattern-changed":                 {"v1: ^.spec.name: pattern: pattern changed : \"^[a-z]+$\" -> \"^[a-z0-9]+$\""},
	"pattern-removed":                 {"v1: ^.spec.name: pattern: pattern removed : \"^[a-z]+$\" -> \"\""},
	"properties-loosened":             nil,
	"required-added":                  {"v1: ^.spec: required: new required fields: [name size]"},
	"required-dropped":                nil,
	"same":                            nil,
	"scope":                           {"scope: scope changed : \"Namespaced\" -> \"Cluster\""},
	"served-version-unserved":         nil,
	"served-versions-differ":          {"v1 -> v2: ^.spec.mode: enum: allowed enum values removed : [\"b\"]"},
	"served-versions-differ-webhook":  nil,
	"served-versions-differed-before": nil,
	"stored-version-removed":          {"storedVersionRemoval: stored versions removed : [v1alpha1]"},
	"type-changed":                    {"v1: ^.spec.opt: type: type changed : \"string\" -> \"integer\""},
	"unstored-version-removed":        nil,
}

func TestChecksOnFixtures(t *testing.T) {
	if len(fixtureVerdicts) != len(fixtures) {
		t.Fatalf("%d verdicts for %d fixtures", len(fixtureVerdicts), len(fixtures))
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			want, ok := fixtureVerdicts[f.name]
			if !ok {
				t.Fatal("no recorded verdict")
			}
			ob, nb := f.bundles(t)
			installed, next := FromBundle(ob).CRDs["widgets.example.com"], FromBundle(nb).CRDs["widgets.example.com"]
			fails, err := Check(installed, next)
			if err != nil {
				t.Fatal(err)
			}
			got := failureLines(fails)
			if len(got) != len(want) {
				t.Fatalf("got %q, the preflight said %q", got, want)
			}
			for i := range want {
				if p, prefix := strings.CutSuffix(want[i], "…"); prefix && strings.HasPrefix(got[i], p) || got[i] == want[i] {
					continue
				}
				t.Errorf("got %q, the preflight said %q", got[i], want[i])
			}
		})
	}
}

// Every validation the preflight runs fails at least one fixture, and the one it does not run
// (description) none: a crdify update that adds a check makes this test name it.
func TestFixturesCoverEveryCheck(t *testing.T) {
	failed := map[string]bool{}
	for _, f := range fixtures {
		ob, nb := f.bundles(t)
		fails, err := Check(FromBundle(ob).CRDs["widgets.example.com"], FromBundle(nb).CRDs["widgets.example.com"])
		if err != nil {
			t.Fatal(err)
		}
		for _, fl := range fails {
			failed[fl.Check] = true
		}
	}
	checks := append(runner.DefaultRegistry().Registered(), "unhandled")
	slices.Sort(checks)
	for _, c := range checks {
		if c == "description" {
			if failed[c] {
				t.Errorf("the preflight does not run %s, yet it failed", c)
			}
			continue
		}
		if !failed[c] {
			t.Errorf("no fixture fails check %s", c)
		}
	}
	if len(checks) != 20 {
		t.Errorf("crdify runs %d checks (%v); the fixtures cover 19 and description", len(checks), checks)
	}
}

// OLM v0's own stored-version check (lib/crd SafeStorageVersionUpgrade, and the catalog operator's
// wording of its error).
func TestRemovedStoredVersions(t *testing.T) {
	byName := map[string]fixture{}
	for _, f := range fixtures {
		byName[f.name] = f
	}
	for name, want := range map[string][]string{
		"stored-version-removed":   {"v1alpha1"},
		"unstored-version-removed": nil,
		"scope":                    nil,
	} {
		ob, nb := byName[name].bundles(t)
		installed, next := FromBundle(ob).CRDs["widgets.example.com"], FromBundle(nb).CRDs["widgets.example.com"]
		if got := RemovedStoredVersions(installed, next); !slices.Equal(got, want) {
			t.Errorf("%s: removed stored versions %v, want %v", name, got, want)
		}
	}
	if got, want := V0Message("widgets.example.com", "v1alpha1"), `risk of data loss updating "widgets.example.com": new CRD removes version v1alpha1 that is listed as a stored version on the existing CRD`; got != want {
		t.Errorf("V0Message = %q", got)
	}
}

// The installed CRD is the manifest as the API server creates it: the manifest's status ignored,
// the storage version stored, conversion None when unset.
func TestInstalled(t *testing.T) {
	crd := baseCRD()
	crd["status"] = object{"storedVersions": []any{"v0"}}
	ob, _ := fixture{name: "installed", oldCRD: func() object { return crd }}.bundles(t)
	in := FromBundle(ob).CRDs["widgets.example.com"].Installed()
	if !slices.Equal(in.Status.StoredVersions, []string{"v1"}) {
		t.Errorf("stored versions %v, want [v1]", in.Status.StoredVersions)
	}
	if in.Spec.Conversion == nil || in.Spec.Conversion.Strategy != "None" {
		t.Errorf("conversion %+v, want strategy None", in.Spec.Conversion)
	}
}
