package template_test

import (
	"context"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
)

// TestSemverMinorChannels: minor channels only (the default), heads replacing the head of the
// previous minor channel, no edge across a major version, the high-water default channel.
func TestSemverMinorChannels(t *testing.T) {
	versions := []string{"1.0.0", "1.0.1", "1.1.0", "2.0.0", "1.0.11"}
	var stream strings.Builder
	doc := "schema: olm.semver\nstable:\n  bundles:\n"
	for _, v := range versions {
		stream.WriteString(bundleJSON("p.v"+v, v) + "\n")
		doc += "  - image: r/p:" + v + "\n"
	}
	cat, err := fbc.LoadReader(strings.NewReader(stream.String()), "bundles.json")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.Parse("", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	out, err := template.Render(context.Background(), tmpl, template.NewCatalogRenderer(cat), template.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ch := range out.Channels {
		var entries []string
		for _, e := range ch.Entries {
			s := e.Name
			if e.Replaces != "" {
				s += " replaces " + e.Replaces
			}
			if len(e.Skips) > 0 {
				s += " skips " + strings.Join(e.Skips, ",")
			}
			entries = append(entries, s)
		}
		got[ch.Name] = strings.Join(entries, "; ")
	}
	want := map[string]string{
		"stable-v1.0": "p.v1.0.0; p.v1.0.1; p.v1.0.11 skips p.v1.0.0,p.v1.0.1",
		"stable-v1.1": "p.v1.1.0 replaces p.v1.0.11 skips p.v1.0.0,p.v1.0.1",
		"stable-v2.0": "p.v2.0.0",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("channel %s:\n got %s\nwant %s", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("channels %v", got)
	}
	if out.Packages[0].DefaultChannel != "stable-v2.0" {
		t.Errorf("default channel %q, want stable-v2.0", out.Packages[0].DefaultChannel)
	}
	if len(out.Bundles) != len(versions) {
		t.Errorf("%d bundles", len(out.Bundles))
	}
}

// A channel named almost as a semver template names channels (candidate-0.1) is refused with the
// name the template would give it, and why renaming is no way out.
func TestSemverFromCatalogNamesTheChannelASemverTemplateWouldWrite(t *testing.T) {
	for name, want := range map[string]string{
		"candidate-0.1": `; a semver template would name it "candidate-v0.1", and renaming a channel strands the users subscribed to it`,
		"Stable-V1":     `; a semver template would name it "stable-v1", and renaming`,
		"alpha":         "",
	} {
		c, err := fbc.LoadReader(strings.NewReader(`{"schema":"olm.package","name":"p","defaultChannel":"`+name+`"}
{"schema":"olm.channel","package":"p","name":"`+name+`","entries":[{"name":"p.v0.1.0"}]}
{"schema":"olm.bundle","package":"p","name":"p.v0.1.0","image":"quay.io/p/b:v0.1.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"0.1.0"}}]}
`), "catalog.json")
		if err != nil {
			t.Fatal(err)
		}
		tmpl, why := template.SemverFromCatalog(c)
		prefix := `channel "` + name + `" is not named as a semver template names channels`
		if tmpl != nil || !strings.HasPrefix(why, prefix) || (want == "") != !strings.Contains(why, "; a semver template would name it") || !strings.Contains(why, want) {
			t.Errorf("channel %q: refusal %q, want %q then %q", name, why, prefix, want)
		}
	}
}
