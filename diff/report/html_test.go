package report_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// htmlOfPair writes the HTML report of a real pair of ../shared/diffpairs (fbc/NAME/{old,new} or
// sqlite/NAME/{old,new}.db).
func htmlOfPair(t *testing.T, name string) (string, *diff.Report) {
	t.Helper()
	oldRef, newRef := pairPaths(t, name)
	o, n, err := input.OpenPair(context.Background(), oldRef, newRef, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := diff.Compare(o, n)
	var b bytes.Buffer
	if err := report.HTML(&b, r, modelOf(o.Catalog), modelOf(n.Catalog)); err != nil {
		t.Fatal(err)
	}
	return b.String(), r
}

func modelOf(cat *fbc.Catalog) *model.Model {
	if cat == nil {
		cat = &fbc.Catalog{}
	}
	m, _ := model.FromCatalog(cat)
	return m
}

var (
	svgElement = regexp.MustCompile(`(?s)<svg [^>]*aria-label="([^"]*)">.*?</svg>`)
	sectionTag = regexp.MustCompile(`<section class="package" id="package-([^"]*)">\s*(<details class="info-only"><summary>)?<h2>(.*?)</h2>`)
	attrRef    = regexp.MustCompile(`\s(?:href|src|xlink:href|action|poster|srcset)\s*=\s*"([^"]*)"`)
)

// checkSelfContained fails unless the page fetches nothing and runs nothing: no scripts, no
// stylesheet or image from anywhere, links only to anchors of the page.
func checkSelfContained(t *testing.T, name, page string, strict bool) {
	t.Helper()
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "@import", "url(", "<link", "<iframe", "<img", "<object", "<embed", " on"} {
		if bad == " on" {
			if m := regexp.MustCompile(`\son[a-z]+\s*=`).FindString(lower); m != "" {
				t.Errorf("%s: event handler attribute %q", name, m)
			}
			continue
		}
		if strings.Contains(lower, bad) {
			t.Errorf("%s: page contains %q", name, bad)
		}
	}
	if strict { // pages whose catalogs hold no URL in their text
		for _, bad := range []string{"http://", "https://", "src="} {
			if strings.Contains(lower, bad) {
				t.Errorf("%s: page contains %q", name, bad)
			}
		}
	}
	for _, m := range attrRef.FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("%s: reference to %q", name, m[1])
		}
	}
}

// Every real pair: the verdict comes first, one section per package with findings (worst first,
// those with only info findings collapsed), a findings row per finding (info rows collapsed), and a
// well-formed SVG graph for each channel the findings name, with one legend for the page; every
// skipRange drawn says its range; and nothing is fetched from anywhere.
func TestHTMLOfDiffPairs(t *testing.T) {
	for _, name := range allPairs(t) {
		page, r := htmlOfPair(t, name)
		checkSelfContained(t, name, page, true)
		body := page[strings.Index(page, "<body>")+len("<body>"):]
		if !strings.HasPrefix(strings.TrimSpace(body), `<h1 class="verdict`) {
			t.Errorf("%s: the page does not open with the verdict: %.200s", name, body)
		}
		if r.Summary.Breaking > 0 && !strings.Contains(page, `<h1 class="verdict breaking">Breaking: `) {
			t.Errorf("%s: breaking findings but the verdict is not breaking", name)
		}
		names, groups := diff.ByPackage(r.Findings)
		sections := sectionTag.FindAllStringSubmatch(page, -1)
		if len(sections) != len(names) {
			t.Fatalf("%s: %d sections, want %d", name, len(sections), len(names))
		}
		last := 3
		for _, s := range sections {
			rank := 1
			switch {
			case strings.Contains(s[3], `class="badge breaking"`):
				rank = 3
			case strings.Contains(s[3], `class="badge warning"`):
				rank = 2
			}
			if rank > last {
				t.Errorf("%s: package %s after a milder one", name, s[1])
			}
			if collapsed := s[2] != ""; collapsed != (rank == 1) {
				t.Errorf("%s: package %s collapsed=%v with worst severity rank %d", name, s[1], collapsed, rank)
			}
			last = rank
		}
		checkInfoCollapsed(t, name, page)
		if got := strings.Count(page, `<tr class="`); got != len(r.Findings) {
			t.Errorf("%s: %d finding rows, want %d", name, got, len(r.Findings))
		}
		svgs := svgElement.FindAllStringSubmatch(page, -1)
		labels := map[string]bool{}
		for _, m := range svgs {
			labels[m[1]] = true
			checkXML(t, name+" "+m[1], m[0])
		}
		for _, pkg := range names {
			for _, f := range groups[pkg] {
				if f.Channel != "" && !labels["upgrade graph of channel "+f.Channel] {
					t.Errorf("%s: no graph of channel %s (finding %s)", name, f.Channel, f.Kind)
				}
			}
		}
		if graphs := strings.Count(page, "<h3>Upgrade graphs"); graphs == 0 || strings.Count(page, `aria-label="legend"`) != 1 {
			t.Errorf("%s: %d graph sections, legends %d, want 1", name, graphs, strings.Count(page, `aria-label="legend"`))
		}
		for _, m := range skipRangeBand.FindAllStringSubmatch(page, -1) {
			if !strings.Contains(page, ">skipRange: "+m[1]) && !strings.Contains(page, "(was "+m[1]+")") {
				t.Errorf("%s: the skipRange %s drawn is not written beside its bundle", name, m[1])
			}
		}
	}
}

