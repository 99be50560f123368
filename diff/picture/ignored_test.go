package picture_test

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc"
)

const subset420 = "../../../shared/conformance/fbc/community-v4.20-csvmetadata-subset/catalog"

// ignoredEdges lists a channel's edges as "from kind to", the ignored ones apart.
func ignoredEdges(t *testing.T, dir, pkg, channel string) (ignored, taken []string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", dir, err)
	}
	cat, err := fbc.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := picture.Build(modelOf(cat), pkg, channel)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range g.Channels[0].Edges {
		s := strings.TrimPrefix(e.From, pkg+".") + " " + e.Kind + " " + strings.TrimPrefix(e.To, pkg+".")
		if e.Ignored {
			ignored = append(ignored, s)
		} else {
			taken = append(taken, s)
		}
	}
	sort.Strings(ignored)
	sort.Strings(taken)
	return ignored, taken
}

// TestIgnoredEdgesClusterpulse: clusterpulse's fast-v0 (community v4.20). v0.3.0 skips v0.2.3, so
// OLM never upgrades to v0.2.3: the five edges into it, which made every bundle below look as if it
// led to the head, are ignored; the two into the head are not. The SVG fades them and says why, the
// Mermaid draws them light grey, and the legends explain it.
func TestIgnoredEdgesClusterpulse(t *testing.T) {
	ignored, taken := ignoredEdges(t, subset420, "clusterpulse", "fast-v0")
	wantIgnored := []string{"v0.1.1 replaces v0.2.3", "v0.1.1 skips v0.2.3", "v0.2.0 skips v0.2.3", "v0.2.1 skips v0.2.3", "v0.2.2 skips v0.2.3"}
	if strings.Join(ignored, "; ") != strings.Join(wantIgnored, "; ") {
		t.Errorf("ignored edges %q, want %q", ignored, wantIgnored)
	}
	if want := []string{"v0.2.3 replaces v0.3.0", "v0.2.3 skips v0.3.0"}; strings.Join(taken, "; ") != strings.Join(want, "; ") {
		t.Errorf("taken edges %q, want %q", taken, want)
	}

	cat, err := fbc.Load(subset420 + "/clusterpulse")
	if err != nil {
		t.Fatal(err)
	}
	g, err := picture.Build(modelOf(cat), "clusterpulse", "fast-v0")
	if err != nil {
		t.Fatal(err)
	}
	var svg, mermaid strings.Builder
	if err := picture.Write(&svg, g, picture.FormatSVG); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(svg.String(), `<g class="edge skips ignored" opacity="0.3">`); got != 1 {
		t.Errorf("%d faded skips buses, want the one into v0.2.3:\n%s", got, svg.String())
	}
	for _, want := range []string{"clusterpulse.v0.2.3 skips clusterpulse.v0.1.1, clusterpulse.v0.2.0, clusterpulse.v0.2.1, clusterpulse.v0.2.2; OLM v0 never takes it",
		"faded: an edge OLM v0 never takes"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if err := picture.Write(&mermaid, g, picture.FormatMermaid); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mermaid.String(), "stroke:#d0d7de\n") || !strings.Contains(mermaid.String(), "light grey arrow: an edge OLM v0 never takes") {
		t.Errorf("the Mermaid chart does not draw or explain the ignored edges:\n%s", mermaid.String())
	}
}

// TestIgnoredEdgesNoneWhereOLMTakesThem: kairos-operator's candidate-v2 (community v4.12): every
// edge leads into v2.2.0 or v2.1.1, both on the replaces chain and skipped by none, so none is
// ignored though the channel skips two bundles.
func TestIgnoredEdgesNoneWhereOLMTakesThem(t *testing.T) {
	if ignored, taken := ignoredEdges(t, subset412, "kairos-operator", "candidate-v2"); len(ignored) != 0 || len(taken) != 5 {
		t.Errorf("ignored %q, taken %q", ignored, taken)
	}
}
