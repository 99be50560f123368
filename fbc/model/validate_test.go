package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

func testBundle(pkg, name, version string) fbc.Bundle {
	return fbc.Bundle{
		Schema: fbc.SchemaBundle, Name: name, Package: pkg, Image: "quay.io/demo/" + name,
		Properties: []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: pkg, Version: version})},
		Loc:        fbc.Location{File: pkg + "/catalog.json", Line: 100},
	}
}

// demoCatalog is valid: package demo, channel stable v1.0.0 <- v1.1.0 <- v1.2.0.
func demoCatalog() *fbc.Catalog {
	return &fbc.Catalog{
		Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "demo", DefaultChannel: "stable", Loc: fbc.Location{File: "demo/catalog.json", Line: 1}}},
		Channels: []fbc.Channel{{Schema: fbc.SchemaChannel, Name: "stable", Package: "demo", Loc: fbc.Location{File: "demo/catalog.json", Line: 6},
			Entries: []fbc.ChannelEntry{
				{Name: "demo.v1.0.0"},
				{Name: "demo.v1.1.0", Replaces: "demo.v1.0.0"},
				{Name: "demo.v1.2.0", Replaces: "demo.v1.1.0"},
			}}},
		Bundles: []fbc.Bundle{
			testBundle("demo", "demo.v1.0.0", "1.0.0"),
			testBundle("demo", "demo.v1.1.0", "1.1.0"),
			testBundle("demo", "demo.v1.2.0", "1.2.0"),
		},
	}
}

func entries(c *fbc.Catalog) []fbc.ChannelEntry { return c.Channels[0].Entries }

func TestValidCatalogHasNoIssues(t *testing.T) {
	if issues := ValidateCatalog(demoCatalog(), Options{}); len(issues) > 0 {
		t.Fatalf("valid catalog: %v", issues)
	}
}

