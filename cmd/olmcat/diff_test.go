package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const diffPairs = "../../../shared/diffpairs/fbc"

func pair(t *testing.T, name string) (string, string) {
	t.Helper()
	dir := filepath.Join(diffPairs, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("diff pairs not available (%s): %v", dir, err)
	}
	return filepath.Join(dir, "old"), filepath.Join(dir, "new")
}

func TestDiffFailOnSetsExitCode(t *testing.T) {
	sailOld, sailNew := pair(t, "sailoperator-v4.18-prune-channel") // 1 breaking, 1 info
	hiveOld, hiveNew := pair(t, "hive-operator-v4.18-consecutive")  // 3 info
	for _, c := range []struct {
		old, new, failOn string
		want             int
	}{
		{sailOld, sailNew, "", 0},
		{sailOld, sailNew, "breaking", 1},
		{sailOld, sailNew, "warning", 1},
		{hiveOld, hiveNew, "breaking", 0},
		{hiveOld, hiveNew, "warning", 0},
		{hiveOld, hiveNew, "any", 1},
		{hiveOld, hiveOld, "any", 0},
	} {
		args := []string{"diff", c.old, c.new}
		if c.failOn != "" {
			args = append(args, "--fail-on", c.failOn)
		}
		out, code := runCommand(t, args...)
		if code != c.want {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, c.want, out)
		}
	}
}

func TestDiffOutputs(t *testing.T) {
	oldDir, newDir := pair(t, "sailoperator-v4.18-prune-channel")
	table, _ := runCommand(t, "diff", oldDir, newDir)
	if !strings.Contains(table, "1 breaking, 0 warnings, 1 info") || !strings.Contains(table, "channel-removed") {
		t.Errorf("table:\n%s", table)
	}
	out, code := runCommand(t, "diff", oldDir, newDir, "-o", "json")
	var doc struct {
		SchemaVersion string `json:"schemaVersion"`
		Findings      []struct{ Kind, Severity, Channel string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("json (exit %d): %v\n%s", code, err, out)
	}
	if doc.SchemaVersion != "olmcat.diff/v1" || len(doc.Findings) != 2 || doc.Findings[1].Channel != "1.30-nightly" {
		t.Errorf("json: %+v", doc)
	}
	md, _ := runCommand(t, "diff", oldDir, newDir, "-o", "markdown")
	if !strings.Contains(md, "<details open><summary><b>sailoperator</b>: 1 breaking finding</summary>") ||
		!strings.Contains(md, "| 🔴 breaking | `channel-removed` | channel 1.30-nightly |") {
		t.Errorf("markdown:\n%s", md)
	}
	stat, _ := runCommand(t, "diff", oldDir, newDir, "--stat")
	want := "PACKAGE      | STATUS  | CHANNELS | BUNDLES  | BREAKING | WARNINGS | INFO\n" +
		"sailoperator | changed | +0 -1 ~0 | +0 -1 ~0 |        1 |        0 |    1\n" +
		"1 package changed, 0 unchanged; 1 breaking, 0 warnings, 1 info\n"
	if stat != want {
		t.Errorf("stat:\n%s\nwant:\n%s", stat, want)
	}
}

func TestDiffUsageErrors(t *testing.T) {
	oldDir, newDir := pair(t, "hive-operator-v4.18-consecutive")
	for _, args := range [][]string{
		{"diff", oldDir},
		{"diff", oldDir, newDir, "-o", "yaml"},
		{"diff", oldDir, newDir, "--fail-on", "sometimes"},
		{"diff", oldDir, newDir, "--min-severity", "error"},
		{"diff", oldDir, newDir, "--min-severity", "warning", "-o", "json"},
		{"diff", oldDir, filepath.Join(newDir, "missing")},
		{"diff", "--git", "HEAD", oldDir, newDir},
		{"graph", newDir, "--package", "no-such-package"},
		{"graph", newDir, "--package", "hive-operator", "-o", "png"},
	} {
		out, code := runCommand(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, out)
		}
	}
}

func TestGraphCommand(t *testing.T) {
	oldDir, newDir := pair(t, "hive-operator-v4.18-consecutive")
	out, code := runCommand(t, "graph", newDir, "--package", "hive-operator", "--channel", "alpha", "--diff", oldDir)
	if code != 0 || !strings.HasPrefix(out, "flowchart BT\n") || !strings.Contains(out, "(head, added)") {
		t.Errorf("graph --diff (exit %d):\n%.2000s", code, out)
	}
	out, code = runCommand(t, "graph", newDir, "--package", "hive-operator", "--channel", "alpha", "-o", "dot")
	if code != 0 || !strings.HasPrefix(out, `digraph "hive-operator" {`) {
		t.Errorf("graph -o dot (exit %d):\n%.500s", code, out)
	}
}
