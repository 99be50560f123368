package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func conformanceCase(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(conformance, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", dir, err)
	}
	return dir
}

// TestValidateExitCodesMatchOpm: for every invalid/* and fbc/* case, olmcat validate exits as opm
// validate did (validate.txt), and prints one located line per issue.
func TestValidateExitCodesMatchOpm(t *testing.T) {
	conformanceCase(t, "invalid")
	// invalid/ and fbc/ hold opm validate's verdicts; other corpora (filter/) record theirs in
	// their own format and are tested by their own tests.
	var cases []string
	for _, corpus := range []string{"invalid", "fbc"} {
		found, _ := filepath.Glob(filepath.Join(conformance, corpus, "*", "validate.txt"))
		cases = append(cases, found...)
	}
	exitRe := regexp.MustCompile(`exit code: (\d+)`)
	lineRe := regexp.MustCompile(`^[^:]+(:\d+)?: (error|warning|info): `)
	for _, vt := range cases {
		dir := filepath.Dir(vt)
		name, _ := filepath.Rel(conformance, dir)
		t.Run(name, func(t *testing.T) {
			text, _ := os.ReadFile(vt)
			m := exitRe.FindSubmatch(text)
			if m == nil {
				t.Fatal("no exit code in validate.txt")
			}
			out, code := runCommand(t, "validate", filepath.Join(dir, "catalog"))
			if want := string(m[1]); want != map[bool]string{true: "1", false: "0"}[code != 0] {
				t.Errorf("exit code %d, opm %s:\n%s", code, want, out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			for _, l := range lines[:len(lines)-1] { // the last line is the summary
				if !lineRe.MatchString(l) {
					t.Errorf("issue line without file/severity: %q", l)
				}
			}
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "olmcat: valid: ") && !strings.HasPrefix(last, "olmcat: invalid: ") {
				t.Errorf("no summary line: %q", last)
			}
		})
	}
}

func TestValidateJSONAndStrict(t *testing.T) {
	dir := filepath.Join(conformanceCase(t, "invalid/unknown-schema-with-slash"), "catalog")
	out, code := runCommand(t, "validate", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, out)
	}
	var report struct {
		Passed   *bool `json:"passed"`
		Errors   *int  `json:"errors"`
		Warnings *int  `json:"warnings"`
		Issues   []struct {
			Severity, Rule, File, Package, Message, Hint string
			Line                                         int
		} `json:"issues"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if report.Passed == nil || !*report.Passed || *report.Errors != 0 || *report.Warnings != 1 || len(report.Issues) != 1 {
		t.Fatalf("report: %s", out)
	}
	is := report.Issues[0]
	if is.Severity != "warning" || is.Rule != "custom-schema-name" || is.File != "demo/catalog.json" || is.Line == 0 || is.Hint == "" {
		t.Errorf("issue: %+v", is)
	}

	out, code = runCommand(t, "validate", "--strict", "-o", "json", dir)
	if code != exitFindings || !strings.Contains(out, `"passed": false`) || !strings.Contains(out, `"severity": "error"`) {
		t.Errorf("--strict: exit code %d:\n%s", code, out)
	}
}

func TestValidateUsageErrors(t *testing.T) {
	if _, code := runCommand(t, "validate", filepath.Join(t.TempDir(), "missing")); code != exitUsage {
		t.Errorf("missing path: exit code %d, want %d", code, exitUsage)
	}
	if _, code := runCommand(t, "validate", "-o", "xml", t.TempDir()); code != exitUsage {
		t.Errorf("bad -o: exit code %d, want %d", code, exitUsage)
	}
	if _, code := runCommand(t, "validate"); code != exitUsage {
		t.Errorf("no argument: exit code %d, want %d", code, exitUsage)
	}
}

// TestValidateIndexDB: an index.db is validated through its migration; opm-accepted ones pass.
func TestValidateIndexDB(t *testing.T) {
	db := filepath.Join(conformanceCase(t, "sqlite/kube-green-replaces"), "input.db")
	if out, code := runCommand(t, "validate", db); code != 0 {
		t.Errorf("exit code %d:\n%s", code, out)
	}
	db = filepath.Join(conformanceCase(t, "sqlite/synthetic-skips40"), "input.db")
	out, code := runCommand(t, "validate", "--strict", db)
	if code != exitFindings || !strings.Contains(out, "opm migrate fails: channel contains one or more stranded bundles") {
		t.Errorf("skips40 --strict: exit code %d:\n%.2000s", code, out)
	}
}

// Bytes that are not UTF-8 are read as U+FFFD, as opm reads them; validate warns, with the file
// and line, where opm says nothing.
func TestValidateWarnsAboutInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	catalog := "{\"schema\":\"olm.package\",\"name\":\"p\",\"defaultChannel\":\"c\"}\n" +
		"{\"schema\":\"olm.channel\",\"package\":\"p\",\"name\":\"c\",\"entries\":[{\"name\":\"p.v1\"}]}\n" +
		"{\"schema\":\"olm.bundle\",\"package\":\"p\",\"name\":\"p.v1\",\"image\":\"x\",\n" +
		"\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"p\",\"version\":\"1.0.0\"}},\n" +
		"{\"type\":\"example.com/note\",\"value\":\"caf\xe9\"}]}\n"
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "validate", dir, "-o", "json")
	var report struct {
		Issues []struct {
			Severity, Rule, File, Package, Bundle string
			Line                                  int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, stdout, stderr)
	}
	if code != exitOK || len(report.Issues) != 1 {
		t.Fatalf("exit %d, issues %+v; want 0 and one warning", code, report.Issues)
	}
	got := report.Issues[0]
	if got.Severity != "warning" || got.Rule != "invalid-utf8" || got.File != "catalog.json" || got.Line != 5 || got.Package != "p" || got.Bundle != "p.v1" {
		t.Errorf("issue %+v, want an invalid-utf8 warning at catalog.json:5 on bundle p.v1", got)
	}
	if code, _, _ := runCLI(t, "validate", dir, "--strict"); code != exitFindings {
		t.Errorf("validate --strict: exit %d, want %d", code, exitFindings)
	}
	code, stdout, _ = runCLI(t, "render", dir)
	if code != exitOK || !strings.Contains(stdout, "caf\uFFFD") {
		t.Errorf("render: exit %d; want the bytes read as U+FFFD, as opm reads them:\n%s", code, stdout)
	}
}

// A real catalog template (the corpus's basic template) left among a catalog's files is served as
// a custom blob by opm; validate says so at the template's file and line.
func TestValidateWarnsAboutATemplateInACatalog(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join(conformanceCase(t, "templates/render/basic-cat-facts-operator"), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fixture, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "catalog", "operator-000", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"operator-000.json": fixture, "catalog-templates/basic.yaml": tmpl} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "validate", dir)
	if code != exitOK || !strings.HasPrefix(stdout, "catalog-templates/basic.yaml:") || !strings.Contains(stdout, "warning: a catalog template (schema olm.template.basic) inside a catalog is not rendered") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// The OLM-behaviour rules keep opm's exit codes: downgrade-offered is a warning (exit 0, 1 with
// --strict), requirement-not-in-catalog is info (exit 0 even with --strict), counted apart.
func TestValidateDowngradeAndRequirementExitCodes(t *testing.T) {
	testdata := filepath.Join("..", "..", "fbc", "model", "testdata")
	debezium := filepath.Join(testdata, "debezium", "new")
	if out, code := runCommand(t, "validate", debezium); code != 0 || !strings.Contains(out, ": warning: ") || !strings.Contains(out, "downgrade") {
		t.Errorf("debezium: exit %d\n%s", code, out)
	}
	if out, code := runCommand(t, "validate", "--strict", debezium); code != 1 {
		t.Errorf("debezium --strict: exit %d, want 1\n%s", code, out)
	}
	reqs := filepath.Join(testdata, "requirements", "new")
	for _, args := range [][]string{{"validate", reqs}, {"validate", "--strict", reqs}} {
		out, code := runCommand(t, args...)
		if code != 0 || !strings.Contains(out, "catalog.json:50: info: ") || !strings.Contains(out, "olmcat: valid: 0 errors, 0 warnings, 1 info") {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
	code, out, _ := runCLI(t, "validate", "-o", "json", reqs)
	var report struct {
		Passed bool `json:"passed"`
		Info   int  `json:"info"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 0 || !report.Passed || report.Info != 1 {
		t.Errorf("json: exit %d, %+v, %v\n%s", code, report, err, out)
	}
}

// validate --olm: the default speaks for both generations; v0 leaves out OLM v1's findings, v1 the
// findings that hold for OLM v0 only; -o json names each finding's generations; a bad value is a
// usage error. The catalog is clusterpulse on community v4.20 (a skipped chain OLM v0 never
// climbs, OLM v1 does) and konflux (release candidates OLM v1 installs with no channel asked).
func TestValidateOLMGenerations(t *testing.T) {
	cat := filepath.Join(conformanceCase(t, "fbc/community-v4.20-csvmetadata-subset"), "catalog")
	type doc struct {
		Issues []struct {
			Rule    string   `json:"rule"`
			Bundle  string   `json:"bundle"`
			Message string   `json:"message"`
			OLM     []string `json:"olm"`
		} `json:"issues"`
	}
	run := func(args ...string) doc {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"validate", cat, "-o", "json"}, args...)...)
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil || code == 2 {
			t.Fatalf("validate %v: exit %d: %v\n%s", args, code, err, errs)
		}
		return d
	}
	count := func(d doc, gen string) int {
		n := 0
		for _, i := range d.Issues {
			if slices.Contains(i.OLM, gen) {
				n++
			}
		}
		return n
	}
	both, v0, v1 := run(), run("--olm", "v0"), run("--olm", "v1")
	if count(both, "v0") == 0 || count(both, "v1") == 0 {
		t.Fatalf("default: want findings of both generations, got %d v0 and %d v1", count(both, "v0"), count(both, "v1"))
	}
	if count(v0, "v1") != 0 || count(v0, "v0") != count(both, "v0") {
		t.Errorf("--olm v0: %d v1 findings (want 0), %d v0 (want %d)", count(v0, "v1"), count(v0, "v0"), count(both, "v0"))
	}
	if count(v1, "v0") != 0 || count(v1, "v1") != count(both, "v1") {
		t.Errorf("--olm v1: %d v0 findings (want 0), %d v1 (want %d)", count(v1, "v0"), count(v1, "v1"), count(both, "v1"))
	}
	// clusterpulse.v0.2.0: OLM v0 never brings its users to the head; OLM v1 upgrades them to
	// v0.3.0 through v0.2.3 (operator-controller's recorded answers for the fast-v0 channel:
	// v0.2.0 -> v0.2.3, v0.2.3 -> v0.3.0), said beside it
	found := false
	for _, i := range both.Issues {
		if i.Rule == "unreachable-from-head" && i.Bundle == "clusterpulse.v0.2.0" {
			found = true
			if !slices.Equal(i.OLM, []string{"v0"}) || !strings.Contains(i.Message, `OLM v1 upgrades them to "clusterpulse.v0.3.0" (0.3.0) (through clusterpulse.v0.2.3)`) {
				t.Errorf("unreachable-from-head of clusterpulse.v0.2.0: olm %v: %s", i.OLM, i.Message)
			}
		}
	}
	if !found {
		t.Errorf("no unreachable-from-head for clusterpulse.v0.2.0")
	}
	for _, i := range v0.Issues {
		if strings.Contains(i.Message, "OLM v1") {
			t.Errorf("--olm v0 speaks of OLM v1: %s", i.Message)
		}
	}
	code, out, errs := runCLI(t, "validate", cat, "--olm", "v2")
	if code != 2 || out != "" || !strings.Contains(errs, "--olm") || !strings.Contains(errs, "v0, v1 or both") {
		t.Errorf("--olm v2: exit %d, stdout %q, stderr %q; want 2 and the choices", code, out, errs)
	}
}
