package report_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/report"
)

func markdown(t *testing.T, r *diff.Report, opts report.Options) string {
	t.Helper()
	opts.Format = report.FormatMarkdown
	return render(t, r, opts)
}

// mermaidBlocks returns the Mermaid diagrams of a Markdown text.
func mermaidBlocks(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// The lines olmcat's Mermaid charts are made of: a bottom-to-top flowchart (newest at the top),
// quoted node labels, edges (solid replaces, dotted skips, dotted and labelled v1 for OLM v1's
// edges where OLM v0 takes another way), invisible links that keep
// the versions in order, classes and link styles.
var mermaidLine = []*regexp.Regexp{
	regexp.MustCompile(`^flowchart BT$`),
	regexp.MustCompile(`^  (n\d+)\["([^"<>` + "`" + `]|<br/>)*"\]$`),
	regexp.MustCompile(`^  (n\d+) (-->|-\.->|-\. v1 \.->) (n\d+)$`),
	regexp.MustCompile(`^  (n\d+) ~~~ (n\d+)$`),
	regexp.MustCompile(`^  classDef (added|removed|stranded|head|external|deprecated|warning|breaking) [a-z:#0-9,. -]+$`),
	regexp.MustCompile(`^  class (n\d+(,n\d+)*) (added|removed|stranded|head|external|deprecated|warning|breaking)$`),
	regexp.MustCompile(`^  linkStyle (\d+(,\d+)*) stroke:#[0-9a-f]{6}(,stroke-width:[123]px)?(,stroke-dasharray:2 4)?$`),
}

// checkMermaid parses a diagram line by line: every line one of the forms olmcat writes, every
// node declared before a link names it, each consecutive pair of nodes joined by one invisible
// link (version order), every class defined before it is used, every linkStyle index a drawn edge.
func checkMermaid(t *testing.T, block string) (nodes, edges int) {
	t.Helper()
	declared, defined := map[string]bool{}, map[string]bool{}
	links, invisible := 0, 0
	for i, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		var m []string
		kind := -1
		for k, re := range mermaidLine {
			if m = re.FindStringSubmatch(line); m != nil {
				kind = k
				break
			}
		}
		switch {
		case kind == -1:
			t.Errorf("not a line olmcat writes: %q", line)
		case (kind == 0) != (i == 0):
			t.Errorf("line %d: %q", i+1, line)
		case kind == 1:
			if declared[m[1]] || m[1] != fmt.Sprintf("n%d", nodes) {
				t.Errorf("node declared out of order: %q", line)
			}
			declared[m[1]] = true
			nodes++
		case kind == 2 || kind == 3:
			if !declared[m[1]] || !declared[m[len(m)-1]] {
				t.Errorf("link between undeclared nodes: %q", line)
			}
			if kind == 2 {
				if invisible > 0 {
					t.Errorf("edge after the invisible links, so linkStyle indices shift: %q", line)
				}
				edges++
			} else if m[1] != fmt.Sprintf("n%d", invisible) || m[2] != fmt.Sprintf("n%d", invisible+1) {
				t.Errorf("invisible link not between consecutive versions: %q", line)
			} else {
				invisible++
			}
			links++
		case kind == 4:
			defined[m[1]] = true
		case kind == 5:
			if !defined[m[3]] {
				t.Errorf("class used before its classDef: %q", line)
			}
			for _, id := range strings.Split(m[1], ",") {
				if !declared[id] {
					t.Errorf("class of an undeclared node: %q", line)
				}
			}
		case kind == 6:
			for _, i := range strings.Split(m[1], ",") {
				var n int
				if _, err := fmt.Sscan(i, &n); err != nil || n >= edges {
					t.Errorf("linkStyle of no drawn edge: %q", line)
				}
			}
		}
	}
	if nodes > 0 && invisible != nodes-1 {
		t.Errorf("%d invisible links for %d nodes: versions not chained in order", invisible, nodes)
	}
	return nodes, edges
}