// Each case breaks demoCatalog one way and names the rule, severity and opm's key words expected.
var ruleCases = []struct {
	name     string
	mutate   func(c *fbc.Catalog)
	rule     string
	severity Severity
	words    []string
}{
	{"package name empty", func(c *fbc.Catalog) {
		c.Packages[0].Name = ""
		c.Channels[0].Package = ""
		for i := range c.Bundles {
			c.Bundles[i].Package = "x"
		}
		c.Bundles = nil
		c.Channels = nil
	}, "package-name-empty", Error, []string{"package with no name"}},
	{"package name not DNS-1123", func(c *fbc.Catalog) { rename(c, "Demo_Op") }, "package-name-invalid", Error, []string{"invalid package name", "Demo_Op"}},
	{"package name too long", func(c *fbc.Catalog) { rename(c, strings.Repeat("a", 64)) }, "package-name-invalid", Error, []string{"63"}},
	{"default channel unset", func(c *fbc.Catalog) { c.Packages[0].DefaultChannel = "" }, "default-channel-unset", Error, []string{"default channel must be set"}},
	{"default channel missing", func(c *fbc.Catalog) { c.Packages[0].DefaultChannel = "fast" }, "default-channel-missing", Error,
		[]string{`invalid channel "fast"`, "channel must contain at least one bundle"}},
	{"no channels", func(c *fbc.Catalog) { c.Packages[0].DefaultChannel = ""; c.Channels = nil; c.Bundles = nil }, "package-without-channels", Error,
		[]string{"package must contain at least one channel"}},
	{"empty channel", func(c *fbc.Catalog) {
		c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Name: "fast", Package: "demo"})
	}, "channel-empty", Error, []string{"channel must contain at least one bundle"}},
	{"channel without name", func(c *fbc.Catalog) {
		c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Package: "demo", Entries: []fbc.ChannelEntry{{Name: "demo.v1.2.0"}}})
	}, "channel-name-empty", Error, []string{"contains channel with no name"}},
	{"two heads", func(c *fbc.Catalog) { entries(c)[2].Replaces = "" }, "multiple-heads", Error,
		[]string{"multiple channel heads found in graph: demo.v1.1.0, demo.v1.2.0"}},
	{"no head (cycle)", func(c *fbc.Catalog) { entries(c)[0].Replaces = "demo.v1.2.0" }, "no-head", Error, []string{"no channel head found in graph"}},
	{"cycle below the head", func(c *fbc.Catalog) {
		c.Bundles = append(c.Bundles, testBundle("demo", "demo.v2.0.0", "2.0.0"))
		e := entries(c)
		e[0].Replaces = "demo.v1.2.0"
		c.Channels[0].Entries = append(e, fbc.ChannelEntry{Name: "demo.v2.0.0", Replaces: "demo.v1.2.0"})
	}, "replaces-cycle", Error, []string{"detected cycle in replaces chain of upgrade graph: demo.v1.2.0 -> demo.v1.1.0 -> demo.v1.0.0 -> demo.v1.2.0"}},
	{"stranded", func(c *fbc.Catalog) {
		// the invalid/stranded-bundle case: v0.9.0 hangs below v1.0.0, which is only skipped
		c.Bundles = append(c.Bundles, testBundle("demo", "demo.v0.9.0", "0.9.0"))
		e := entries(c)
		e[0].Replaces = "demo.v0.9.0"
		e[1].Replaces = ""
		e[2].Skips = []string{"demo.v1.0.0"}
		c.Channels[0].Entries = append(e, fbc.ChannelEntry{Name: "demo.v0.9.0"})
	}, "stranded-bundles", Error, []string{"channel contains one or more stranded bundles: demo.v0.9.0"}},
	{"stranded below a skipped replaces target", func(c *fbc.Catalog) {
		// v1.2.0 replaces and skips v1.1.0: opm stops the chain there, so v1.0.0 is stranded
		entries(c)[2].Skips = []string{"demo.v1.1.0"}
	}, "stranded-bundles", Error, []string{"stranded bundles: demo.v1.0.0"}},
	{"entry without bundle", func(c *fbc.Catalog) { c.Bundles = c.Bundles[1:] }, "entry-without-bundle", Error,
		[]string{`no olm.bundle blobs found in package "demo" for olm.channel entries [demo.v1.0.0]`}},
	{"bundle in no channel", func(c *fbc.Catalog) { c.Bundles = append(c.Bundles, testBundle("demo", "demo.v3.0.0", "3.0.0")) },
		"bundle-in-no-channel", Error, []string{"not found in any channel entries"}},
	{"bundle of unknown package", func(c *fbc.Catalog) { c.Bundles = append(c.Bundles, testBundle("other", "other.v1.0.0", "1.0.0")) },
		"unknown-package", Error, []string{`unknown package "other" for bundle "other.v1.0.0"`}},
	{"bundle without package", func(c *fbc.Catalog) { c.Bundles[0].Package = "" }, "bundle-package-unset", Error, []string{"package name must be set"}},
	{"duplicate bundle", func(c *fbc.Catalog) { c.Bundles = append(c.Bundles, c.Bundles[1]) }, "duplicate-bundle", Error,
		[]string{`package "demo" has duplicate bundle "demo.v1.1.0"`}},
	{"duplicate package", func(c *fbc.Catalog) { c.Packages = append(c.Packages, c.Packages[0]) }, "duplicate-package", Error, []string{`duplicate package "demo"`}},
	{"duplicate channel", func(c *fbc.Catalog) { c.Channels = append(c.Channels, c.Channels[0]) }, "duplicate-channel", Error, []string{"duplicate channel"}},
	{"duplicate version", func(c *fbc.Catalog) {
		c.Bundles[2].Properties = []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: "demo", Version: "1.1.0"})}
	}, "duplicate-version", Error, []string{"duplicate versions found in bundles: [{1.1.0: [demo.v1.1.0, demo.v1.2.0]}]"}},
	{"bad semver", func(c *fbc.Catalog) { c.Bundles[2].Properties = pkgProp("demo", `"1.2"`) }, "version-invalid", Error,
		[]string{`error parsing bundle "demo.v1.2.0" version "1.2": No Major.Minor.Patch elements found`}},
	{"no olm.package", func(c *fbc.Catalog) { c.Bundles[1].Properties = nil }, "package-property-count", Error, []string{`must have exactly 1 "olm.package" property, found 0`}},
	{"two olm.package", func(c *fbc.Catalog) {
		c.Bundles[1].Properties = append(c.Bundles[1].Properties, c.Bundles[1].Properties[0])
	}, "package-property-count", Error, []string{"found 2"}},
	{"olm.package names another package", func(c *fbc.Catalog) { c.Bundles[1].Properties = pkgProp("etcd", `"1.1.0"`) },
		"package-property-mismatch", Error, []string{`package "demo" does not match "olm.package" property "etcd"`}},
	{"property does not parse", func(c *fbc.Catalog) {
		c.Bundles[1].Properties = append(c.Bundles[1].Properties, fbc.Property{Type: property.TypeGVK, Value: json.RawMessage(`"not an object"`)})
	}, "property-invalid", Error, []string{`parse property[1] of type "olm.gvk"`}},
	{"bad base64 bundle object", func(c *fbc.Catalog) {
		c.Bundles[1].Properties = append(c.Bundles[1].Properties, fbc.Property{Type: property.TypeBundleObject, Value: json.RawMessage(`{"data":"!!!!"}`)})
	}, "property-invalid", Error, []string{"olm.bundle.object", "base64"}},
	{"image and objects missing", func(c *fbc.Catalog) { c.Bundles[0].Image = "" }, "bundle-image-unset", Error, []string{"bundle image must be set"}},
	{"bundle image with a line end", func(c *fbc.Catalog) { c.Bundles[0].Image += "\nevil.example/pwn:latest" }, "image-reference-invalid", Error,
		[]string{`bundle "demo.v1.0.0"`, `image "`, `\nevil.example/pwn:latest" is not an image reference: it holds a line end`}},
	{"related image with an escape", func(c *fbc.Catalog) {
		c.Bundles[1].RelatedImages = append(c.Bundles[1].RelatedImages, fbc.RelatedImage{Name: "op", Image: "\x1b[2Kquay.io/ns/op:v1"})
	}, "image-reference-invalid", Error, []string{`relatedImages[`, `(name "op") "\x1b[2Kquay.io/ns/op:v1" is not an image reference: it holds the control character U+001B`}},
	{"related image with a short digest", func(c *fbc.Catalog) {
		c.Bundles[1].RelatedImages = append(c.Bundles[1].RelatedImages, fbc.RelatedImage{Image: "quay.io/ns/op@sha256:abc"})
	}, "image-reference-invalid", Error, []string{`relatedImages[`, `is not an image reference: its sha256 digest is not 64 lowercase hex digits`}},
	{"bad skipRange", func(c *fbc.Catalog) { entries(c)[2].SkipRange = "this is not a range" }, "skiprange-invalid", Error,
		[]string{`invalid skipRange "this is not a range"`, `Could not get version from string: "this"`}},
	{"empty skip", func(c *fbc.Catalog) { entries(c)[2].Skips = []string{""} }, "skip-empty", Error, []string{"skip[0] is empty"}},
	{"bad release", func(c *fbc.Catalog) {
		c.Bundles[2].Properties = []fbc.Property{{Type: property.TypePackage, Value: json.RawMessage(`{"packageName":"demo","version":"1.2.0","release":"01"}`)}}
	}, "release-invalid", Error, []string{"invalid release"}},
	{"release with build metadata", func(c *fbc.Catalog) {
		c.Bundles[2].Properties = []fbc.Property{{Type: property.TypePackage, Value: json.RawMessage(`{"packageName":"demo","version":"1.2.0+b1","release":"2"}`)}}
	}, "release-with-build-metadata", Error, []string{"cannot use build metadata in version with a release version"}},
	{"release name not normalized", func(c *fbc.Catalog) {
		c.Bundles[2].Properties = []fbc.Property{{Type: property.TypePackage, Value: json.RawMessage(`{"packageName":"demo","version":"1.2.0","release":"2"}`)}}
	}, "release-name-mismatch", Error, []string{`does not match normalized name "demo-v1.2.0-2"`}},
	{"channel priority not an integer", func(c *fbc.Catalog) {
		c.Channels[0].Properties = []fbc.Property{{Type: property.TypeChannel, Value: json.RawMessage(`{"channelName":"stable","priority":"high"}`)}}
	}, "channel-property-invalid", Error, []string{`parse property[0] of type "olm.channel"`}},
	{"deprecation of missing channel", func(c *fbc.Catalog) {
		c.Deprecations = []fbc.Deprecation{{Schema: fbc.SchemaDeprecations, Package: "demo", Entries: []fbc.DeprecationEntry{
			{Reference: fbc.Reference{Schema: fbc.SchemaChannel, Name: "no-such-channel"}, Message: "gone"}}}}
	}, "deprecation-unknown-channel", Error, []string{`cannot deprecate channel "no-such-channel" for package "demo": channel not found`}},
	{"deprecation of missing bundle", func(c *fbc.Catalog) {
		c.Deprecations = []fbc.Deprecation{{Schema: fbc.SchemaDeprecations, Package: "demo", Entries: []fbc.DeprecationEntry{
			{Reference: fbc.Reference{Schema: fbc.SchemaBundle, Name: "demo.v0.0.1"}, Message: "gone"}}}}
	}, "deprecation-unknown-bundle", Error, []string{"bundle not found"}},
	{"deprecation of unknown package", func(c *fbc.Catalog) {
		c.Deprecations = []fbc.Deprecation{{Schema: fbc.SchemaDeprecations, Package: "konflux"}}
	}, "deprecation-unknown-package", Error, []string{`cannot apply deprecations to an unknown package "konflux"`}},
	{"two deprecation blobs", func(c *fbc.Catalog) {
		d := fbc.Deprecation{Schema: fbc.SchemaDeprecations, Package: "demo", Entries: []fbc.DeprecationEntry{
			{Reference: fbc.Reference{Schema: fbc.SchemaPackage}, Message: "old"}}}
		c.Deprecations = []fbc.Deprecation{d, d}
	}, "deprecation-duplicate", Error, []string{"expected a maximum of one deprecation per package"}},
	{"deprecation without message", func(c *fbc.Catalog) {
		c.Deprecations = []fbc.Deprecation{{Schema: fbc.SchemaDeprecations, Package: "demo", Entries: []fbc.DeprecationEntry{
			{Reference: fbc.Reference{Schema: fbc.SchemaBundle, Name: "demo.v1.0.0"}}}}}
	}, "deprecation-message-empty", Error, []string{"message must be set"}},
	{"custom schema with slash", func(c *fbc.Catalog) {
		c.Others = []fbc.Meta{{Schema: "example.com/custom", Package: "demo", Blob: json.RawMessage(`{"schema":"example.com/custom"}`)}}
	}, "custom-schema-name", Warning, []string{`invalid schema "example.com/custom"`, "opm serve"}},
	{"catalog template among the catalog's files", func(c *fbc.Catalog) {
		c.Others = []fbc.Meta{{Schema: fbc.SchemaTemplateSemver, Blob: json.RawMessage(`{"schema":"olm.semver","stable":{"bundles":[]}}`)}}
	}, "template-in-catalog", Warning, []string{"catalog template (schema olm.semver) inside a catalog is not rendered"}},

	// The graph findings opm misses.
	{"upgrade cycle through skips", func(c *fbc.Catalog) {
		e := entries(c)
		e[2].Skips = []string{"demo.v1.0.0"}
		e[0].Skips = []string{"demo.v1.1.0"} // 1.1.0 replaces 1.0.0, 1.0.0 skips 1.1.0
	}, "upgrade-cycle", Warning, []string{"demo.v1.0.0 -> demo.v1.1.0 -> demo.v1.0.0"}},
	{"skipped bundle on the replaces chain", func(c *fbc.Catalog) {
		// v1.2.0 replaces v1.1.0 and skips v1.1.0 and v1.0.0: v1.1.0 replaces v1.0.0 is a dead edge
		entries(c)[2].Skips = []string{"demo.v1.1.0", "demo.v1.0.0"}
	}, "skipped-on-replaces-chain", Warning, []string{`bundle "demo.v1.1.0" is on the replaces chain but skipped by demo.v1.2.0`, `its replaces "demo.v1.0.0" has no effect`}},
	{"unreachable from head", func(c *fbc.Catalog) {
		// v0.1.0 and v0.2.0 skip each other: neither is stranded, neither leads to the head
		c.Bundles = append(c.Bundles, testBundle("demo", "demo.v0.1.0", "0.1.0"), testBundle("demo", "demo.v0.2.0", "0.2.0"))
		c.Channels[0].Entries = append(entries(c),
			fbc.ChannelEntry{Name: "demo.v0.1.0", Skips: []string{"demo.v0.2.0"}},
			fbc.ChannelEntry{Name: "demo.v0.2.0", Skips: []string{"demo.v0.1.0"}})
	}, "unreachable-from-head", Warning, []string{`OLM v0 offers the users of "demo.v0.1.0" no upgrade`}},
	{"unreachable: only upgrade goes to a skipped bundle", func(c *fbc.Catalog) {
		// v1.0.0's only way up is v1.1.0 (replaces), which v1.2.0 skips; v1.2.0 also skips v1.0.0's
		// sibling v0.9.0 only. v1.0.0 is skipped by v0.9.0 (so not stranded), which leads nowhere.
		c.Bundles = append(c.Bundles, testBundle("demo", "demo.v0.9.0", "0.9.0"))
		e := entries(c)
		e[2].Skips = []string{"demo.v1.1.0", "demo.v0.9.0"}
		c.Channels[0].Entries = append(e, fbc.ChannelEntry{Name: "demo.v0.9.0", Skips: []string{"demo.v1.0.0"}})
	}, "unreachable-from-head", Warning, []string{`OLM v0 offers the users of "demo.v1.0.0" no upgrade`}},
}