var skipRangeBand = regexp.MustCompile(`<g class="skiprange [a-z]*" data-range="([^"]*)">`)

// checkInfoCollapsed fails unless every info row of the page is inside a <details> element.
func checkInfoCollapsed(t *testing.T, name, page string) {
	t.Helper()
	depth := 0
	for _, tok := range regexp.MustCompile(`<details[ >]|</details>|<tr class="info">`).FindAllString(page, -1) {
		switch {
		case strings.HasPrefix(tok, "<details"):
			depth++
		case tok == "</details>":
			depth--
		case depth == 0:
			t.Errorf("%s: an info row outside a <details>", name)
			return
		}
	}
}

// The pairs with a stranded bundle highlight it in its channel's graph; infrawatch's moved default
// channel is marked on both channels.
func TestHTMLMarksStrandedAndDefault(t *testing.T) {
	page, _ := htmlOfPair(t, "sqlite/infrawatch-new-default-channel")
	sg := page[strings.Index(page, `id="package-smart-gateway-operator"`):]
	latest := svgElement.FindString(sg[strings.Index(sg, `id="graph-smart-gateway-operator-latest"`):])
	if !strings.Contains(latest, `<g class="node stranded finding-breaking"><title>smart-gateway-operator.v2.1.0 2.1.0 (old head, removed, stranded)`) || !strings.Contains(latest, `fill="#fb8500"`) {
		t.Errorf("latest's graph does not highlight the stranded v2.1.0:\n%s", latest)
	}
	stable := svgElement.FindString(sg[strings.Index(sg, `id="graph-smart-gateway-operator-stable"`):])
	if !strings.Contains(stable, ">was default</text>") {
		t.Errorf("stable (the old default) is not marked:\n%.500s", stable)
	}
	newDefault := svgElement.FindString(sg[strings.Index(sg, `id="graph-smart-gateway-operator-stable-1.1"`):])
	if !strings.Contains(newDefault, ">default</text>") {
		t.Errorf("stable-1.1 (the new default) is not marked:\n%.500s", newDefault)
	}
	page, _ = htmlOfPair(t, "sqlite/host-operator-replace-bundle")
	if strings.Count(page, `<g class="node stranded finding-breaking">`) != 1 || strings.Contains(page, "(head, stranded)") {
		t.Error("host-operator: the removed head is not drawn as a removed, stranded bundle")
	}
}

// Text from the catalog is escaped: konflux's deprecation messages hold "<see https://...?a=1&b=2>".
func TestHTMLEscapes(t *testing.T) {
	r := reportWithMarkup(t)
	old, _ := fbc.Load(konflux)
	cat, _ := fbc.Load(konflux)
	cat.Deprecations = nil
	var b bytes.Buffer
	if err := report.HTML(&b, r, modelOf(old), modelOf(cat)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkSelfContained(t, "konflux", page, false)
	if strings.Contains(page, "<see") || !strings.Contains(page, "&lt;see https://example.com/konflux?a=1&amp;b=2&gt;") {
		t.Errorf("deprecation message not escaped")
	}
	for _, m := range svgElement.FindAllString(page, -1) {
		checkXML(t, "konflux svg", m)
	}
}

func checkXML(t *testing.T, what, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Errorf("%s: not well-formed: %v", what, err)
			return
		}
	}
}