// pictureHeads lists the "package/channel" of each picture of a Markdown comment, in order, with
// the severity badge it is drawn under.
func pictureHeads(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^(🔴 breaking|🟠 warning|ℹ️ info) package \*\*([^*]+)\*\*, channel \*\*([^*]+)\*\*`).FindAllStringSubmatch(md, -1) {
		out = append(out, strings.Fields(m[1])[1]+" "+m[2]+"/"+m[3])
	}
	return out
}

func TestMarkdownOnInfrawatch(t *testing.T) {
	r, opts := openPair(t, "sqlite/infrawatch-new-default-channel")
	opts.Command = "olmcat diff old.db new.db -o markdown"
	md := markdown(t, r, opts)
	if first := strings.SplitN(md, "\n", 2)[0]; first != "### 🔴 olmcat diff: BREAKING — 2 breaking, 5 warnings, 17 info in 2 packages" {
		t.Errorf("verdict line %q", first)
	}
	prose := regexp.MustCompile("(?s)```mermaid\n.*?```").ReplaceAllString(md, "")
	for _, arrow := range []string{"→", "->", "- →", "→ -"} {
		if strings.Contains(prose, arrow) {
			t.Errorf("arrow notation %q in:\n%s", arrow, md)
		}
	}
	for _, want := range []string{
		"| package | status | breaking | warnings | info | channels | bundles |",
		"| smart-gateway-operator | changed | **1** | 3 | 10 | 1 added, 1 head moved | 2 changed |",
		"#### 🔴 Breaking: 2 findings in 2 packages\n\n", "<details open><summary><b>smart-gateway-operator</b>: 1 breaking finding</summary>",
		"#### 🟠 Warnings: 5 findings in 2 packages\n\n", "<details open><summary><b>smart-gateway-operator</b>: 3 warnings</summary>",
		"<details><summary><b>smart-gateway-operator</b>: 10 info findings</summary>",
		"| 🟠 warning | `default-channel-changed` | package smart-gateway-operator | default channel changed",
		"| 🔴 breaking | `stranded` | channel latest<br>bundle smart-gateway-operator.v2.1.0 | users of smart-gateway-operator.v2.1.0 can no longer upgrade to the head smart-gateway-operator.v2.0.1: OLM v0 offers them no upgrade now; before, it was the head itself |",
		`removed from channel "latest" (replaces smart-gateway-operator.v2.0.1)`,
		"<details><summary>Legend</summary>", "**stranded**",
		"Reproduce with:\n\n```sh\nolmcat diff old.db new.db -o markdown\n```\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	section := md[strings.Index(md, "<b>smart-gateway-operator</b>"):]
	if b, i := strings.Index(section, "🔴 breaking"), strings.Index(section, "ℹ️ info"); b < 0 || i < b {
		t.Errorf("breaking row not before info rows:\n%s", section)
	}
	// Both breaking channels first (one removed, drawn as its old graph), then the added ones,
	// whose bundles have warnings.
	heads := pictureHeads(md)
	if want := []string{"breaking service-telemetry-operator/latest", "breaking smart-gateway-operator/latest",
		"warning service-telemetry-operator/stable-1.1", "warning smart-gateway-operator/stable-1.1"}; fmt.Sprint(heads) != fmt.Sprint(want) {
		t.Errorf("pictures %q, want %q", heads, want)
	}
	if !strings.Contains(md, "🔴 breaking package **service-telemetry-operator**, channel **latest** (removed: its graph in the old catalog):") {
		t.Errorf("the removed channel is not said to be drawn as its old graph:\n%s", md)
	}
	blocks := mermaidBlocks(md)
	if len(blocks) != 4 {
		t.Fatalf("want 4 diagrams, got %d:\n%s", len(blocks), md)
	}
	for _, b := range blocks {
		checkMermaid(t, b)
	}
	for _, want := range []string{`n1["smart-gateway-operator.v2.1.0<br/>(old head, removed, stranded)"]`,
		`n0["smart-gateway-operator.v2.0.1<br/>(head)"]`, "  n0 --> n1\n", "class n1 stranded", "class n0 head", "class n1 breaking",
		"linkStyle 0 stroke:#cf222e,stroke-width:2px"} {
		if !strings.Contains(blocks[1], want) {
			t.Errorf("diagram lacks %q:\n%s", want, blocks[1])
		}
	}
}

// Every pair: valid diagrams, drawn for the pairs whose channel graphs changed, never more than
// the cap of bundles.
func TestMarkdownDiagramsOnPairs(t *testing.T) {
	want := map[string]int{"fbc/hive-operator-v4.18-consecutive": 1, "fbc/project-quay-v4.20-consecutive": 1,
		"fbc/sailoperator-v4.18-prune-channel": 1, "sqlite/cockroach-package-rename": 3, "sqlite/host-operator-replace-bundle": 1}
	for _, name := range allPairs(t) {
		r, opts := openPair(t, name)
		md := markdown(t, r, opts)
		blocks := mermaidBlocks(md)
		if n, ok := want[name]; ok && len(blocks) != n {
			t.Errorf("%s: %d diagrams, want %d", name, len(blocks), n)
		}
		for _, b := range blocks {
			if nodes, _ := checkMermaid(t, b); nodes > 30 {
				t.Errorf("%s: %d nodes in a diagram", name, nodes)
			}
		}
		if !strings.Contains(md, "Reproduce with:\n\n```sh\nolmcat diff ") {
			t.Errorf("%s: no command to reproduce:\n%s", name, md)
		}
	}
	// hive's alpha has 75 bundles: the picture keeps the change and its neighbourhood.
	r, opts := openPair(t, "fbc/hive-operator-v4.18-consecutive")
	md := markdown(t, r, opts)
	if !regexp.MustCompile(`_Not drawn: \d+ bundles and \d+ upgrade edges of this channel`).MatchString(md) ||
		!strings.Contains(md, `(head, added)"]`) || !strings.Contains(md, `(old head)"]`) {
		t.Errorf("hive picture:\n%s", md)
	}
}

