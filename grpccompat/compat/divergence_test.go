package compat

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmcat/olmcat/fbc"
)

// editedCopy writes a copy of the FBC at src, changed by edit, to a temporary directory.
func editedCopy(t *testing.T, src string, edit func(c *fbc.Catalog)) string {
	t.Helper()
	c, err := fbc.Load(src)
	if err != nil {
		t.Fatalf("load %s: %v", src, err)
	}
	edit(c)
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func findChannel(t *testing.T, c *fbc.Catalog, pkg, name string) *fbc.Channel {
	t.Helper()
	for i := range c.Channels {
		if c.Channels[i].Package == pkg && c.Channels[i].Name == name {
			return &c.Channels[i]
		}
	}
	t.Fatalf("no channel %s/%s", pkg, name)
	return nil
}

func findBundle(t *testing.T, c *fbc.Catalog, name string) *fbc.Bundle {
	t.Helper()
	for i := range c.Bundles {
		if c.Bundles[i].Name == name {
			return &c.Bundles[i]
		}
	}
	t.Fatalf("no bundle %s", name)
	return nil
}

const (
	sgw = "smart-gateway-operator"
	sto = "service-telemetry-operator"
)

// Each seeded divergence in an edited copy of opm's migrate output is caught, against the
// original index.db (every SQLite-vs-FBC normalization on) and against the unedited FBC, in the
// methods where a client would see it.
func TestSeededDivergencesAreCaught(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-infrawatch-05")
	migrated := filepath.Join(dir, "migrate")
	cases := []struct {
		name    string
		edit    func(t *testing.T, c *fbc.Catalog)
		methods []string // methods that must show a difference
		want    []string // lines the differences must hold, whatever the left side
		// sameKind are methods that must differ too against the unedited FBC (against the
		// index.db, a normalization legitimately hides them)
		sameKind []string
	}{
		{"dropped property", func(t *testing.T, c *fbc.Catalog) {
			b := findBundle(t, c, sgw+".v2.1.0")
			b.Properties = slices.DeleteFunc(b.Properties, func(p fbc.Property) bool { return p.Type == "olm.gvk" })
		}, []string{ListBundles, GetBundle, GetChannelEntriesThatProvide}, []string{
			`GetBundle(smart-gateway-operator, stable, smart-gateway-operator.v2.1.0).providedApis[0]: left {"group":"smartgateway.infra.watch","version":"v2alpha1","kind":"SmartGateway"} right (absent)`,
			`ListBundles[smart-gateway-operator/stable-1.1/smart-gateway-operator.v2.1.0].properties[0]: left {"type":"olm.gvk","value":"{\"group\":\"smartgateway.infra.watch\",\"kind\":\"SmartGateway\",\"version\":\"v2alpha1\"}"} right (absent)`,
			`GetChannelEntriesThatProvide(smartgateway.infra.watch, v2alpha1, SmartGateway)[smart-gateway-operator/stable/smart-gateway-operator.v2.1.0 replaces smart-gateway-operator.v2.0.1]: left {"packageName":"smart-gateway-operator","channelName":"stable","bundleName":"smart-gateway-operator.v2.1.0","replaces":"smart-gateway-operator.v2.0.1"} right (absent)`,
		}, nil},
		{"changed replaces", func(t *testing.T, c *fbc.Catalog) {
			e := &findChannel(t, c, sgw, "stable").Entries[1]
			e.Replaces, e.Skips = "", []string{e.Replaces}
		}, []string{ListBundles}, []string{
			`ListBundles[smart-gateway-operator/stable/smart-gateway-operator.v2.1.0].replaces: left "smart-gateway-operator.v2.0.1" right ""`,
			`ListBundles[smart-gateway-operator/stable/smart-gateway-operator.v2.1.0].skips[0]: left (absent) right "smart-gateway-operator.v2.0.1"`,
			`GetChannelEntriesThatProvide(smartgateway.infra.watch, v2alpha1, SmartGateway)[smart-gateway-operator/stable/smart-gateway-operator.v2.1.0]: left (absent) right {"packageName":"smart-gateway-operator","channelName":"stable","bundleName":"smart-gateway-operator.v2.1.0"}`,
		}, []string{GetChannelEntriesThatReplace}},
		{"missing bundle", func(t *testing.T, c *fbc.Catalog) {
			c.Bundles = slices.DeleteFunc(c.Bundles, func(b fbc.Bundle) bool { return b.Name == sto+".v1.0.3" })
			for _, ch := range []string{"stable", "stable-1.1"} {
				e := &findChannel(t, c, sto, ch).Entries
				*e = slices.DeleteFunc(*e, func(x fbc.ChannelEntry) bool { return x.Name == sto+".v1.0.3" })
			}
		}, []string{ListBundles, GetBundle, GetChannelEntriesThatProvide}, []string{
			`ListBundles[service-telemetry-operator/stable/service-telemetry-operator.v1.0.3]: left {"csvName":"service-telemetry-operator.v1.0.3","packageName":"service-telemetry-operator","channelName":"stable","bundlePath":"quay.io/infrawatch-operators/serv… right (absent)`,
			`GetBundle(service-telemetry-operator, stable-1.1, service-telemetry-operator.v1.0.3) status: left OK right Unknown "package \"service-telemetry-operator\", channel \"stable-1.1\", bundle \"service-telemetry-operator.v1.0.3\" not found"`,
			`GetBundle(service-telemetry-operator, stable-1.1, service-telemetry-operator.v1.0.3): left {"csvName":"service-telemetry-operator.v1.0.3",`,
		}, nil},
		{"different default channel", func(t *testing.T, c *fbc.Catalog) {
			for i := range c.Packages {
				if c.Packages[i].Name == sgw {
					c.Packages[i].DefaultChannel = "latest"
				}
			}
		}, []string{GetPackage}, []string{
			`GetPackage(smart-gateway-operator).defaultChannelName: left "stable-1.1" right "latest"`,
			`GetDefaultBundleThatProvides(smartgateway.infra.watch, v2alpha1, SmartGateway): left bundle smart-gateway-operator/stable-1.1/smart-gateway-operator.v2.1.0 right bundle smart-gateway-operator/latest/smart-gateway-operator.v2.0.1`,
		}, nil},
		{"extra channel", func(t *testing.T, c *fbc.Catalog) {
			c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Name: "beta", Package: sgw,
				Entries: []fbc.ChannelEntry{{Name: sgw + ".v2.1.0"}}})
		}, []string{GetPackage, ListBundles, GetBundleForChannel, GetBundle}, []string{
			`GetPackage(smart-gateway-operator).channels[0]: left (absent) right {"name":"beta","csvName":"smart-gateway-operator.v2.1.0"}`,
			`ListBundles[smart-gateway-operator/beta/smart-gateway-operator.v2.1.0]: left (absent) right {"csvName":"smart-gateway-operator.v2.1.0","packageName":"smart-gateway-operator","channelName":"beta",`,
			`GetBundle(smart-gateway-operator, beta, smart-gateway-operator.v2.1.0): left (absent) right {"csvName":"smart-gateway-operator.v2.1.0",`,
		}, nil},
		{"changed property value", func(t *testing.T, c *fbc.Catalog) {
			p := &findBundle(t, c, sgw+".v2.1.0").Properties[0]
			p.Value = json.RawMessage(strings.Replace(string(p.Value), "v2alpha1", "v2beta1", 1))
		}, []string{ListBundles, GetBundle}, []string{
			`GetBundle(smart-gateway-operator, stable, smart-gateway-operator.v2.1.0).providedApis[0].version: left "v2alpha1" right "v2beta1"`,
			`ListBundles[smart-gateway-operator/stable/smart-gateway-operator.v2.1.0].properties[0].value $.version: left "v2alpha1" right "v2beta1"`,
		}, nil},
		{"changed description", func(t *testing.T, c *fbc.Catalog) {
			editCSV(t, findBundle(t, c, sgw+".v2.1.0"), func(csv map[string]any) {
				spec := csv["spec"].(map[string]any)
				spec["description"] = strings.Replace(spec["description"].(string), "ElasticSearch Operator", "Elasticsearch Operator", 1)
			})
		}, []string{GetBundle}, []string{
			`GetBundle(smart-gateway-operator, stable, smart-gateway-operator.v2.1.0).csvJson $.spec.description: left …"ode, be sure the ElasticSearch Operator and ElasticSearch instance have "… right …"ode, be sure the Elasticsearch Operator and ElasticSearch instance have "…`,
			`GetBundle(smart-gateway-operator, stable-1.1, smart-gateway-operator.v2.1.0).object[1] $.spec.description: left …"ode, be sure the ElasticSearch Operator and ElasticSearch instance have "… right …"ode, be sure the Elasticsearch Operator and ElasticSearch instance have "…`,
		}, nil},
	}
	db := openServable(t, filepath.Join(dir, "input.db"))
	original := openCatalogTarget(t, migrated)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			edited := openCatalogTarget(t, editedCopy(t, migrated, func(c *fbc.Catalog) { tc.edit(t, c) }))
			for _, left := range []Target{db, original} {
				r, err := Check(t.Context(), left, edited, Options{})
				if err != nil {
					t.Fatalf("%s: %v", left, err)
				}
				if r.Equal() || r.Verdict() != "different" {
					t.Fatalf("%s vs edited copy: %s", left, r.Summary())
				}
				methods := tc.methods
				if left == original {
					methods = append(slices.Clone(methods), tc.sameKind...)
				}
				for _, m := range methods {
					if !slices.ContainsFunc(r.Methods, func(s MethodStats) bool { return s.Method == m && s.Different > 0 }) {
						t.Errorf("%s vs edited copy: no difference in %s:\n%s", left, shortMethod(m), textOf(t, r))
					}
				}
				all := checkReportText(t, r)
				for _, w := range tc.want {
					if !strings.Contains(all, w) {
						t.Errorf("%s vs edited copy: no difference line %s in:\n%s", left, w, all)
					}
				}
			}
		})
	}
	// The unedited pair is equal: the differences above come from the edits.
	TestParity(t, db, original, Options{})
}