// fillLocations gives blobs added by a test case a location, as the loader would.
func fillLocations(c *fbc.Catalog) {
	at := fbc.Location{File: "added.json", Line: 7}
	for i := range c.Channels {
		if c.Channels[i].Loc.File == "" {
			c.Channels[i].Loc = at
		}
	}
	for i := range c.Deprecations {
		if c.Deprecations[i].Loc.File == "" {
			c.Deprecations[i].Loc = at
		}
	}
	for i := range c.Others {
		if c.Others[i].Loc.File == "" {
			c.Others[i].Loc = at
		}
	}
}

func rename(c *fbc.Catalog, name string) {
	c.Packages[0].Name = name
	c.Channels[0].Package = name
	for i := range c.Bundles {
		c.Bundles[i].Package = name
		c.Bundles[i].Properties = []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: name, Version: fmt.Sprintf("1.%d.0", i)})}
	}
}

func pkgProp(name, rawVersion string) []fbc.Property {
	return []fbc.Property{{Type: property.TypePackage, Value: json.RawMessage(`{"packageName":"` + name + `","version":` + rawVersion + `}`)}}
}

func TestEachRule(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			c := demoCatalog()
			tc.mutate(c)
			fillLocations(c)
			issues := ValidateCatalog(c, Options{})
			var found *Issue
			for _, i := range issues {
				if i.Rule == tc.rule {
					found = i
					break
				}
			}
			if found == nil {
				t.Fatalf("no %s issue; got:\n%v", tc.rule, issues)
			}
			if found.Severity != tc.severity {
				t.Errorf("severity %s, want %s: %v", found.Severity, tc.severity, found)
			}
			for _, w := range tc.words {
				if !strings.Contains(found.Message, w) {
					t.Errorf("message %q lacks %q", found.Message, w)
				}
			}
			if found.Hint == "" {
				t.Errorf("no fix hint: %v", found)
			}
			if found.File == "" {
				t.Errorf("no file: %v", found)
			}
			if tc.severity == Warning && len(issues.Errors()) > 0 {
				t.Errorf("a warning case should not give errors:\n%v", issues.Errors())
			}
		})
	}
}

