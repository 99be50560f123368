package compat

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The text reports fit TextWidth columns: lines break at spaces, under their indentation.
func TestTextReportsFit80Columns(t *testing.T) {
	keys := make([]string, 12)
	for i := range keys {
		keys[i] = "olm.bundle/some-operator/some-operator.v1.2." + strings.Repeat("9", i)
	}
	r := &HTTPReport{Left: "http://catalogd.example.com:8080/catalogs/operatorhubio-catalog-long",
		Right: "recorded/answers/of/the/other/catalog", Queries: 40, EqualCount: 39, DiffCount: 1}
	r.All.OnlyLeft = keys
	var b strings.Builder
	if err := r.Write(&b, FormatText); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if utf8.RuneCountInString(line) > TextWidth {
			t.Errorf("a line of %d columns: %q", utf8.RuneCountInString(line), line)
		}
	}
	if !strings.Contains(b.String(), "\n      olm.bundle/") || !strings.Contains(b.String(), "and 2 more") {
		t.Errorf("keys not folded under their label:\n%s", b.String())
	}
	got := fold("a b c "+strings.Repeat("x", 100)+" d", 10, "  ")
	if want := "a b c\n  " + strings.Repeat("x", 100) + "\n  d\n"; got != want {
		t.Errorf("fold = %q, want %q", got, want)
	}
}
