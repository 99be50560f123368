package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	sqlitePairs    = "../../../shared/diffpairs/sqlite"
	konfluxCatalog = "../../../shared/conformance/fbc/deprecations-konflux/catalog"
)

func sqlitePair(t *testing.T, name string) (string, string) {
	t.Helper()
	dir := filepath.Join(sqlitePairs, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("diff pairs not available (%s): %v", dir, err)
	}
	return filepath.Join(dir, "old.db"), filepath.Join(dir, "new.db")
}

// --package may be left out for a one-package catalog; with several, the error names them.
func TestGraphPackageOptional(t *testing.T) {
	_, hiveNew := pair(t, "hive-operator-v4.18-consecutive")
	if out := mustRun(t, "graph", hiveNew); !strings.Contains(out, `["channel alpha (default)"]`) {
		t.Errorf("graph without --package:\n%.500s", out)
	}
	oldDB, newDB := sqlitePair(t, "infrawatch-new-default-channel")
	code, _, errs := runCLI(t, "graph", newDB, "--diff", oldDB)
	if code != exitUsage || !strings.Contains(errs, "choose one with --package: service-telemetry-operator, smart-gateway-operator") {
		t.Errorf("two packages, no --package: exit %d: %s", code, errs)
	}
	if out := mustRun(t, "graph", newDB, "--package", "smart-gateway-operator", "--diff", oldDB); !strings.Contains(out, "(old head, removed, stranded)") {
		t.Errorf("smart-gateway-operator's latest v2.1.0 is not removed and stranded:\n%s", out)
	}
}

func TestGraphSVGAndHTML(t *testing.T) {
	oldDB, newDB := sqlitePair(t, "infrawatch-new-default-channel")
	svg := mustRun(t, "graph", newDB, "--package", "smart-gateway-operator", "--diff", oldDB, "-o", "svg")
	for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg"`, ">package smart-gateway-operator</text>", ">replaces</text>",
		`<g class="node stranded finding-breaking"><title>smart-gateway-operator.v2.1.0`, ">was default</text>", "</svg>\n"} {
		if !strings.HasPrefix(svg, "<svg ") || !strings.Contains(svg, want) {
			t.Errorf("graph -o svg lacks %q", want)
		}
	}
	page := mustRun(t, "graph", newDB, "--package", "service-telemetry-operator", "-o", "html")
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || strings.Count(page, "<svg ") != 3 || // legend, stable, stable-1.1
		strings.Contains(page, "<script") || strings.Contains(page, "http") {
		t.Errorf("graph -o html:\n%.1000s", page)
	}
}

// Bundles are drawn in semver order: 0.1.9 before 0.1.13 (by name it would be the other way).
func TestGraphSemverOrder(t *testing.T) {
	if _, err := os.Stat(konfluxCatalog); err != nil {
		t.Skipf("conformance corpus not available: %v", err)
	}
	for _, format := range []string{"mermaid", "dot", "svg"} {
		out := mustRun(t, "graph", konfluxCatalog, "--channel", "candidate-v0.1", "-o", format)
		i, j := strings.Index(out, "konflux-operator.v0.1.9-rc.0"), strings.Index(out, "konflux-operator.v0.1.13-rc.0")
		if format == "svg" { // newest at the top
			i, j = j, i
		}
		if i < 0 || j < 0 || i > j {
			t.Errorf("-o %s: 0.1.9 and 0.1.13 out of order", format)
		}
		if !strings.Contains(out, "deprecated") {
			t.Errorf("-o %s: the deprecated package is not marked", format)
		}
	}
}

func TestDiffHTML(t *testing.T) {
	oldDir, newDir := pair(t, "sailoperator-v4.18-prune-channel")
	code, out, errs := runCLI(t, "diff", oldDir, newDir, "-o", "html", "--fail-on", "breaking")
	if code != 1 || !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(out, `<h1 class="verdict breaking">Breaking: 1 breaking`) ||
		!strings.Contains(out, `aria-label="upgrade graph of channel 1.30-nightly"`) ||
		errs != "olmcat: 1 breaking finding (--fail-on breaking)\n" {
		t.Errorf("diff -o html: exit %d, %s\n%.1000s", code, errs, out)
	}
}
