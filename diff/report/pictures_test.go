package report_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
)

// The largest real pair at hand: two subsets of community-operators-prod, catalogs/v4.12 (six
// packages, olm.bundle.object) and catalogs/v4.20 (nine, olm.csv.metadata). Between them
// dell-csm-operator and three more packages are removed, kubernaut-operator (candidate-v1, whose
// 1.3.x users have no path to the head) and seven more added, ecr-secret-operator loses two channels.
const (
	community412 = "../../../shared/conformance/fbc/community-v4.12-bundleobject-subset/catalog"
	community420 = "../../../shared/conformance/fbc/community-v4.20-csvmetadata-subset/catalog"
)

func openCommunity(t *testing.T) (*diff.Report, report.Options) {
	t.Helper()
	for _, dir := range []string{community412, community420} {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("community catalog subsets not available (%s): %v", dir, err)
		}
	}
	o, n, err := input.OpenPair(context.Background(), community412, community420, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return diff.Compare(o, n), report.Options{Old: o, New: n}
}

var severityRank = map[string]int{"breaking": 3, "warning": 2, "info": 1}

// checkWorstFirst fails unless the pictures go from the worst severity to the mildest, by package
// and channel within a severity.
func checkWorstFirst(t *testing.T, heads []string) {
	t.Helper()
	for i := 1; i < len(heads); i++ {
		a, b := strings.Fields(heads[i-1]), strings.Fields(heads[i])
		if severityRank[a[0]] < severityRank[b[0]] || (a[0] == b[0] && a[1] > b[1]) {
			t.Errorf("picture %d (%s) after %s", i+1, heads[i], heads[i-1])
		}
	}
}

// The Markdown of the largest pair draws the breaking channels first (the removed ones as their old
// graph, said so), then the warning ones, kubernaut's among them; leaves out info ones past the
// cap, naming them and the -o html command that draws them; and parses as olmcat's Mermaid.
func TestMarkdownPicturesWorstFirstOnCommunity(t *testing.T) {
	r, opts := openCommunity(t)
	md := markdown(t, r, opts)
	if n := utf8.RuneCountInString(md); n >= 65536 {
		t.Errorf("%d characters: over GitHub's comment limit", n)
	}
	heads := pictureHeads(md)
	checkWorstFirst(t, heads)
	want := []string{"breaking dell-csm-operator/stable", "breaking ecr-secret-operator/v0.3", "breaking ecr-secret-operator/v0.4",
		"breaking kairos-operator/candidate-v2", "breaking odf-node-recovery-operator/alpha", "breaking visionone-containersecurity/alpha",
		"breaking visionone-containersecurity/stable", "warning clusterpulse/fast-v0", "warning ecr-secret-operator/alpha",
		"warning kubernaut-operator/candidate-v1"}
	if fmt.Sprint(heads) != fmt.Sprint(want) {
		t.Errorf("pictures:\n got %q\nwant %q", heads, want)
	}
	if !strings.Contains(md, "🔴 breaking package **dell-csm-operator**, channel **stable** (removed: its graph in the old catalog):") {
		t.Error("the removed channel is not drawn as its old graph")
	}
	blocks := mermaidBlocks(md)
	if len(blocks) != len(heads) {
		t.Errorf("%d diagrams, %d headings", len(blocks), len(heads))
	}
	for _, b := range blocks {
		checkMermaid(t, b)
	}
	kubernaut := blocks[len(blocks)-1]
	for _, line := range []string{`  n4["kubernaut-operator.v1.5.0<br/>(head)"]`, "class n0,n1,n2,n3,n4 added", "  n3 --> n4\n", "  n2 -.-> n3\n", "class n4 head"} {
		if !strings.Contains(kubernaut, line) {
			t.Errorf("kubernaut's candidate-v1 lacks %q:\n%s", line, kubernaut)
		}
	}
	note := regexp.MustCompile("_Not drawn, the mildest left out first \\(at most 10 pictures, and the comment within GitHub's size limit\\): " +
		// (the 3 warnings: bundles OLM v1 does not install, new in those channels: v1-not-installable)
		`13 more channels whose graph changed \(3 warning, 10 info\): multicluster-global-hub-operator/release-1.6, multicluster-global-hub-operator/release-1.7, rabbitmq-messaging-topology-operator/stable, clusterpulse/fast-v1, kepler-operator/alpha, .*trident-operator/stable\. ` +
		"`olmcat diff [^`]* -o html > report.html` draws every one._")
	if !note.MatchString(md) {
		t.Errorf("no note of the channels left out:\n%s", md[strings.Index(md, "#### Upgrade"):])
	}
}

