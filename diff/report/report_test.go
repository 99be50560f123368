package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

const konflux = "../../../shared/conformance/fbc/deprecations-konflux/catalog"

// Withdrawing konflux's deprecations (one message holds "<see https://...?a=1&b=2>") and adding a
// package-less custom blob: the Markdown must not let the message's HTML through, and package-less
// findings are listed under "(catalog)".
func reportWithMarkup(t *testing.T) *diff.Report {
	t.Helper()
	if _, err := os.Stat(konflux); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", konflux, err)
	}
	old, err := fbc.Load(konflux)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := fbc.Load(konflux)
	cat.Deprecations = nil
	cat.Others = append(cat.Others, fbc.Meta{Schema: "com.example.note", Blob: json.RawMessage(`{"schema":"com.example.note","text":"a|b"}`)})
	return diff.CompareWith(&diff.Side{Source: "old", Catalog: old}, &diff.Side{Source: "new", Catalog: cat}, v0Only)
}

func TestMarkdownEscapes(t *testing.T) {
	var buf bytes.Buffer
	if err := report.Markdown(&buf, reportWithMarkup(t)); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if strings.Contains(md, "<see") || !strings.Contains(md, "&lt;see https://example.com/konflux?a=1&amp;b=2&gt;") {
		t.Errorf("deprecation message not escaped:\n%s", md)
	}
	if !strings.Contains(md, `<details><summary><b>(catalog)</b>: 1 info finding</summary>`) ||
		!strings.Contains(md, `a\|b`) {
		t.Errorf("package-less section or pipe escaping:\n%s", md)
	}
	if strings.Count(md, "<details") != 3 || strings.Count(md, "</details>") != 3 {
		t.Errorf("want two collapsible sections and the legend:\n%s", md)
	}
	if !strings.Contains(md, "| ℹ️ info | `deprecation-removed` | package konflux-operator | package \"konflux-operator\" no longer deprecated: ") {
		t.Errorf("package finding not located in its package:\n%s", md)
	}
}

func TestStatAndTable(t *testing.T) {
	r := reportWithMarkup(t)
	var stat, table bytes.Buffer
	if err := report.Stat(&stat, r); err != nil {
		t.Fatal(err)
	}
	want := "PACKAGE          | STATUS  | CHANNELS | BUNDLES  | BREAKING | WARNINGS | INFO\n" +
		"(catalog)        | changed | +0 -0 ~0 | +0 -0 ~0 |        0 |        0 |    1\n" +
		"konflux-operator | changed | +0 -0 ~2 | +0 -0 ~2 |        0 |        0 |    5\n" +
		"2 packages changed, 0 unchanged; 0 breaking, 0 warnings, 6 info\n"
	if stat.String() != want {
		t.Errorf("stat:\n%s\nwant:\n%s", stat.String(), want)
	}
	if err := report.Table(&table, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"olmcat diff: OK — 0 breaking, 0 warnings, 6 info in 2 packages (old → new)\n", "(catalog)",
		"package konflux-operator", "deprecation-removed", "channel stable-v0.0"} {
		if !strings.Contains(table.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, table.String())
		}
	}
	if err := report.Write(&table, r, "yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}

// v0Only is the comparison these formatting tests were written for: OLM v0's upgrade findings, whose
// counts they assert. What OLM v1 adds is shown by TestV1Rows (v1_test.go).
var v0Only = diff.Options{OLM: model.OnlyOLMv0}
