package template_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
)

// mermaidOf renders a package whose channel and bundle names are given, as render-template -o
// mermaid does: a chain of replaces, a skip and a skipRange, the first bundle deprecated.
func mermaidOf(t *testing.T, channel string, names []string) string {
	t.Helper()
	var b strings.Builder
	add := func(v any) {
		data, _ := json.Marshal(v)
		b.Write(data)
		b.WriteByte('\n')
	}
	type m = map[string]any
	add(m{"schema": "olm.package", "name": "p", "defaultChannel": channel})
	var entries []m
	for i, n := range names {
		e := m{"name": n}
		if i > 0 {
			e["replaces"] = names[i-1]
		}
		if i == 2 {
			e["skips"] = []string{names[0]}
			e["skipRange"] = "<1.0.1"
		}
		entries = append(entries, e)
	}
	add(m{"schema": "olm.channel", "package": "p", "name": channel, "entries": entries})
	for i, n := range names {
		add(m{"schema": "olm.bundle", "package": "p", "name": n, "image": fmt.Sprintf("r/p:%d", i),
			"properties": []m{{"type": "olm.package", "value": m{"packageName": "p", "version": fmt.Sprintf("1.0.%d", i)}}}})
	}
	add(m{"schema": "olm.deprecations", "package": "p", "entries": []m{
		{"reference": m{"schema": "olm.bundle", "name": names[0]}, "message": "old"},
		{"reference": m{"schema": "olm.channel", "name": channel}, "message": "old"}}})
	cat, err := fbc.LoadReader(strings.NewReader(b.String()), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := template.Write(&out, cat, "mermaid"); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Issue 26: render-template -o mermaid writes opm's bytes for ordinary names (TestWriteMermaid), and
// names that would break the chart — a newline then a directive or a click, a quote ending the
// label, % and backticks — as escapes and entity codes: the chart has the lines of plain names,
// each with its quotes paired, and no directive, comment or click of the catalog's.
func TestWriteMermaidHostileNames(t *testing.T) {
	hostile := []string{
		"p.v1.0.0\n%%{init: {'securityLevel':'loose'}}%%",
		"p.v1.0.1\"]\nclick p-stable-p.v1.0.0 href \"javascript:alert(1)\"",
		"p.v1.0.2 x[\"y\"] --> z;\x1b[2J`%%",
		"p.v1.0.3\n```\n<!--\u202e",
	}
	plain := []string{"p.v1.0.0", "p.v1.0.1", "p.v1.0.2", "p.v1.0.3"}
	got := strings.Split(mermaidOf(t, "stable\n%%{init: {}}%%", hostile), "\n")
	want := strings.Split(mermaidOf(t, "stable", plain), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines, %d with plain names:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	quoted := regexp.MustCompile(`"[^"]*"`)
	opmComment := regexp.MustCompile(`^\s*%% (package|channel) "[^"]*"$`)
	for i, line := range got {
		if first := strings.Fields(want[i]); len(first) > 0 && !strings.HasPrefix(strings.TrimSpace(line), first[0][:1]) {
			t.Errorf("line %d %q is not of the kind of %q", i+1, line, want[i])
		}
		if strings.Count(line, `"`)%2 != 0 || strings.Contains(line, `\"`) || strings.ContainsAny(line, "`\x1b\r") ||
			strings.Contains(line, "%%") && !opmComment.MatchString(line) || strings.HasPrefix(strings.TrimSpace(line), "click") {
			t.Errorf("line %d breaks the chart: %q", i+1, line)
		}
		if bare, plain := quoted.ReplaceAllString(line, `""`), quoted.ReplaceAllString(want[i], `""`); strings.Count(bare, "[") != strings.Count(plain, "[") ||
			len(strings.Fields(bare)) != len(strings.Fields(plain)) || strings.Count(bare, ";") != strings.Count(plain, ";") {
			t.Errorf("line %d has other ids or labels than with plain names: %q, %q", i+1, line, want[i])
		}
	}
}
