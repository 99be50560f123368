package report_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
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

var mermaidLine = []*regexp.Regexp{
	regexp.MustCompile(`^flowchart LR$`),
	regexp.MustCompile(`^  (n\d+)\["[^"<>` + "`" + `]*"\]$`),
	regexp.MustCompile(`^  (n\d+) (-->|==>|-\.->)\|"(replaces|skips|skipRange)(, added|, removed)?"\| (n\d+)$`),
	regexp.MustCompile(`^  classDef (added|removed|stranded|head) [a-z:#0-9, -]+$`),
	regexp.MustCompile(`^  class (n\d+(,n\d+)*) (added|removed|stranded|head)$`),
	regexp.MustCompile(`^  linkStyle (\d+(,\d+)*) stroke:#[0-9a-f]{6}$`),
}

// checkMermaid reads a diagram line by line: every line one of the forms olmcat writes, every node
// declared before an edge names it, every linkStyle index an edge.
func checkMermaid(t *testing.T, block string) (nodes, edges int) {
	t.Helper()
	declared := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		var m []string
		kind := -1
		for i, re := range mermaidLine {
			if m = re.FindStringSubmatch(line); m != nil {
				kind = i
				break
			}
		}
		switch kind {
		case -1:
			t.Errorf("not a line olmcat writes: %q", line)
		case 1:
			declared[m[1]] = true
			nodes++
		case 2:
			if !declared[m[1]] || !declared[m[5]] {
				t.Errorf("edge between undeclared nodes: %q", line)
			}
			edges++
		case 5:
			for _, i := range strings.Split(m[1], ",") {
				var n int
				if _, err := fmt.Sscan(i, &n); err != nil || n >= edges {
					t.Errorf("linkStyle of no edge: %q", line)
				}
			}
		}
	}
	return nodes, edges
}

func TestMarkdownOnInfrawatch(t *testing.T) {
	r, opts := openPair(t, "sqlite/infrawatch-new-default-channel")
	opts.Command = "olmcat diff old.db new.db -o markdown"
	md := markdown(t, r, opts)
	if first := strings.SplitN(md, "\n", 2)[0]; first != "### 🔴 olmcat diff: BREAKING — 2 breaking, 5 warnings, 15 info in 2 packages" {
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
		"| smart-gateway-operator | changed | **1** | 3 | 9 | 1 added | 2 changed |",
		"<details open><summary><b>smart-gateway-operator</b>: 1 breaking, 3 warnings, 9 info</summary>",
		"| 🟠 warning | `default-channel-changed` | package smart-gateway-operator | default channel changed",
		"| 🔴 breaking | `stranded` | channel latest<br>bundle smart-gateway-operator.v2.1.0 | users of smart-gateway-operator.v2.1.0 can no longer upgrade to the head smart-gateway-operator.v2.0.1: upgrades now end at smart-gateway-operator.v2.1.0",
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
	blocks := mermaidBlocks(md)
	if len(blocks) != 1 {
		t.Fatalf("want one diagram (channel latest), got %d:\n%s", len(blocks), md)
	}
	checkMermaid(t, blocks[0])
	for _, want := range []string{`n1["smart-gateway-operator.v2.1.0 (old head, removed, stranded)"]`,
		`n0["smart-gateway-operator.v2.0.1 (head)"]`, `n0 -.->|"replaces, removed"| n1`, "class n1 stranded", "class n0 head"} {
		if !strings.Contains(blocks[0], want) {
			t.Errorf("diagram lacks %q:\n%s", want, blocks[0])
		}
	}
}

// Every pair: valid diagrams, drawn for the pairs whose channel graphs changed, never more than
// the cap of bundles.
func TestMarkdownDiagramsOnPairs(t *testing.T) {
	want := map[string]int{"fbc/hive-operator-v4.18-consecutive": 1, "fbc/project-quay-v4.20-consecutive": 1,
		"fbc/sailoperator-v4.18-prune-channel": 0, "sqlite/cockroach-package-rename": 0, "sqlite/host-operator-replace-bundle": 1}
	for _, name := range allPairs(t) {
		r, opts := openPair(t, name)
		md := markdown(t, r, opts)
		blocks := mermaidBlocks(md)
		if n, ok := want[name]; ok && len(blocks) != n {
			t.Errorf("%s: %d diagrams, want %d", name, len(blocks), n)
		}
		for _, b := range blocks {
			if nodes, _ := checkMermaid(t, b); nodes > 40 {
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
	if !strings.Contains(md, "_Not drawn: 71 bundles and 71 upgrade edges of this channel") ||
		!strings.Contains(md, `(head, added)"]`) || !strings.Contains(md, `(old head)"]`) {
		t.Errorf("hive picture:\n%s", md)
	}
}

// Withdrawing the head of every channel of the quay package changes all their graphs: the cap of
// pictures and of bundles a picture shows, and what was left out is said.
func TestMarkdownCaps(t *testing.T) {
	oldRef, newRef := pairPaths(t, "fbc/project-quay-v4.20-consecutive")
	oldCat, err := fbc.Load(oldRef)
	if err != nil {
		t.Fatal(err)
	}
	newCat, err := fbc.Load(newRef)
	if err != nil {
		t.Fatal(err)
	}
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
	if !regexp.MustCompile(`_Not drawn: \d+ more channels whose graph changed \(at most 2 pictures, and the comment within GitHub's size limit\): project-quay/stable-`).MatchString(md) ||
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

// A comment GitHub accepts: findings past the budget are counted, not listed.
func TestMarkdownStaysWithinGitHubLimit(t *testing.T) {
	r := &diff.Report{Summary: diff.Counts{Info: 3000}}
	for i := range 3000 {
		r.Findings = append(r.Findings, diff.Finding{Kind: diff.BundleAdded, Severity: diff.Info, Package: "p",
			Bundle: fmt.Sprintf("p.v1.0.%d", i), Message: strings.Repeat("a long message ", 5)})
	}
	r.Findings[2999].Severity, r.Findings[2999].Kind, r.Summary = diff.Breaking, diff.Stranded, diff.Counts{Breaking: 1, Info: 2999}
	md := markdown(t, r, report.Options{})
	if n := utf8.RuneCountInString(md); n >= 65536 {
		t.Errorf("%d characters", n)
	}
	if !regexp.MustCompile(`_Not listed, to keep the comment within GitHub's size limit: \d+ more findings of this package, the mildest`).MatchString(md) ||
		!strings.Contains(md, "| 🔴 breaking | `stranded` | bundle p.v1.0.2999 |") || !strings.HasSuffix(md, "-o markdown\n```\n") {
		t.Errorf("findings past the budget:\n%.3000s", md)
	}
}