func TestStrictTurnsWarningsIntoErrors(t *testing.T) {
	c := demoCatalog()
	c.Others = []fbc.Meta{{Schema: "example.com/custom", Blob: json.RawMessage(`{"schema":"example.com/custom"}`)}}
	if got := ValidateCatalog(c, Options{}); len(got) != 1 || got[0].Severity != Warning || got.Err() != nil {
		t.Fatalf("default: %v", got)
	}
	got := ValidateCatalog(c, Options{Strict: true})
	if len(got) != 1 || got[0].Severity != Error || got.Err() == nil {
		t.Fatalf("strict: %v", got)
	}
	if r := NewReport(got); r.Passed || r.Errors != 1 || r.Warnings != 0 {
		t.Fatalf("strict report: %+v", r)
	}
}

func TestAllProblemsReportedAtOnce(t *testing.T) {
	c := demoCatalog()
	c.Packages[0].DefaultChannel = ""                                   // default channel must be set
	c.Bundles[2].Properties = pkgProp("demo", `"1.2"`)                  // bad semver
	c.Bundles = append(c.Bundles, testBundle("other", "o.v1", "1.0.0")) // unknown package
	issues := ValidateCatalog(c, Options{})
	if len(issues) != 3 || len(issues.Errors()) != 3 {
		t.Fatalf("want 3 errors, got %d:\n%v", len(issues), issues)
	}
	rules := map[string]bool{}
	for _, i := range issues {
		rules[i.Rule] = true
	}
	for _, r := range []string{"default-channel-unset", "version-invalid", "unknown-package"} {
		if !rules[r] {
			t.Errorf("missing %s in %v", r, issues)
		}
	}
}

