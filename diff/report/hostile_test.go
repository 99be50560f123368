package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
)

// The names of issue 26: each tries to forge or hide what the reviewer of a pull request reads.
var hostileNames = []string{
	"x.v1.0.1\x1b[2J", // clears the screen, and the verdict with it
	"x.v1.0.2\x1b]8;;http://evil\x07click\x1b]8;;\x07",   // a terminal hyperlink
	"x.v1.0.3\rolmcat: valid: 0 errors",                  // rewrites its line into a fake verdict
	"x.v1.0.4\n```\n",                                    // closes the ```mermaid fence of a comment
	"x.v1.0.5\n%%{init: {'securityLevel':'loose'}}%%",    // a Mermaid directive on its own line
	"x.v1.0.6<!--",                                       // hides the rest of a comment
	"x.v1.0.7\u202egnp.exe",                              // reorders what follows
	"x.v1.0.8\"]\nclick n0 href \"javascript:alert(1)\"", // ends a Mermaid label, adds a click
	"x.v1.0.9 | forged | cell |",                         // a table cell
	"x.v1.1.0\u0085\u009b2J\x7f\u2028",                   // C1 controls, DEL, a line separator
	"x.v1.1.1 **bold** [link](http://evil) `code` \\",    // Markdown markup
}

// hostileCatalogs are two revisions of a package whose names are names[i], with a hostile channel
// name and deprecation message: the new one adds bundles and a second head, so that the diff has
// breaking findings, stranded bundles and a picture. benign gives the same catalogs with plain
// names, to compare the structure of what olmcat writes.
func hostileCatalogs(t *testing.T, names []string, channel, message string) (oldSide, newSide *diff.Side) {
	t.Helper()
	cat := func(n int, extraHead bool) *fbc.Catalog {
		var b strings.Builder
		add := func(v any) {
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
			b.WriteByte('\n')
		}
		type m = map[string]any
		add(m{"schema": "olm.package", "name": "hostile", "defaultChannel": channel})
		entries := []m{{"name": "x.v1.0.0"}}
		all := []string{"x.v1.0.0"}
		for _, name := range names[:n] {
			entries = append(entries, m{"name": name, "replaces": all[len(all)-1]})
			all = append(all, name)
		}
		if extraHead {
			entries = append(entries, m{"name": "x.v9.0.0" + names[0], "replaces": "x.v1.0.0"})
			all = append(all, "x.v9.0.0"+names[0])
		}
		add(m{"schema": "olm.channel", "package": "hostile", "name": channel, "entries": entries})
		for i, name := range all {
			add(m{"schema": "olm.bundle", "package": "hostile", "name": name, "image": fmt.Sprintf("quay.io/x/b:%d", i),
				"properties": []m{{"type": "olm.package", "value": m{"packageName": "hostile", "version": fmt.Sprintf("1.0.%d", i)}}}})
		}
		if extraHead {
			add(m{"schema": "olm.deprecations", "package": "hostile", "entries": []m{
				{"reference": m{"schema": "olm.bundle", "name": all[1]}, "message": message}}})
		}
		c, err := fbc.LoadReader(strings.NewReader(b.String()), "catalog.json")
		if err != nil {
			t.Skipf("the loader refuses the names (%v): nothing to draw", err)
		}
		return c
	}
	n := min(3, len(names))
	return &diff.Side{Source: "old", Format: "fbc", Catalog: cat(n, false)},
		&diff.Side{Source: "new", Format: "fbc", Catalog: cat(len(names), true)}
}

func benign(names []string) []string {
	out := make([]string, len(names))
	for i := range names {
		out[i] = fmt.Sprintf("x.v2.%d.0", i)
	}
	return out
}

// sgr is the only escape sequence olmcat writes itself: its colours.
var sgr = regexp.MustCompile("\x1b\\[(1;31|33|36|0)m")

// checkTerminal fails on any control or format character of text a terminal shows, but newlines
// and olmcat's colours: none may clear the screen, rewrite a line or reorder what follows.
func checkTerminal(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s: bytes that are not UTF-8:\n%s", what, s)
	}
	for i, r := range sgr.ReplaceAllString(s, "") {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
			r == 0x2028 || r == 0x2029 {
			t.Fatalf("%s: %U raw at byte %d:\n%s", what, r, i, s)
		}
	}
}