// Withdrawing the head of every channel of the quay package changes all their graphs: the cap of
// pictures and of bundles a picture shows, and what was left out is said.
func TestMarkdownCaps(t *testing.T) {
	oldCat, newCat := loadPair(t, "fbc/project-quay-v4.20-consecutive")
	for i := range newCat.Channels {
		if n := len(newCat.Channels[i].Entries); n > 1 {
			newCat.Channels[i].Entries = newCat.Channels[i].Entries[:n-1]
		}
	}
	oldSide, newSide := &diff.Side{Source: "old", Catalog: oldCat}, &diff.Side{Source: "new", Catalog: newCat}
	r := diff.Compare(oldSide, newSide)
	md := markdown(t, r, report.Options{Old: oldSide, New: newSide, MaxDiagrams: 2, MaxNodes: 3})
	blocks := mermaidBlocks(md)
	if len(blocks) != 2 {
		t.Fatalf("%d diagrams, want 2", len(blocks))
	}
	for _, b := range blocks {
		if nodes, _ := checkMermaid(t, b); nodes > 3 {
			t.Errorf("%d nodes, cap 3:\n%s", nodes, b)
		}
	}
	if full := markdown(t, r, report.Options{Old: oldSide, New: newSide}); utf8.RuneCountInString(full) >= 65536 {
		t.Errorf("%d characters with the default caps", utf8.RuneCountInString(full))
	}
	if !regexp.MustCompile("_Not drawn, the mildest left out first \\(at most 2 pictures, and the comment within GitHub's size limit\\): \\d+ more channels whose graph changed \\((\\d+ breaking|\\d+ warning|\\d+ info)(, \\d+ (warning|info))*\\): project-quay/stable-.*`olmcat diff old new -o html > report.html` draws every one._").MatchString(md) ||
		!strings.Contains(md, "(at most 3 bundles a picture)") {
		t.Errorf("left-out notes missing:\n%s", md)
	}
}

func TestCommandLine(t *testing.T) {
	got := report.CommandLine("olmcat", "diff", "--git", "origin/main", "my catalogs/", "it's", "", "-o", "markdown")
	if want := `olmcat diff --git origin/main 'my catalogs/' 'it'\''s' '' -o markdown`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A comment GitHub accepts: findings past the budget are counted, not listed; the breaking one,
// last in the report's order, comes first.
func TestMarkdownStaysWithinGitHubLimit(t *testing.T) {
	r := &diff.Report{Summary: diff.Counts{Info: 3000}}
	for i := range 3000 {
		r.Findings = append(r.Findings, diff.Finding{Kind: diff.BundleAdded, Severity: diff.Info, Package: "p",
			Bundle: fmt.Sprintf("p.v1.0.%d", i), Message: strings.Repeat("a long message ", 5)})
	}
	r.Findings[2999].Severity, r.Findings[2999].Kind, r.Summary = diff.Breaking, diff.Stranded, diff.Counts{Breaking: 1, Info: 2999}
	md := markdown(t, r, report.Options{})
	if n := len(md); n > report.DefaultMaxBytes {
		t.Errorf("%d bytes", n)
	}
	if !regexp.MustCompile(`\| ℹ️ info findings \| [\d,]+ \| [\d,]+ \(1 package\) \|`).MatchString(md) ||
		!strings.Contains(md, "| 🔴 breaking | `stranded` | bundle p.v1.0.2999 |") || !strings.HasSuffix(md, "-o markdown\n```\n") {
		t.Errorf("findings past the budget:\n%.3000s", md)
	}
}