func TestReportJSONIsStable(t *testing.T) {
	r := NewReport(nil)
	b, _ := json.Marshal(r)
	if string(b) != `{"passed":true,"errors":0,"warnings":0,"issues":[]}` {
		t.Errorf("empty report: %s", b)
	}
	c := demoCatalog()
	c.Packages[0].DefaultChannel = ""
	b, _ = json.Marshal(NewReport(ValidateCatalog(c, Options{})))
	want := `{"passed":false,"errors":1,"warnings":0,"issues":[{"severity":"error","rule":"default-channel-unset","file":"demo/catalog.json","line":1,"package":"demo","message":"default channel must be set","hint":"set defaultChannel in the olm.package blob to one of the package's channels"}]}`
	if string(b) != want {
		t.Errorf("report:\n got %s\nwant %s", b, want)
	}
}

// blobsOf serializes a catalog the way the loader hands it over: one Blob per object.
func blobsOf(t *testing.T, c *fbc.Catalog) []fbc.Blob {
	t.Helper()
	var out []fbc.Blob
	add := func(schema, pkg, name string, v any, loc fbc.Location) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fbc.Blob{Schema: schema, Package: pkg, Name: name, Data: data, Loc: loc})
	}
	for _, p := range c.Packages {
		add(fbc.SchemaPackage, "", p.Name, p, p.Loc)
	}
	for _, ch := range c.Channels {
		add(fbc.SchemaChannel, ch.Package, ch.Name, ch, ch.Loc)
	}
	for _, b := range c.Bundles {
		add(fbc.SchemaBundle, b.Package, b.Name, b, b.Loc)
	}
	for _, d := range c.Deprecations {
		add(fbc.SchemaDeprecations, d.Package, "", d, d.Loc)
	}
	for _, o := range c.Others {
		out = append(out, fbc.Blob{Schema: o.Schema, Package: o.Package, Name: o.Name, Data: o.Blob, Loc: o.Loc})
	}
	return out
}

