package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Colour is --color's to decide; auto (the default) never colours a pipe or a buffer.
func TestDiffColorAndWidth(t *testing.T) {
	oldDir, newDir := pair(t, "sailoperator-v4.18-prune-channel")
	t.Setenv("COLUMNS", "")
	t.Setenv("NO_COLOR", "")
	for _, c := range []struct {
		args []string
		ansi bool
	}{
		{nil, false},
		{[]string{"--color", "auto"}, false},
		{[]string{"--color", "never"}, false},
		{[]string{"--color", "always"}, true},
	} {
		code, out, errs := runCLI(t, append([]string{"diff", oldDir, newDir}, c.args...)...)
		if code != 0 || strings.Contains(out, "\x1b[") != c.ansi {
			t.Errorf("%v: exit %d, ANSI codes %v, want %v\n%s%s", c.args, code, !c.ansi, c.ansi, out, errs)
		}
		if !strings.HasPrefix(out, "olmcat diff: BREAKING") && !strings.HasPrefix(out, "olmcat diff: \x1b[1;31mBREAKING") {
			t.Errorf("%v: verdict not first:\n%s", c.args, out)
		}
	}
	if _, code := runCommand(t, "diff", oldDir, newDir, "--color", "sometimes"); code != exitUsage {
		t.Errorf("--color sometimes: exit %d", code)
	}

	t.Setenv("COLUMNS", "100")
	_, out, _ := runCLI(t, "diff", oldDir, newDir)
	for _, line := range strings.Split(out, "\n") {
		if strings.ContainsAny(line, "│┌└") && utf8.RuneCountInString(line) > 100 {
			t.Errorf("COLUMNS=100, line of %d runes: %s", utf8.RuneCountInString(line), line)
		}
	}
	if !strings.Contains(out, "│ breaking │ channel-removed │") {
		t.Errorf("COLUMNS=100:\n%s", out)
	}
}

// The Markdown ends with the command that reproduces it, quoted for a shell.
func TestDiffMarkdownReproduces(t *testing.T) {
	oldDir, newDir := pair(t, "hive-operator-v4.18-consecutive")
	spaced := filepath.Join(t.TempDir(), "new catalog")
	copyDir(t, newDir, spaced)
	md, code := runCommand(t, "diff", oldDir, spaced, "-o", "markdown", "--fail-on", "breaking")
	want := "```sh\nolmcat diff " + oldDir + " '" + spaced + "' --fail-on breaking -o markdown\n```\n"
	if code != 0 || !strings.HasSuffix(md, want) {
		t.Errorf("exit %d, want the markdown to end with\n%s\ngot:\n%s", code, want, md)
	}
	if !strings.Contains(md, "```mermaid\nflowchart BT\n") || !strings.Contains(md, "<details><summary>Legend</summary>") {
		t.Errorf("no picture or legend:\n%s", md)
	}
}

// A head moved back to a lower version is a warning; the users it cuts off are stranded (breaking),
// so --fail-on breaking still fails on infrawatch's rollback.
func TestDiffHeadMovedBackwardsIsAWarning(t *testing.T) {
	oldDB, newDB := pair(t, "../sqlite/infrawatch-new-default-channel")
	out, code := runCommand(t, "diff", oldDB+".db", newDB+".db", "--fail-on", "breaking", "--color", "never")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	rows := strings.Split(out, "\n")
	severityOf := map[string]string{}
	for _, row := range rows {
		if cells := strings.Split(row, "│"); len(cells) > 3 && strings.TrimSpace(cells[2]) != "" {
			severityOf[strings.TrimSpace(cells[2])] = strings.TrimSpace(cells[1])
		}
	}
	if severityOf["head-moved-backwards"] != "warning" || severityOf["stranded"] != "breaking" {
		t.Errorf("severities %v\n%s", severityOf, out)
	}
}

