package picture_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc"
)

const (
	diffPairs = "../../../shared/diffpairs"
	konflux   = "../../../shared/conformance/fbc/deprecations-konflux/catalog"
)

func shared(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("reference data not available (%s): %v", path, err)
	}
	return path
}

// comparePair opens a real revision pair of ../shared/diffpairs: fbc/NAME/{old,new} or
// sqlite/NAME/{old,new}.db.
func comparePair(t *testing.T, name string) (*diff.Side, *diff.Side, *diff.Report) {
	t.Helper()
	dir := shared(t, filepath.Join(diffPairs, name))
	oldRef, newRef := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	if strings.HasPrefix(name, "sqlite/") {
		oldRef, newRef = oldRef+".db", newRef+".db"
	}
	o, n, err := input.OpenPair(context.Background(), oldRef, newRef, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return o, n, diff.Compare(o, n)
}

func buildPairDiff(t *testing.T, name, pkg string) *picture.Graph {
	t.Helper()
	o, n, r := comparePair(t, name)
	g, err := picture.BuildDiff(modelOf(o.Catalog), modelOf(n.Catalog), r, pkg, "")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func channelOf(t *testing.T, g *picture.Graph, name string) picture.Channel {
	t.Helper()
	for _, ch := range g.Channels {
		if ch.Name == name {
			return ch
		}
	}
	t.Fatalf("no channel %s in %s", name, g.Package)
	return picture.Channel{}
}

func render(t *testing.T, g *picture.Graph, format string) string {
	t.Helper()
	var b bytes.Buffer
	if err := picture.Write(&b, g, format); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wellFormed fails the test unless s is well-formed XML (every SVG the package writes is).
func wellFormed(t *testing.T, what, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", what, err)
		}
	}
}

func TestSortNodesSemver(t *testing.T) {
	nodes := []picture.Node{
		{Name: "op.latest"}, {Name: "op.v0.1.10", Version: "0.1.10"}, {Name: "op.v1.0.0", Version: "1.0.0"},
		{Name: "op.v0.1.2", Version: "0.1.2"}, {Name: "op.v0.1.3"}, {Name: "op.v1.0.0-rc.1", Version: "1.0.0-rc.1"},
		{Name: "op.v0.1.9", Version: "0.1.9"}, {Name: "another"},
	}
	picture.SortNodes(nodes)
	var got []string
	for _, n := range nodes {
		got = append(got, n.Name)
	}
	want := "op.v0.1.2 op.v0.1.3 op.v0.1.9 op.v0.1.10 op.v1.0.0-rc.1 op.v1.0.0 another op.latest"
	if strings.Join(got, " ") != want {
		t.Errorf("order:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// konflux (46 real bundles, deprecations written for the corpus): semver order inside channels,
// the default channel and the package, channel and bundle deprecations in every format.
func TestKonfluxOrderDefaultDeprecations(t *testing.T) {
	cat, err := fbc.Load(shared(t, konflux))
	if err != nil {
		t.Fatal(err)
	}
	g, err := picture.Build(modelOf(cat), "konflux-operator", "")
	if err != nil {
		t.Fatal(err)
	}
	cand := channelOf(t, g, "candidate-v0.1")
	last := cand.Nodes[len(cand.Nodes)-1]
	if cand.Nodes[len(cand.Nodes)-2].Name != "konflux-operator.v0.1.9-rc.0" || last.Name != "konflux-operator.v0.1.13-rc.0" || !last.Head {
		t.Errorf("candidate-v0.1 order ends %v", cand.Nodes[len(cand.Nodes)-2:])
	}
	if !channelOf(t, g, "stable-v0.2").Default || channelOf(t, g, "stable-v0.1").Default || g.DefaultChannel != "stable-v0.2" {
		t.Error("default channel not marked")
	}
	if !strings.Contains(g.Deprecation, "konflux-next") || !strings.Contains(channelOf(t, g, "candidate-v0.0").Deprecation, "<see") {
		t.Errorf("deprecations: package %q", g.Deprecation)
	}
	mermaid := render(t, g, picture.FormatMermaid)
	for _, want := range []string{`["channel stable-v0.2 (default)"]`, `["channel candidate-v0.0 (deprecated)"]`,
		"0.0.15-rc.7<br/>(head, deprecated)", "legend (bundles in version order, newest at the top)", "package konflux-operator is deprecated"} {
		if !strings.Contains(mermaid, want) {
			t.Errorf("mermaid lacks %q", want)
		}
	}
	if i, j := strings.Index(mermaid, "v0.1.9-rc.0"), strings.Index(mermaid, "v0.1.13-rc.0"); i < 0 || j < i {
		t.Error("mermaid: 0.1.9 not before 0.1.13")
	}
	dot := render(t, g, picture.FormatDOT)
	if !strings.Contains(dot, `label="channel stable-v0.2 (default)"`) || !strings.Contains(dot, "legend [shape=note") {
		t.Errorf("dot:\n%.1500s", dot)
	}
	checkDOTSyntax(t, []byte(dot))
	svg := render(t, g, picture.FormatSVG)
	wellFormed(t, "svg", svg)
	for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg"`, ">default</text>", ">deprecated package, channel or bundle</text>",
		"deprecated: candidate-v0.0 is deprecated &lt;see https://example.com/konflux?a=1&amp;b=2&gt;",
		"<title>konflux-operator.v0.1.3 0.1.3 (deprecated)\ndeprecated: konflux-operator.v0.1.3 has a known data-loss bug"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	// Newest at the top: in candidate-v0.1's picture 0.1.13 comes before 0.1.9, and that before 0.1.10's absence.
	if i, j := strings.Index(svg, ">konflux-operator.v0.1.13-rc.0<"), strings.Index(svg, ">konflux-operator.v0.1.9-rc.0<"); i < 0 || j < i {
		t.Error("svg: 0.1.13 is not drawn above 0.1.9")
	}
}

// The host-operator pair replaced the channel's only bundle with one that does not upgrade from it:
// the old head is removed (not "head"), its users stranded, and the new bundle is the head.
func TestRemovedHeadIsRemovedNotHead(t *testing.T) {
	g := buildPairDiff(t, "sqlite/host-operator-replace-bundle", "toolchain-host-operator")
	ch := channelOf(t, g, "alpha")
	const oldHead, newHead = "toolchain-host-operator.v0.0.655-262-commit-81eff23-cc2ad15", "toolchain-host-operator.v0.0.665-265-commit-73721bf-6e58af6"
	for _, n := range ch.Nodes {
		got := fmt.Sprintf("head=%v %s stranded=%v", n.Head, n.Status, n.Stranded)
		want := map[string]string{oldHead: "head=false removed stranded=true", newHead: "head=true added stranded=false"}[n.Name]
		if got != want {
			t.Errorf("%s: %s, want %s", n.Name, got, want)
		}
	}
	mermaid := render(t, g, picture.FormatMermaid)
	if !strings.Contains(mermaid, "(old head, removed, stranded)") || strings.Contains(mermaid, "(head, stranded)") || !strings.Contains(mermaid, "(head, added)") {
		t.Errorf("mermaid:\n%s", mermaid)
	}
	svg := render(t, g, picture.FormatSVG)
	wellFormed(t, "svg", svg)
	stranded := regexp.MustCompile(`<g class="node stranded[^"]*"><title>([^<]*)</title>`).FindAllStringSubmatch(svg, -1)
	if len(stranded) != 1 || !strings.HasPrefix(stranded[0][1], oldHead+" ") || !strings.Contains(stranded[0][1], "(old head, removed, stranded)") {
		t.Errorf("stranded nodes in svg: %v", stranded)
	}
}

// Every package of every real pair draws as well-formed SVG with a legend and one node group per
// drawn bundle; the pairs' own marks (stranded, default channel moved, channel removed) show.
func TestSVGOfDiffPairs(t *testing.T) {
	for _, name := range []string{"fbc/hive-operator-v4.18-consecutive", "fbc/ocmirror-node-observability-two-index-snapshots",
		"fbc/project-quay-v4.20-consecutive", "fbc/sailoperator-v4.18-prune-channel", "fbc/victoriametrics-v4.18-bundleobject-to-csvmetadata",
		"sqlite/infrawatch-new-default-channel", "sqlite/host-operator-replace-bundle", "sqlite/cockroach-package-rename", "sqlite/cluster-assessment-add-channel"} {
		o, n, r := comparePair(t, name)
		om, nm := modelOf(o.Catalog), modelOf(n.Catalog)
		for _, pkg := range picture.Packages(om, nm) {
			g, err := picture.BuildDiff(om, nm, r, pkg, "")
			if err != nil {
				t.Fatal(err)
			}
			svg := render(t, g, picture.FormatSVG)
			wellFormed(t, name+" "+pkg, svg)
			if !strings.Contains(svg, ">replaces</text>") || !strings.Contains(svg, ">channel head</text>") {
				t.Errorf("%s %s: no legend", name, pkg)
			}
			if got, want := strings.Count(svg, `<text x="0" y="16" font-size="15" font-weight="bold"`), len(g.Channels); got != want {
				t.Errorf("%s %s: %d channel titles, want %d", name, pkg, got, want)
			}
		}
	}
	sg := render(t, buildPairDiff(t, "sqlite/infrawatch-new-default-channel", "smart-gateway-operator"), picture.FormatSVG)
	for _, want := range []string{`<g class="node stranded finding-breaking"><title>smart-gateway-operator.v2.1.0 2.1.0 (old head, removed, stranded)`,
		">was default</text>", ">default</text>", `fill="#fb8500"`} {
		if !strings.Contains(sg, want) {
			t.Errorf("infrawatch smart-gateway-operator svg lacks %q", want)
		}
	}
	hiveGraph := buildPairDiff(t, "fbc/hive-operator-v4.18-consecutive", "hive-operator")
	hiveGraph.Channels = []picture.Channel{channelOf(t, hiveGraph, "alpha")}
	hive := render(t, hiveGraph, picture.FormatSVG)
	if !strings.Contains(hive, "Only changed bundles, the head and their neighbours are drawn: 71 bundles and 71 edges are not.") ||
		strings.Count(hive, `<g class="node`) != 4 {
		t.Errorf("hive's 75-bundle alpha channel is not cut to its change:\n%.3000s", hive)
	}
}

// sailoperator's stable channel: 20 bundles, 19 replaces, and each bundle but the oldest has a
// skipRange over every lower version: 19+18+…+1 = 190 upgrades (171 besides the replaces). Each skipRange is one band over the versions it covers, joined to its
// bundle, and its range text once beside the bundle; not an edge per covered bundle.
func TestSVGSkipRangeBands(t *testing.T) {
	cat, err := fbc.Load(shared(t, filepath.Join(diffPairs, "fbc/sailoperator-v4.18-prune-channel/old")))
	if err != nil {
		t.Fatal(err)
	}
	g, err := picture.Build(modelOf(cat), "sailoperator", "stable")
	if err != nil {
		t.Fatal(err)
	}
	svg := render(t, g, picture.FormatSVG)
	wellFormed(t, "svg", svg)
	edge := regexp.MustCompile(`<g class="edge (\w+)"><title>[^<]*</title><path d="[^"]*" fill="none" stroke="[^"]*" stroke-width="[^"]*"( stroke-dasharray="([^"]*)")?/>`)
	dash := map[string]map[string]int{}
	for _, m := range edge.FindAllStringSubmatch(svg, -1) {
		if dash[m[1]] == nil {
			dash[m[1]] = map[string]int{}
		}
		dash[m[1]][m[3]]++
	}
	if fmt.Sprint(dash) != "map[replaces:map[:19]]" {
		t.Errorf("edge groups by dash pattern: %v", dash)
	}
	band := regexp.MustCompile(`<g class="skiprange " data-range="([^"]*)"><title>skipRange [^<]* of ([^ ]*): users of (\d+) versions? upgrade straight to it</title>(.*?)</g>`)
	bands := band.FindAllStringSubmatch(svg, -1)
	if len(bands) != 19 {
		t.Fatalf("%d skipRange bands, want 19", len(bands))
	}
	covers := 0
	for _, b := range bands {
		text := html.UnescapeString(b[1])
		if n := strings.Count(svg, ">skipRange: "+b[1]+"</text>"); n != 1 {
			t.Errorf("range %q of %s written %d times beside its bundle, want once", text, b[2], n)
		}
		var n int
		fmt.Sscan(b[3], &n)
		if strings.Count(b[4], "<rect") != 1 || strings.Count(b[4], "<path") > 3 {
			t.Errorf("%s: a band is one rect and at most three lines: %s", b[2], b[4])
		}
		covers += n
	}
	if covers != 190 {
		t.Errorf("the bands cover %d versions in all, want 190", covers)
	}
	if strings.Count(svg, `<g class="node`) != 20 {
		t.Errorf("want 20 nodes")
	}
}

// A channel longer than the cap draws its newest bundles and says how many it left out.
func TestSVGCapsLongChannels(t *testing.T) {
	ch := picture.Channel{Name: "fast", Default: true}
	for i := 0; i < 130; i++ {
		ch.Nodes = append(ch.Nodes, picture.Node{Name: fmt.Sprintf("op.v0.1.%d", i), Version: fmt.Sprintf("0.1.%d", i), Head: i == 129})
		if i > 0 {
			ch.Edges = append(ch.Edges, picture.Edge{From: fmt.Sprintf("op.v0.1.%d", i-1), To: fmt.Sprintf("op.v0.1.%d", i), Kind: picture.EdgeReplaces})
		}
	}
	svg := render(t, &picture.Graph{Package: "op", Channels: []picture.Channel{ch}}, picture.FormatSVG)
	wellFormed(t, "svg", svg)
	if n := strings.Count(svg, `<g class="node`); n != 120 || !strings.Contains(svg, "Only the newest 120 bundles are drawn: 10 bundles and 10 edges are not.") ||
		!strings.Contains(svg, "⋯ 10 bundles not drawn (0.1.0 … 0.1.9)") || strings.Contains(svg, ">op.v0.1.9<") {
		t.Errorf("%d nodes drawn:\n%.2000s", n, svg)
	}
}
