package ops

import (
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
)

func TestDeprecate(t *testing.T) {
	c := loadCase(t, "fbc/deprecations-konflux/catalog")
	if _, err := Deprecate(c, DeprecateOptions{Package: "konflux-operator", Channel: "stable-v0.1", Message: "use stable-v0.2"}); err != nil {
		t.Fatal(err)
	}
	notes, err := Deprecate(c, DeprecateOptions{Package: "konflux-operator", Channel: "stable-v0.0", Message: "gone soon"})
	if err != nil || !strings.Contains(strings.Join(notes, ""), "updated") {
		t.Fatalf("re-deprecating: %v %q", err, notes)
	}
	m, issues := model.FromCatalog(c)
	if err := issues.Err(); err != nil {
		t.Fatal(err)
	}
	pkg := m.Packages["konflux-operator"]
	if d := pkg.Channels["stable-v0.1"].Deprecation; d == nil || d.Message != "use stable-v0.2" {
		t.Errorf("stable-v0.1 deprecation: %+v", d)
	}
	if d := pkg.Channels["stable-v0.0"].Deprecation; d == nil || d.Message != "gone soon" {
		t.Errorf("stable-v0.0 deprecation: %+v", d)
	}
	if _, err := Deprecate(c, DeprecateOptions{Package: "konflux-operator", Bundle: "konflux-operator.v0.1.3", Undo: true}); err != nil {
		t.Fatal(err)
	}
	m, _ = model.FromCatalog(c)
	if m.Packages["konflux-operator"].Bundles["konflux-operator.v0.1.3"].Deprecation != nil {
		t.Error("undo left the bundle deprecated")
	}
	assertValid(t, c)
}

func TestDeprecateRefusals(t *testing.T) {
	c := syntheticPackage("demo", "stable", "1.0.0")
	before := writeJSON(t, c)
	for _, tc := range []struct {
		opts DeprecateOptions
		want string
	}{
		{DeprecateOptions{Package: "demo", Channel: "fast", Message: "x"}, `package "demo" has no such channel`},
		{DeprecateOptions{Package: "demo", Bundle: "demo.v9", Message: "x"}, "no such bundle"},
		{DeprecateOptions{Package: "nope", Message: "x"}, `no package "nope"`},
		{DeprecateOptions{Package: "demo"}, "needs a message"},
		{DeprecateOptions{Package: "demo", Channel: "stable", Undo: true}, "not deprecated"},
	} {
		if _, err := Deprecate(c, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	if writeJSON(t, c) != before {
		t.Error("a refused deprecation changed the catalog")
	}
}

// TestConvertLegacyDeprecations uses the two forms of the channel-deprecation design: the value as
// a JSON string holding the object (kiali example) and as an object.
func TestConvertLegacyDeprecations(t *testing.T) {
	c := syntheticPackage("kiali", "kiali-0.46.x", "1.43.0", "1.44.1")
	c.Channels = append(c.Channels,
		fbc.Channel{Schema: fbc.SchemaChannel, Name: "kiali-0.44.x", Package: "kiali",
			Entries:    []fbc.ChannelEntry{{Name: "kiali.v1.43.0"}},
			Properties: []fbc.Property{{Type: property.TypeLegacyChannelDeprecation, Value: []byte(`"{\"fallback\":[\"kiali-0.46.x\"]}"`)}}},
		fbc.Channel{Schema: fbc.SchemaChannel, Name: "old", Package: "kiali",
			Entries: []fbc.ChannelEntry{{Name: "kiali.v1.43.0"}},
			Properties: []fbc.Property{{Type: property.TypeLegacyChannelDeprecation,
				Value: []byte(`{"name":"old","message":"custom optional warning to log","fallback":["kiali-0.44.x","kiali-0.46.x"]}`)}}},
	)
	notes, err := ConvertLegacyDeprecations(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 2 {
		t.Errorf("notes: %q", notes)
	}
	m, issues := model.FromCatalog(c)
	if err := issues.Err(); err != nil {
		t.Fatal(err)
	}
	chs := m.Packages["kiali"].Channels
	if d := chs["kiali-0.44.x"].Deprecation; d == nil || d.Message != "channel kiali-0.44.x is deprecated. Switch to one of these channels instead: kiali-0.46.x." {
		t.Errorf("kiali-0.44.x: %+v", d)
	}
	if d := chs["old"].Deprecation; d == nil || d.Message != "custom optional warning to log. Switch to one of these channels instead: kiali-0.44.x, kiali-0.46.x." {
		t.Errorf("old: %+v", d)
	}
	for _, ch := range c.Channels {
		if len(ch.Properties) != 0 {
			t.Errorf("channel %s keeps properties %v", ch.Name, ch.Properties)
		}
	}
	assertValid(t, c)

	bad := syntheticPackage("demo", "stable", "1.0.0")
	bad.Channels[0].Properties = []fbc.Property{{Type: property.TypeLegacyChannelDeprecation, Value: []byte(`[1]`)}}
	if _, err := ConvertLegacyDeprecations(bad); err == nil || !strings.Contains(err.Error(), `channel "stable"`) {
		t.Errorf("bad legacy value: %v", err)
	}
}

// FuzzConvertLegacy: any olm.deprecated.channel value is either converted (the property is gone
// and the channel is deprecated) or refused with the catalog unchanged.
func FuzzConvertLegacy(f *testing.F) {
	for _, s := range []string{
		`{"message":"m","fallback":["a"]}`, `"{\"fallback\":[\"a\"]}"`, `""`, `null`, `[1]`, `{"fallback":"x"}`, `"\"x\""`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		c := syntheticPackage("demo", "stable", "1.0.0")
		c.Channels[0].Properties = []fbc.Property{{Type: property.TypeLegacyChannelDeprecation, Value: []byte(value)}}
		before := writeJSONOrEmpty(c)
		_, err := ConvertLegacyDeprecations(c)
		if err != nil {
			if writeJSONOrEmpty(c) != before {
				t.Fatalf("refused conversion of %q changed the catalog", value)
			}
			return
		}
		if len(c.Channels[0].Properties) != 0 || len(c.Deprecations) != 1 || c.Deprecations[0].Entries[0].Message == "" {
			t.Fatalf("converted %q badly: %+v %+v", value, c.Channels[0].Properties, c.Deprecations)
		}
	})
}

func writeJSONOrEmpty(c *fbc.Catalog) string {
	var b strings.Builder
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		return "unwritable: " + err.Error()
	}
	return b.String()
}