// With no cap on the number of pictures nor their size, the budget alone keeps the comment within
// GitHub's limit: quay's channels, each copied 5 times, their last entries withdrawn and every
// bundle drawn, do not fit. What is dropped is the mildest, counted, named and pointed to
// -o html.
func TestMarkdownPictureBudget(t *testing.T) {
	oldCat, newCat := loadPair(t, "fbc/project-quay-v4.20-consecutive")
	for _, cat := range []*fbc.Catalog{oldCat, newCat} {
		channels := cat.Channels
		for k := range 5 {
			for _, c := range channels {
				c.Name = fmt.Sprintf("%s-copy-%d", c.Name, k)
				c.Entries = append([]fbc.ChannelEntry(nil), c.Entries...)
				cat.Channels = append(cat.Channels, c)
			}
		}
	}
	for i := range newCat.Channels {
		if n := len(newCat.Channels[i].Entries); n > 1 {
			newCat.Channels[i].Entries = newCat.Channels[i].Entries[:n-1]
		}
	}
	oldSide, newSide := &diff.Side{Source: "old", Catalog: oldCat}, &diff.Side{Source: "new", Catalog: newCat}
	r := diff.CompareWith(oldSide, newSide, v0Only)
	md := markdown(t, r, report.Options{Old: oldSide, New: newSide, MaxDiagrams: 1000, MaxNodes: 1000})
	if n := utf8.RuneCountInString(md); n >= 65536 {
		t.Errorf("%d characters: over GitHub's comment limit", n)
	}
	heads := pictureHeads(md)
	checkWorstFirst(t, heads)
	m := regexp.MustCompile(`_Not drawn, the mildest left out first \(at most 1000 pictures, and the comment within GitHub's size limit\): (\d+) more channels? whose graph changed`).FindStringSubmatch(md)
	if m == nil || len(heads) < 2 {
		t.Fatalf("%d pictures and no note of those dropped:\n%s", len(heads), md[max(0, len(md)-3000):])
	}
	var dropped int
	fmt.Sscan(m[1], &dropped)
	// 11 channels have several bundles; withdrawing stable-3.17's last one undoes the new
	// revision's one change there: 10 changed channels, 6 times.
	if len(heads)+dropped != 60 {
		t.Errorf("%d drawn + %d dropped, want the 60 changed channels", len(heads), dropped)
	}
	if !strings.HasSuffix(md, "-o markdown\n```\n") {
		t.Error("the comment lost its end")
	}
}

// A skipRange is written once, on the bundle that declares it, not drawn as an edge per covered
// bundle: node-observability's new head has skipRange <0.2.0, sailoperator's removed nightly head
// >=1.0.0 <1.30.0-nightly-2026-08-04 (the removed channel drawn as its old graph).
func TestMarkdownSkipRangeOnItsBundle(t *testing.T) {
	for pair, want := range map[string]string{
		"fbc/ocmirror-node-observability-two-index-snapshots": `n1["node-observability-operator.v0.2.0<br/>(head, added)<br/>skipRange: #lt;0.2.0"]`,
		"fbc/sailoperator-v4.18-prune-channel":                `<br/>(old head)<br/>skipRange: #gt;=1.0.0 #lt;1.30.0-nightly-2026-08-04"]`,
	} {
		r, opts := openPair(t, pair)
		md := markdown(t, r, opts)
		if strings.Count(md, "skipRange: ") != 1 || !strings.Contains(md, want) {
			t.Errorf("%s: want the range once, on its bundle: %s\n%s", pair, want, md)
		}
		for _, b := range mermaidBlocks(md) {
			checkMermaid(t, b)
		}
	}
	r, opts := openPair(t, "fbc/sailoperator-v4.18-prune-channel")
	if heads := pictureHeads(markdown(t, r, opts)); fmt.Sprint(heads) != "[breaking sailoperator/1.30-nightly]" {
		t.Errorf("sailoperator's removed channel: pictures %q", heads)
	}
}