// The README's excerpts of each format are what olmcat diff prints on the infrawatch pair.
func TestReadmeDiffExcerpts(t *testing.T) {
	oldDB, newDB := pair(t, "../sqlite/infrawatch-new-default-channel") // the sqlite pairs hold old.db and new.db
	readme, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	section = section[strings.Index(section, "### Diff and graphs"):]
	section = section[:strings.Index(section, "\n### Serve and parity")]
	block := func(fence string) []string {
		_, rest, ok := strings.Cut(section, "\n"+fence+"\n")
		body, _, ok2 := strings.Cut(rest, "\n"+fence[:strings.LastIndex(fence, "`")+1]+"\n")
		if !ok || !ok2 {
			t.Fatalf("README's Diff and graphs section has no %s block", fence)
		}
		return strings.Split(body, "\n")
	}
	dir := t.TempDir()
	copyFile(t, oldDB+".db", filepath.Join(dir, "old.db"))
	copyFile(t, newDB+".db", filepath.Join(dir, "new.db"))
	t.Chdir(dir)
	t.Setenv("COLUMNS", "")
	for fence, args := range map[string][]string{
		"```text":      {"diff", "old.db", "new.db"},
		"````markdown": {"diff", "old.db", "new.db", "-o", "markdown"},
	} {
		_, out, _ := runCLI(t, args...)
		lines := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			lines[l] = true
		}
		for _, l := range block(fence) {
			if l != "…" && !lines[l] {
				t.Errorf("README %s line not in the output of olmcat %s:\n%s", fence, strings.Join(args, " "), l)
			}
		}
	}
	_, out, _ := runCLI(t, "diff", "old.db", "new.db", "-o", "json")
	var doc struct{ Findings []map[string]any }
	var excerpt map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(strings.Join(block("```json"), "\n")), &excerpt); err != nil {
		t.Fatalf("README json excerpt: %v", err)
	}
	found := false
	for _, f := range doc.Findings {
		found = found || reflect.DeepEqual(f, excerpt)
	}
	if !found {
		t.Errorf("README json excerpt is no finding of the pair: %v", excerpt)
	}
}

// --fail-on says on stderr which findings failed the run; without it the report is the result
// (exit 0, nothing on stderr), as with git diff.
func TestDiffFailOnSaysWhy(t *testing.T) {
	oldDB, newDB := pair(t, "../sqlite/infrawatch-new-default-channel")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 0, ""},
		// OLM v0's findings, then both generations': OLM v1 adds v1-upgrade-lost (breaking: the users
		// of v2.0.1 in channel latest went to v2.1.0 and now stay) and v1-install-lowered (warning)
		{[]string{"--fail-on", "breaking", "--olm", "v0"}, 1, "olmcat: 2 breaking findings (--fail-on breaking)\n"},
		{[]string{"--fail-on", "warning", "--olm", "v0"}, 1, "olmcat: 2 breaking and 5 warning findings (--fail-on warning)\n"},
		{[]string{"--fail-on", "any", "-o", "json", "--olm", "v0"}, 1, "olmcat: 2 breaking, 5 warning and 17 info findings (--fail-on any)\n"},
		{[]string{"--fail-on", "breaking"}, 1, "olmcat: 3 breaking findings (--fail-on breaking)\n"},
		{[]string{"--fail-on", "any", "--olm", "both"}, 1, "olmcat: 3 breaking, 6 warning and 17 info findings (--fail-on any)\n"},
		{[]string{"--olm", "v2"}, 2, "olmcat: --olm: unknown OLM generation \"v2\": use v0, v1 or both\n"},
	} {
		code, _, errs := runCLI(t, append([]string{"diff", oldDB + ".db", newDB + ".db"}, c.args...)...)
		if code != c.code || errs != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, errs, c.code, c.stderr)
		}
	}
	code, out, _ := runCLI(t, "diff", oldDB+".db", newDB+".db", "--min-severity", "breaking")
	if code != 0 || !strings.Contains(out, "not shown (below --min-severity breaking): 6 warnings, 17 info") || strings.Contains(out, "│ info") {
		t.Errorf("--min-severity breaking: exit %d\n%s", code, out)
	}
}