var markdownParser = goldmark.New(goldmark.WithExtensions(extension.GFM))

// blocks lists the block structure of a Markdown document as a CommonMark parser (goldmark, with
// GitHub's tables) reads it: the kind of every block and table cell, the language of each code
// block and how many lines it has.
func blocks(md string) (out []string, mermaid []string) {
	src := []byte(md)
	doc := markdownParser.Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			var body strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				body.Write(seg.Value(src))
			}
			lang := string(n.Language(src))
			out = append(out, fmt.Sprintf("code %s, %d lines", lang, n.Lines().Len()))
			if lang == "mermaid" {
				mermaid = append(mermaid, body.String())
			}
			return ast.WalkSkipChildren, nil
		case *extast.TableCell:
			out = append(out, "cell")
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			out = append(out, fmt.Sprintf("html %d, %d lines", n.HTMLBlockType, n.Lines().Len()))
			return ast.WalkSkipChildren, nil
		}
		if n.Type() == ast.TypeBlock {
			out = append(out, n.Kind().String())
		}
		return ast.WalkContinue, nil
	})
	return out, mermaid
}

// hostileOutputs renders a diff of the hostile catalogs in every format for people.
type hostileOutputs struct {
	table, colour, markdown, html string
	svg, mermaid, dot, graphHTML  string
}

func renderHostile(t *testing.T, names []string, channel, message string) hostileOutputs {
	t.Helper()
	o, n := hostileCatalogs(t, names, channel, message)
	r := diff.Compare(o, n)
	var out hostileOutputs
	for _, f := range []struct {
		dst  *string
		opts report.Options
	}{
		{&out.table, report.Options{}},
		{&out.colour, report.Options{Color: true, Width: 80}},
		{&out.markdown, report.Options{Format: report.FormatMarkdown, Old: o, New: n}},
	} {
		var b bytes.Buffer
		if err := report.Render(&b, r, f.opts); err != nil {
			t.Fatal(err)
		}
		*f.dst = b.String()
	}
	var b bytes.Buffer
	if err := report.HTML(&b, r, modelOf(o.Catalog), modelOf(n.Catalog)); err != nil {
		t.Fatal(err)
	}
	out.html = b.String()
	g, err := picture.BuildDiff(modelOf(o.Catalog), modelOf(n.Catalog), r, "hostile", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		dst    *string
		format string
	}{{&out.svg, picture.FormatSVG}, {&out.mermaid, picture.FormatMermaid}, {&out.dot, picture.FormatDOT}, {&out.graphHTML, picture.FormatHTML}} {
		var b bytes.Buffer
		if err := picture.Write(&b, g, f.format); err != nil {
			t.Fatal(err)
		}
		*f.dst = b.String()
	}
	return out
}

// plainOutputs are the outputs of plain names, by their number (the fuzzer needs them once).
var plainOutputs = map[int]hostileOutputs{}