// The HTML of the largest pair: the summary table and the sections worst first, packages with only
// info findings collapsed, one legend, and the bundles findings name ringed, the finding in their
// tooltip and its rule beside them.
func TestHTMLWorstFirstOnCommunity(t *testing.T) {
	r, opts := openCommunity(t)
	var b bytes.Buffer
	if err := report.HTML(&b, r, modelOf(opts.Old.Catalog), modelOf(opts.New.Catalog)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkSelfContained(t, "community", page, false)
	checkInfoCollapsed(t, "community", page)
	var summary []string
	row := regexp.MustCompile(`<tr><td><a href="#package-([^"]*)">[^<]*</a></td><td>[a-z]*</td><td>[^<]*</td><td>[^<]*</td><td>(\d+)</td><td>(\d+)</td><td>\d+</td></tr>`)
	for _, m := range row.FindAllStringSubmatch(page, -1) {
		sev := "info"
		switch {
		case m[2] != "0":
			sev = "breaking"
		case m[3] != "0":
			sev = "warning"
		}
		summary = append(summary, sev+" "+m[1])
	}
	if len(summary) != 13 {
		t.Fatalf("%d summary rows, want 13", len(summary))
	}
	checkWorstFirst(t, summary)
	if summary[0] != "breaking dell-csm-operator" || summary[5] != "warning clusterpulse" {
		t.Errorf("summary %q", summary)
	}
	if n := strings.Count(page, `aria-label="legend"`); n != 1 {
		t.Errorf("%d legends", n)
	}
	// 4 packages and the catalog-wide crd-upgrade-unchecked: multicluster-global-hub-operator and
	// rabbitmq-messaging-topology-operator have bundles OLM v1 does not install (warnings)
	if n := strings.Count(page, `<details class="info-only">`); n != 5 {
		t.Errorf("%d collapsed info-only packages, want 5", n)
	}
	for _, want := range []string{
		`<g class="node finding-warning"><title>ecr-secret-operator.v0.4.0 0.4.0` + "\nwarning problem-introduced: new catalog: bundle &#34;ecr-secret-operator.v0.4.0&#34; is on the replaces chain but skipped by ecr-secret-operator.v0.5.0",
		`>warning: skipped-on-replaces-chain</text>`, `>warning: unreachable-from-head</text>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", html.EscapeString(want))
		}
	}
}

// The skipRange of an HTML picture is a band with its range text beside the bundle: sailoperator's
// removed nightly head.
func TestHTMLSkipRangeBand(t *testing.T) {
	page, _ := htmlOfPair(t, "fbc/sailoperator-v4.18-prune-channel")
	const text = "&gt;=1.0.0 &lt;1.30.0-nightly-2026-08-04"
	if !strings.Contains(page, `<g class="skiprange removed" data-range="`+text+`"><title>skipRange `+text+
		` of sailoperator.v1.30.0-nightly-2026-08-04: users of 1 version upgrade straight to it (removed)</title><rect `) {
		t.Errorf("no band for the skipRange:\n%s", page)
	}
	if strings.Count(page, ">skipRange: "+text+"</text>") != 1 {
		t.Error("the range is not written once beside its bundle")
	}
}