func textOf(t *testing.T, r *Report) string {
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// editCSV changes the ClusterServiceVersion of a bundle's olm.bundle.object properties.
func editCSV(t *testing.T, b *fbc.Bundle, edit func(csv map[string]any)) {
	t.Helper()
	for i, p := range b.Properties {
		var v struct{ Data []byte }
		var csv map[string]any
		if p.Type != "olm.bundle.object" || json.Unmarshal(p.Value, &v) != nil || json.Unmarshal(v.Data, &csv) != nil || csv["kind"] != "ClusterServiceVersion" {
			continue
		}
		edit(csv)
		data, err := json.Marshal(csv)
		if err != nil {
			t.Fatal(err)
		}
		if b.Properties[i].Value, err = json.Marshal(map[string][]byte{"data": data}); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("bundle %s has no CSV object", b.Name)
}

// checkReportText renders the report in every format and checks that each is valid UTF-8, holds
// the difference lines and no go-cmp output; it returns the difference lines.
func checkReportText(t *testing.T, r *Report) string {
	t.Helper()
	for _, format := range []string{FormatText, FormatJSON, FormatMarkdown} {
		var b bytes.Buffer
		if err := r.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(b.Bytes()) {
			t.Errorf("%s report is not valid UTF-8:\n%q", format, b.String())
		}
		var back struct{ Differences []Difference }
		if format == FormatJSON && json.Unmarshal(b.Bytes(), &back) != nil {
			t.Errorf("JSON report does not decode:\n%s", b.String())
		}
		for i, d := range r.Differences {
			line, _, _ := strings.Cut(d.Diff, "\n")
			var ok bool
			switch format {
			case FormatJSON:
				ok = i < len(back.Differences) && back.Differences[i].Diff == d.Diff
			case FormatText:
				ok = strings.Contains(b.String(), "\n    "+line+"\n")
			default:
				ok = strings.Contains(b.String(), "```text\n"+line+"\n")
			}
			if !ok {
				t.Errorf("%s report does not hold the line %s:\n%s", format, line, b.String())
			}
		}
		for _, cmpText := range []string{"protocmp", "\u00a0", "Inverse(", "(-left +right)"} {
			if strings.Contains(b.String(), cmpText) {
				t.Errorf("%s report holds go-cmp text %q:\n%s", format, cmpText, b.String())
			}
		}
	}
	var all strings.Builder
	for _, d := range r.Differences {
		all.WriteString(d.Diff)
	}
	return all.String()
}