// TestStreamingMatchesInMemory: the one-pass Validator finds exactly what ValidateCatalog finds.
func TestStreamingMatchesInMemory(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			c := demoCatalog()
			tc.mutate(c)
			fillLocations(c)
			want := ValidateCatalog(c, Options{}).Error()
			v := NewValidator(Options{})
			for _, b := range blobsOf(t, c) {
				if err := v.Add(b); err != nil {
					t.Fatalf("Add: %v", err)
				}
			}
			got, err := v.Finish(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Error() != want {
				t.Errorf("streaming:\n%s\nin memory:\n%s", got.Error(), want)
			}
		})
	}
}

// TestLoadErrorsBecomeIssues: a truncated file is reported with file and line, and the findings
// its missing blobs would cause are left out.
func TestLoadErrorsBecomeIssues(t *testing.T) {
	text := `{"schema":"olm.package","name":"demo","defaultChannel":"stable"}
{"schema":"olm.channel","name":"stable","package":"demo","entries":[{"name":"demo.v1.0.0"}]}
{"schema":"olm.bundle","name":"demo.v1.0.0","package":"demo","image":"x",`
	v := NewValidator(Options{})
	issues, err := v.Finish(fbc.Loader{}.WalkReader(strings.NewReader(text), "demo/catalog.json", v.Add))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]*Issue{}
	for _, i := range issues {
		rules[i.Rule] = i
	}
	load := rules["load-syntax"]
	if load == nil || load.File != "demo/catalog.json" || load.Line != 3 || !strings.Contains(load.Message, "unexpected EOF") {
		t.Fatalf("no located load error in:\n%v", issues)
	}
	if rules["entry-without-bundle"] != nil {
		t.Errorf("consequence of the truncation reported:\n%v", issues)
	}
	if w := rules["package-not-checked"]; w == nil || w.Package != "demo" {
		t.Errorf("no note that demo was not fully checked:\n%v", issues)
	}
}
