package picture_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// skippedChain is package p, channel stable: a 1.0.0, b 1.1.0 replacing a and, with c, c 1.2.0
// replacing and skipping b. OLM v0 never upgrades to the skipped b (a's users are stranded); OLM v1
// takes a's users to b (skipped entries are successors too) and on to c.
func skippedChain(withC bool) *diff.Side {
	bundle := func(name, version string) fbc.Bundle {
		return fbc.Bundle{Schema: fbc.SchemaBundle, Name: name, Package: "p", Image: "img/" + name,
			Properties: []fbc.Property{{Type: "olm.package", Value: json.RawMessage(`{"packageName":"p","version":"` + version + `"}`)}}}
	}
	cat := &fbc.Catalog{
		Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "p", DefaultChannel: "stable"}},
		Channels: []fbc.Channel{{Schema: fbc.SchemaChannel, Name: "stable", Package: "p",
			Entries: []fbc.ChannelEntry{{Name: "p.a"}, {Name: "p.b", Replaces: "p.a"}}}},
		Bundles: []fbc.Bundle{bundle("p.a", "1.0.0"), bundle("p.b", "1.1.0")},
	}
	if withC {
		cat.Channels[0].Entries = append(cat.Channels[0].Entries, fbc.ChannelEntry{Name: "p.c", Replaces: "p.b", Skips: []string{"p.b"}})
		cat.Bundles = append(cat.Bundles, bundle("p.c", "1.2.0"))
	}
	return &diff.Side{Source: "fixture", Catalog: cat}
}

// OLM v1's edge a -> b, which OLM v0 does not take, is drawn beside v0's edges, as added (only the
// new catalog has it), in every format and in the legends; with --olm v0 and where the generations
// agree, nothing of it is drawn.
func TestV1EdgeDrawn(t *testing.T) {
	o, n := skippedChain(false), skippedChain(true)
	r := diff.Compare(o, n)
	g, err := picture.BuildDiff(modelOf(o.Catalog), modelOf(n.Catalog), r, "p", "")
	if err != nil {
		t.Fatal(err)
	}
	var v1 []picture.Edge
	for _, e := range g.Channels[0].Edges {
		if e.Kind == picture.EdgeV1 {
			v1 = append(v1, e)
		}
	}
	if len(v1) != 1 || v1[0].From != "p.a" || v1[0].To != "p.b" || v1[0].Status != picture.Added {
		t.Fatalf("v1 edges: %+v", v1)
	}
	mermaid := render(t, g, picture.FormatMermaid)
	if !strings.Contains(mermaid, "-. v1 .->") || !strings.Contains(mermaid, "stroke:#8250df,stroke-width:3px") {
		t.Errorf("mermaid lacks the v1 edge:\n%s", mermaid)
	}
	dot := render(t, g, picture.FormatDOT)
	if !strings.Contains(dot, `[style=dashed, label="v1", fontcolor="#8250df", color="#8250df", penwidth=3]`) ||
		!strings.Contains(dot, "OLM v1") {
		t.Errorf("DOT lacks the v1 edge or its legend:\n%s", dot)
	}
	checkDOTSyntax(t, []byte(dot))
	svg := render(t, g, picture.FormatSVG)
	wellFormed(t, "SVG", svg)
	if !strings.Contains(svg, "OLM v1 upgrades p.a to p.b (OLM v0 does not)") || !strings.Contains(svg, `stroke-dasharray="2 3"`) ||
		!strings.Contains(svg, "OLM v1&#39;s upgrade where OLM v0 takes another way") {
		t.Errorf("SVG lacks the v1 edge or its legend:\n%s", svg)
	}
	html := render(t, g, picture.FormatHTML)
	if !strings.Contains(html, "OLM v1 upgrades p.a to p.b") {
		t.Error("HTML lacks the v1 edge")
	}

	v0 := diff.CompareWith(o, n, diff.Options{OLM: model.OnlyOLMv0})
	g0, err := picture.BuildDiff(modelOf(o.Catalog), modelOf(n.Catalog), v0, "p", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{picture.FormatMermaid, picture.FormatDOT, picture.FormatSVG} {
		if out := render(t, g0, format); strings.Contains(out, "v1") {
			t.Errorf("--olm v0 %s draws OLM v1:\n%s", format, out)
		}
	}
	// the generations agree on the old catalog (a -> b is both v0's and v1's): a changed package,
	// asked of OLM v1, has no v1 edge to draw
	described := skippedChain(false)
	described.Catalog.Packages[0].Description = "now described"
	same := diff.Compare(o, described)
	if len(same.V1Edges) != 0 || len(same.Findings) != 1 {
		t.Errorf("v1 edges where the generations agree: %+v (findings %+v)", same.V1Edges, same.Findings)
	}
}
