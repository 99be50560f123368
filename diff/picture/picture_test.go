package picture_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

const subset412 = "../../../shared/conformance/fbc/community-v4.12-bundleobject-subset/catalog"

func load(t *testing.T) *fbc.Catalog {
	t.Helper()
	if _, err := os.Stat(subset412); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", subset412, err)
	}
	cat, err := fbc.Load(subset412)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func modelOf(cat *fbc.Catalog) *model.Model {
	m, _ := model.FromCatalog(cat)
	return m
}

// kairos candidate-v2: v2.2.0 replaces v2.1.1 and skips v2.0.1 and v2.1.0; v2.1.1 replaces v2.0.1
// and skips v2.1.0.
func TestBuildKairos(t *testing.T) {
	g, err := picture.Build(modelOf(load(t)), "kairos-operator", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Channels) != 1 || g.Channels[0].Name != "candidate-v2" {
		t.Fatalf("channels: %+v", g.Channels)
	}
	ch := g.Channels[0]
	var edges []string
	for _, e := range ch.Edges {
		edges = append(edges, strings.TrimPrefix(e.From, "kairos-operator.")+" "+e.Kind+" "+strings.TrimPrefix(e.To, "kairos-operator."))
	}
	want := []string{"v2.0.1 replaces v2.1.1", "v2.1.0 skips v2.1.1", "v2.0.1 skips v2.2.0", "v2.1.0 skips v2.2.0", "v2.1.1 replaces v2.2.0"}
	if strings.Join(edges, "; ") != strings.Join(want, "; ") {
		t.Errorf("edges:\n got %v\nwant %v", edges, want)
	}
	for _, n := range ch.Nodes {
		if n.Head != (n.Name == "kairos-operator.v2.2.0") {
			t.Errorf("node %s head=%v", n.Name, n.Head)
		}
	}
	var mermaid, dot bytes.Buffer
	if err := picture.Mermaid(&mermaid, g); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"flowchart BT\n", "subgraph c0[\"channel candidate-v2 (default)\"]\n    direction BT\n", `c0n3["kairos-operator.v2.2.0<br/>(head)"]`,
		"c0n0 --> c0n2\n", "c0n1 -.-> c0n3\n", "class c0n3 head", "c0n0 ~~~ c0n1\n    c0n1 ~~~ c0n2\n    c0n2 ~~~ c0n3\n"} {
		if !strings.Contains(mermaid.String(), line) {
			t.Errorf("mermaid lacks %q:\n%s", line, mermaid.String())
		}
	}
	if err := picture.DOT(&dot, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dot.String(), `"candidate-v2/kairos-operator.v2.1.0" -> "candidate-v2/kairos-operator.v2.2.0" [style=dotted];`) {
		t.Errorf("dot:\n%s", dot.String())
	}
	checkDOTSyntax(t, dot.Bytes())
}

// Removing trident v24.10.0 and adding a skipRange to the head: the removed bundle and edge are
// Removed, the head's skipRange changed (no edge: a range on the bundle), the users cut off Stranded.
func TestBuildDiffTrident(t *testing.T) {
	old := load(t)
	cat := load(t)
	const p = "trident-operator.v"
	var bundles []fbc.Bundle
	for _, b := range cat.Bundles {
		if b.Name != p+"24.10.0" {
			bundles = append(bundles, b)
		}
	}
	cat.Bundles = bundles
	for i := range cat.Channels {
		ch := &cat.Channels[i]
		if ch.Package != "trident-operator" {
			continue
		}
		var entries []fbc.ChannelEntry
		for _, e := range ch.Entries {
			if e.Name == p+"25.2.1" {
				e.SkipRange = ">=24.10.1 <25.2.1"
			}
			if e.Name != p+"24.10.0" {
				entries = append(entries, e)
			}
		}
		ch.Entries = entries
	}
	r := diff.Compare(&diff.Side{Catalog: old}, &diff.Side{Catalog: cat})
	g, err := picture.BuildDiff(modelOf(old), modelOf(cat), r, "trident-operator", "stable")
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, n := range g.Channels[0].Nodes {
		status[strings.TrimPrefix(n.Name, p)] = fmt.Sprintf("%s/%v", n.Status, n.Stranded)
	}
	want := map[string]string{"24.2.0": "/true", "24.6.0": "/true", "24.10.0": "removed/false",
		"24.10.1": "/false", "25.2.0": "/false", "25.2.1": "/false"}
	for n, s := range want {
		if status[n] != s {
			t.Errorf("node %s status/stranded %q, want %q", n, status[n], s)
		}
	}
	edges := map[string]picture.Status{}
	for _, e := range g.Channels[0].Edges {
		edges[strings.TrimPrefix(e.From, p)+" "+e.Kind+" "+strings.TrimPrefix(e.To, p)] = e.Status
	}
	// OLM v0 never upgrades to 24.6.0 any more (off the replaces chain from the head); OLM v1 still
	// takes 24.2.0's users there (24.6.0 replaces it), drawn as its own edge
	if edges["24.6.0 replaces 24.10.0"] != picture.Removed || edges["24.10.0 replaces 24.10.1"] != "" ||
		edges["24.2.0 v1 24.6.0"] != picture.Added || len(edges) != 6 {
		t.Errorf("edges: %v", edges)
	}
	head := g.Channels[0].Nodes[len(g.Channels[0].Nodes)-1]
	if head.Name != p+"25.2.1" || head.SkipRange != ">=24.10.1 <25.2.1" || !head.SkipRangeChanged || head.OldSkipRange != "" {
		t.Errorf("head %+v", head)
	}
	var mermaid, dot bytes.Buffer
	if err := picture.Mermaid(&mermaid, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mermaid.String(), "classDef stranded") || !strings.Contains(mermaid.String(), "stroke-dasharray:4") ||
		!strings.Contains(mermaid.String(), "orange: stranded") || !strings.Contains(mermaid.String(), "<br/>skipRange: #gt;=24.10.1 #lt;25.2.1 (added)\"]") {
		t.Errorf("mermaid:\n%s", mermaid.String())
	}
	if err := picture.DOT(&dot, g); err != nil {
		t.Fatal(err)
	}
	checkDOTSyntax(t, dot.Bytes())
}

func TestUnknownPackageAndChannel(t *testing.T) {
	m := modelOf(load(t))
	if _, err := picture.Build(m, "nope", ""); err == nil || !strings.Contains(err.Error(), "trident-operator") {
		t.Errorf("unknown package error should list the packages: %v", err)
	}
	if _, err := picture.Build(m, "trident-operator", "nope"); err == nil || !strings.Contains(err.Error(), "stable") {
		t.Errorf("unknown channel error should list the channels: %v", err)
	}
}

// checkDOTSyntax runs Graphviz on the output when it is installed.
func checkDOTSyntax(t *testing.T, dot []byte) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		return
	}
	out := filepath.Join(t.TempDir(), "g.svg")
	cmd := exec.Command(bin, "-Tsvg", "-o", out)
	cmd.Stdin = bytes.NewReader(dot)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("graphviz rejects the DOT output: %v\n%s", err, msg)
	}
}
