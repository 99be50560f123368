package convert

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// TestEverySchemaVersion builds the same package at every schema version opm wrote (0 to 13) and
// converts each. The catalog must be the same at every version: what a version lacks (related_image
// before 1, bundlepath before 2, api_requirer before 3, version/skiprange before 5, the
// dependencies and properties tables before 8 and 9) is derived in memory as opm's migrations
// would, or recovered from the CSV where the migrations would have lost it, and each such recovery
// is a departure.
func TestEverySchemaVersion(t *testing.T) {
	var reference []byte
	for version := 13; version >= 0; version-- {
		t.Run(fmt.Sprintf("schema%d", version), func(t *testing.T) {
			path := buildLegacyIndex(t, version)
			before, _ := os.ReadFile(path)
			out := filepath.Join(t.TempDir(), "out")
			report, err := migrateIndex(path, out, MigrateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if report.SchemaVersion != version {
				t.Errorf("read as schema %d", report.SchemaVersion)
			}
			got, err := os.ReadFile(filepath.Join(out, "demo", "catalog.json"))
			if err != nil {
				t.Fatal(err)
			}
			if version == 13 {
				reference = got
				checkDemoCatalog(t, out)
			} else if !bytes.Equal(got, reference) {
				t.Errorf("catalog differs from schema 13's:\n%s", firstDifference(reference, got))
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the index was modified (it must not be upgraded on disk)")
			}
			var codes []string
			for _, d := range report.Departures {
				codes = append(codes, string(d.Code))
			}
			sort.Strings(codes)
			if want := expectedLegacyDepartures(version); strings.Join(codes, " ") != strings.Join(want, " ") {
				t.Errorf("departures %v, want %v\n%v", codes, want, report.Departures)
			}
		})
	}
}

func expectedLegacyDepartures(version int) []string {
	var want []string
	if version < 2 {
		want = append(want, string(tofbc.ImageMissing), string(tofbc.ImageMissing))
	}
	if version <= 8 {
		want = append(want, string(tofbc.DependencyValuesKept)) // two distinct required APIs
	}
	if version < 5 {
		want = append(want, string(tofbc.SkipRangeRecovered), string(tofbc.VersionRecovered), string(tofbc.VersionRecovered))
	}
	sort.Strings(want)
	return want
}

func checkDemoCatalog(t *testing.T, out string) {
	t.Helper()
	cat := loadOutput(t, out)
	if errs := model.ValidateCatalog(cat, model.Options{}).Errors(); len(errs) > 0 {
		t.Fatalf("catalog does not validate:\n%v", errs)
	}
	pkg := cat.Packages[0]
	if pkg.DefaultChannel != "stable" || pkg.Icon == nil || pkg.Icon.MediaType != "image/png" {
		t.Errorf("package blob %+v", pkg)
	}
	entries := cat.Channels[0].Entries
	if len(entries) != 2 || entries[1].Replaces != "demo.v1.0.0" || !slices.Equal(entries[1].Skips, []string{"demo.v0.9.0"}) || entries[1].SkipRange != "<1.1.0" {
		t.Errorf("channel entries %+v", entries)
	}
	want := map[string][]string{
		"demo.v1.0.0": {"olm.gvk.required demo.io/Widget", "olm.package 1.0.0", "olm.bundle.object"},
		"demo.v1.1.0": {"olm.gvk demo.io/Gadget", "olm.gvk.required demo.io/Thing", "olm.gvk.required demo.io/Widget",
			"olm.package 1.1.0", "olm.bundle.object", "olm.bundle.object"},
	}
	for _, b := range cat.Bundles {
		var got []string
		for _, p := range b.Properties {
			got = append(got, describeProperty(p))
		}
		if !slices.Equal(got, want[b.Name]) {
			t.Errorf("%s properties %v, want %v", b.Name, got, want[b.Name])
		}
		var images []string
		for _, ri := range b.RelatedImages {
			images = append(images, ri.Name+"="+ri.Image)
		}
		v := strings.TrimPrefix(b.Name, "demo.v")
		if w := []string{"=quay.io/demo/init:1", "op=quay.io/demo/op:" + v}; !slices.Equal(images, w) {
			t.Errorf("%s related images %v, want %v", b.Name, images, w)
		}
	}
}

func describeProperty(p fbc.Property) string {
	v := compactJSONForTest(p.Value)
	switch p.Type {
	case "olm.gvk", "olm.gvk.required":
		var g struct{ Group, Kind string }
		decodeForTest(v, &g)
		return p.Type + " " + g.Group + "/" + g.Kind
	case "olm.package":
		var pk struct{ Version string }
		decodeForTest(v, &pk)
		return p.Type + " " + pk.Version
	}
	if p.Type == "olm.bundle.object" {
		return p.Type
	}
	return p.Type + " " + v
}
