package filter

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc/model"
)

// bundlesISC is an ImageSetConfiguration selecting bundles of sailoperator (oc-mirror v2's
// packages[].bundles), with extra lines for the package entry.
func bundlesISC(extra string, bundles ...string) string {
	s := "apiVersion: mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\nmirror:\n  operators:\n  - catalog: registry.example/catalog:v4\n    packages:\n    - name: sailoperator\n" + extra + "      bundles:\n"
	for _, b := range bundles {
		s += "      - name: " + b + "\n"
	}
	return s
}

// TestSelectedBundles filters sailoperator of the corpus's input (stable: 1.25.0 to 1.30.3, and a
// channel per minor version) by bundle name: each named bundle in each channel holding it, the
// bundles OLM's path between two named ones needs, no other channel; the catalog valid and every
// kept bundle reaching its kept head.
func TestSelectedBundles(t *testing.T) {
	root := corpus(t)
	input := filepath.Join(root, "input")
	run := func(t *testing.T, text string) (*Report, []string, []string, error) {
		t.Helper()
		cfg, err := ParseConfig([]byte(text), "isc.yaml", Selector{Index: -1, Catalog: "registry.example/catalog:v4"})
		if err != nil {
			t.Fatal(err)
		}
		got, rep, err := Collect(context.Background(), openCatalog(t, input), cfg)
		if err != nil {
			return nil, nil, nil, err
		}
		if issues := model.ValidateCatalog(got, model.Options{}).Errors(); len(issues) > 0 {
			t.Errorf("filtered catalog is invalid: %v", issues)
		}
		if cut := rep.CutOff(); len(cut) > 0 {
			t.Errorf("kept bundles not reaching their head: %v", cut)
		}
		var channels []string
		for _, c := range got.Channels {
			var entries []string
			for _, e := range c.Entries {
				entries = append(entries, strings.TrimPrefix(e.Name, "sailoperator."))
			}
			slices.Sort(entries)
			channels = append(channels, c.Name+"="+strings.Join(entries, ","))
		}
		slices.Sort(channels)
		return rep, channels, keptNames(got), nil
	}

	rep, channels, bundles, err := run(t, bundlesISC("", "sailoperator.v1.27.1"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(channels, " ") != "stable-1.27=v1.27.1 stable=v1.27.1" || strings.Join(bundles, " ") != "sailoperator.v1.27.1" {
		t.Errorf("one bundle: channels %v, bundles %v", channels, bundles)
	}
	if !slices.Contains(rep.Images, "quay.io/community-operator-pipeline-prod/sailoperator:1.27.1") {
		t.Errorf("images %v lack the bundle's image", rep.Images)
	}
	if p := rep.Packages[0]; p.DefaultChannel != "stable" || len(p.Channels) != 2 || !strings.HasPrefix(p.Channels[0].Selection, "bundles ") {
		t.Errorf("report %+v", p)
	}

	// Two bundles of stable far apart: OLM's path from the lower to the higher is kept too.
	rep, channels, _, err = run(t, bundlesISC("", "sailoperator.v1.26.1", "sailoperator.v1.28.0"))
	if err != nil {
		t.Fatal(err)
	}
	var stable string
	for _, c := range channels {
		if strings.HasPrefix(c, "stable=") {
			stable = c
		}
	}
	if !strings.Contains(stable, "v1.26.1") || !strings.Contains(stable, "v1.28.0") || !slices.Contains(channels, "stable-1.26=v1.26.1") || !slices.Contains(channels, "stable-1.28=v1.28.0") || len(channels) != 3 {
		t.Errorf("two bundles: channels %v", channels)
	}
	added := 0
	for _, c := range rep.Packages[0].Channels {
		added += len(c.Added)
		if c.Channel == "stable" && c.Head != "sailoperator.v1.28.0" {
			t.Errorf("stable's kept head is %s", c.Head)
		}
	}
	if added != len(strings.Split(strings.TrimPrefix(stable, "stable="), ","))-2 {
		t.Errorf("stable keeps %s, the report adds %d", stable, added)
	}

	// A bundle only in a channel that is not the default: the default channel must be set.
	_, _, _, err = run(t, bundlesISC("", "sailoperator.v1.0.0"))
	var fe *Error
	if !errors.As(err, &fe) || fe.Channel != "stable" || !strings.Contains(err.Error(), "defaultChannel") || !strings.Contains(err.Error(), "stable-1.0") {
		t.Errorf("default channel filtered away: %v", err)
	}
	if _, channels, _, err = run(t, bundlesISC("      defaultChannel: stable-1.0\n", "sailoperator.v1.0.0")); err != nil || strings.Join(channels, " ") != "stable-1.0=v1.0.0" {
		t.Errorf("with defaultChannel: %v %v", channels, err)
	}

	// A name the package lacks is refused, with the names near it.
	_, _, _, err = run(t, bundlesISC("", "sailoperator.v1.27.9"))
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "no bundle sailoperator.v1.27.9") || !strings.Contains(err.Error(), "sailoperator.v1.27.1") {
		t.Errorf("unknown bundle: %v", err)
	}
}

// TestSelectedBundlesRefusedWith: oc-mirror refuses bundles beside channels, a range or full.
func TestSelectedBundlesRefusedWith(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{bundlesISC("      channels:\n      - name: stable\n", "sailoperator.v1.27.1"), "bundles and channels"},
		{bundlesISC("      minVersion: 1.27.0\n", "sailoperator.v1.27.1"), "bundles and a version range"},
		{strings.Replace(bundlesISC("", "sailoperator.v1.27.1"), "    packages:", "    full: true\n    packages:", 1), "full: true keeps every bundle"},
		{bundlesISC("", "sailoperator.v1.27.1", "sailoperator.v1.27.1"), "twice"},
		{bundlesISC("", `""`), "has no name"},
	} {
		_, err := ParseConfig([]byte(tc.text), "isc.yaml", Selector{Index: 0})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v\n%s", tc.want, err, tc.text)
		}
	}
}

// TestSelectedBundlesOnTwoBranches: two bundles that only the channel's head joins (it skips
// both) keep the head too, so that the channel has one head.
func TestSelectedBundlesOnTwoBranches(t *testing.T) {
	text := `---
schema: olm.package
name: p
defaultChannel: stable
---
schema: olm.channel
package: p
name: stable
entries:
- name: p.v1.0.0
- name: p.v1.0.1
- name: p.v2.0.0
  skips: [p.v1.0.0, p.v1.0.1]
`
	for _, v := range []string{"1.0.0", "1.0.1", "2.0.0"} {
		text += bundleYAML("p", "p.v"+v, v)
	}
	out, rep, err := filterPackage("p", load(t, text), &Package{Name: "p", Bundles: []string{"p.v1.0.0", "p.v1.0.1"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keptNames(out), " "); got != "p.v1.0.0 p.v1.0.1 p.v2.0.0" {
		t.Errorf("kept %s", got)
	}
	if c := rep.Channels[0]; c.Head != "p.v2.0.0" || len(c.Added) != 1 || c.Added[0].Bundle != "p.v2.0.0" {
		t.Errorf("report %+v", c)
	}
	if errs := model.ValidateCatalog(out, model.Options{}).Errors(); len(errs) > 0 {
		t.Errorf("invalid: %v", errs)
	}
}