// checkHostile checks every output of hostile names against the same outputs of plain names.
func checkHostile(t *testing.T, names []string, channel, message string) {
	t.Helper()
	got := renderHostile(t, names, channel, message)
	want, ok := plainOutputs[len(names)]
	if !ok {
		want = renderHostile(t, benign(names), "stable", "plain")
		plainOutputs[len(names)] = want
	}

	// Terminal: no control character but olmcat's colours; the verdict is the first line, once.
	for what, s := range map[string]string{"table": got.table, "coloured table": got.colour} {
		checkTerminal(t, what, s)
		s = sgr.ReplaceAllString(s, "")
		if !strings.HasPrefix(s, "olmcat diff: BREAKING") || strings.Count(s, "olmcat diff:") != 1 || strings.Contains(s, "olmcat: valid") && !strings.Contains(s, `\rolmcat: valid`) {
			t.Fatalf("%s: the verdict is not the first line, once:\n%s", what, s)
		}
		if gotRows, wantRows := len(tableSeverities(s)), len(tableSeverities(want.table)); what == "table" && gotRows != wantRows {
			t.Fatalf("%s: %d rows, %d with plain names:\n%s", what, gotRows, wantRows, s)
		}
	}

	// Markdown: exactly the blocks olmcat writes for plain names, each picture olmcat's Mermaid
	// and no directive, comment or click anywhere.
	gotBlocks, gotCharts := blocks(got.markdown)
	wantBlocks, _ := blocks(want.markdown)
	if strings.Join(gotBlocks, "\n") != strings.Join(wantBlocks, "\n") {
		t.Fatalf("the Markdown's blocks are not those of plain names:\ngot  %q\nwant %q\n%s", gotBlocks, wantBlocks, got.markdown)
	}
	if len(gotCharts) == 0 {
		t.Fatalf("no picture in the Markdown:\n%s", got.markdown)
	}
	for _, chart := range gotCharts {
		checkMermaid(t, chart)
	}
	for what, s := range map[string]string{"markdown": got.markdown, "mermaid": got.mermaid} {
		if strings.Contains(s, "%%") || strings.Contains(s, "<!--") || regexp.MustCompile(`(?m)^\s*click\b`).MatchString(s) {
			t.Fatalf("%s holds a directive, a comment or a click:\n%s", what, s)
		}
		checkTerminal(t, what, s)
	}
	checkGraphMermaid(t, got.mermaid, want.mermaid)
	checkTerminal(t, "dot", got.dot)

	// SVG and HTML: well-formed, nothing XML cannot hold, no bidirectional override.
	checkXML(t, "graph -o svg", got.svg)
	for what, page := range map[string]string{"diff -o html": got.html, "graph -o html": got.graphHTML} {
		checkTerminal(t, what, strings.NewReplacer("\t", "", "\r", "").Replace(page))
		svgs := svgElement.FindAllString(page, -1)
		if len(svgs) == 0 && what == "graph -o html" {
			svgs = regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1)
		}
		if len(svgs) == 0 {
			t.Fatalf("%s: no picture", what)
		}
		for _, svg := range svgs {
			checkXML(t, what, svg)
		}
		if strings.Contains(page, "<!--") {
			t.Fatalf("%s: a comment opener", what)
		}
	}
}

// checkGraphMermaid: graph -o mermaid has the lines of plain names, line by line of the same kind
// (the first word), each label one quoted string.
func checkGraphMermaid(t *testing.T, got, want string) {
	t.Helper()
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(gl) != len(wl) {
		t.Fatalf("graph -o mermaid has %d lines, %d with plain names:\n%s", len(gl), len(wl), got)
	}
	for i := range gl {
		gf, wf := strings.Fields(gl[i]), strings.Fields(wl[i])
		if len(gf) > 0 && len(wf) > 0 && strings.ContainsAny(gf[0][:1], "nc") != strings.ContainsAny(wf[0][:1], "nc") ||
			strings.Count(gl[i], `"`) != strings.Count(wl[i], `"`) || strings.ContainsAny(gl[i], "`%") {
			t.Fatalf("graph -o mermaid line %d %q, with plain names %q", i+1, gl[i], wl[i])
		}
	}
}

// Issue 26: every hostile name, through every format for people, as a bundle name, with a hostile
// channel name and deprecation message.
func TestHostileNames(t *testing.T) {
	checkHostile(t, hostileNames, "stable", "plain")
	checkHostile(t, hostileNames, "stable\x1b[2J\n```\n%%{init: {}}%%<!--\u202e", "gone\x1b[2J\n```mermaid\n<!--")
}

// FuzzHostileNames feeds random names (with control characters, newlines, backticks and markup)
// through the table, Markdown, Mermaid, SVG and HTML and checks their structure as
// TestHostileNames does.
func FuzzHostileNames(f *testing.F) {
	for _, n := range hostileNames {
		f.Add(n, "stable")
	}
	f.Add("a\n```mermaid\nb", "c\r\x1b[0m")
	f.Add("<svg onload=x>", "]]>&amp;")
	f.Fuzz(func(t *testing.T, name, channel string) {
		if name == "" || channel == "" || strings.HasPrefix(name, "x.v1.0.0") || strings.HasPrefix(name, "x.v9.0.0") {
			t.Skip()
		}
		// Two hostile bundles: the name, and it with a suffix, so that one is a head.
		checkHostile(t, []string{name, name + "-2"}, channel, name)
	})
}
