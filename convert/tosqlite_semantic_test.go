package convert

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// catalogView is a catalog reduced to its meaning: order, formatting and JSON encoding details
// (key order, escapes, whitespace) do not show.
type catalogView map[string]string

// viewOf describes c; ignore(kind, package, channel, bundle) leaves out what a finding says will
// differ.
func viewOf(t testing.TB, c *fbc.Catalog) catalogView {
	t.Helper()
	v := catalogView{}
	for _, p := range c.Packages {
		icon := ""
		if p.Icon != nil {
			icon = fmt.Sprintf("%s %x", p.Icon.MediaType, p.Icon.Data)
		}
		v["package "+p.Name] = fmt.Sprintf("default=%s icon=%.80s description=%q properties=%s", p.DefaultChannel, icon, p.Description, propertiesView(t, p.Properties))
		if len(p.Extra) > 0 {
			v["package "+p.Name+" extra"] = fmt.Sprint(len(p.Extra))
		}
	}
	for _, ch := range c.Channels {
		v["channel "+ch.Package+"/"+ch.Name] = "properties=" + propertiesView(t, ch.Properties)
		for _, e := range ch.Entries {
			skips := append([]string(nil), e.Skips...)
			sort.Strings(skips)
			v["entry "+ch.Package+"/"+ch.Name+"/"+e.Name] = fmt.Sprintf("replaces=%s skips=%v skipRange=%s", e.Replaces, skips, e.SkipRange)
		}
	}
	for _, b := range c.Bundles {
		key := "bundle " + b.Package + "/" + b.Name
		v[key] = "image=" + b.Image
		var objects, others []fbc.Property
		for _, p := range b.Properties {
			if p.Type == property.TypeBundleObject || p.Type == property.TypeCSVMetadata {
				objects = append(objects, p)
			} else {
				others = append(others, p)
			}
		}
		v[key+" properties"] = propertiesView(t, others)
		v[key+" manifests"] = manifestsView(t, objects)
		var images []string
		for _, ri := range b.RelatedImages {
			images = append(images, ri.Image+" as "+ri.Name)
		}
		sort.Strings(images)
		v[key+" relatedImages"] = strings.Join(images, ", ")
	}
	for _, d := range c.Deprecations {
		for _, e := range d.Entries {
			v["deprecation "+d.Package+" "+e.Reference.Schema+" "+e.Reference.Name] = e.Message
		}
	}
	for _, o := range c.Others {
		v["other "+o.Schema+" "+o.Package+" "+o.Name] = canonicalJSON(t, o.Blob)
	}
	return v
}

func canonicalJSON(t testing.TB, raw []byte) string {
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(x)
	return string(b)
}

func propertiesView(t testing.TB, props []fbc.Property) string {
	var out []string
	for _, p := range props {
		out = append(out, p.Type+"="+canonicalJSON(t, p.Value))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func manifestsView(t testing.TB, props []fbc.Property) string {
	parsed, err := property.Parse(props)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range parsed.BundleObjects {
		out = append(out, "object "+canonicalJSON(t, o.Data))
	}
	for _, m := range parsed.CSVMetadatas {
		out = append(out, "csv.metadata "+canonicalJSON(t, m))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// expectAfterRoundTrip edits the view of a catalog into what index.db → FBC must give back after
// FBC → index.db, using only the findings of the report (and what olmcat's index.db → FBC documents
// as its own departures from opm).
func expectAfterRoundTrip(v catalogView, r *SQLiteReport, back *tofbc.Report) {
	drop := func(prefix string) {
		for k := range v {
			if k == prefix || strings.HasPrefix(k, prefix+" ") {
				delete(v, k)
			}
		}
	}
	ignore := map[string]bool{}
	for _, f := range append(append([]Finding(nil), r.Losses...), r.Changes...) {
		bundle := "bundle " + f.Package + "/" + f.Bundle
		switch f.Kind {
		case KindDeprecation:
			for k := range v {
				if strings.HasPrefix(k, "deprecation "+f.Package+" ") {
					delete(v, k)
				}
			}
		case KindCustomBlob:
			for k := range v {
				if strings.HasPrefix(k, "other ") {
					delete(v, k)
				}
			}
		case KindPackageDescription, KindPackageProperties, KindPackageIcon, KindIconAdded, KindDefaultChannelSet, KindUnknownFields:
			ignore["package "+f.Package] = true
			drop("package " + f.Package + " extra")
		case KindChannelProperties:
			ignore["channel "+f.Package+"/"+f.Channel] = true
		case KindCSVSynthesized, KindCSVMetadataDropped, KindObjectsWithoutCSV, KindBundleObjectRef, KindBundleObjectInvalid:
			ignore[bundle+" manifests"] = true
		case KindRelatedImageName, KindRelatedImageAdded:
			ignore[bundle+" relatedImages"] = true
		case KindSkipRangePerChannel, KindReplacesAsSkip:
			for k := range v {
				if strings.HasPrefix(k, "entry "+f.Package+"/") && strings.HasSuffix(k, "/"+f.Bundle) {
					ignore[k] = true
				}
			}
		case KindDeprecatedProperty, KindDuplicateProperty:
			ignore[bundle+" properties"] = true
		}
	}
	for _, d := range back.Departures {
		for k := range v {
			if strings.HasPrefix(k, "entry "+d.Package+"/"+d.Channel+"/") && d.Channel != "" {
				ignore[k] = true
			}
		}
	}
	for k := range ignore {
		delete(v, k)
	}
	v["ignored"] = fmt.Sprint(len(ignore))
}

// TestRoundTripUpToReportedLosses: for every conformance FBC written by something other than opm
// migrate, FBC → index.db → FBC equals the original except where the report says it cannot.
func TestRoundTripUpToReportedLosses(t *testing.T) {
	requireConformance(t)
	dirs, _ := filepath.Glob(filepath.Join(toSQLiteConformance, "fbc", "*", "catalog"))
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			orig := loadCatalog(t, dir)
			db, report := writeDB(t, orig, ToSQLiteOptions{})
			back, backReport := readBack(t, db)
			want, got := viewOf(t, orig), viewOf(t, back)
			expectAfterRoundTrip(want, report, backReport)
			ignored := want["ignored"]
			expectAfterRoundTrip(got, report, backReport)
			got["ignored"] = ignored
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("FBC → index.db → FBC differs beyond the report (-original +round trip):\n%.6000s", diff)
			}
			for _, f := range report.Losses {
				t.Logf("loss: %s", f)
			}
			for _, d := range backReport.Departures {
				t.Logf("index.db → FBC departure: %s", d)
			}
		})
	}
}
