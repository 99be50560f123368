package main

// Issue 34 items 6 and 7: errors name what they mean, and one vocabulary on every command.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command's argument check names the arguments of its Use line and shows the usage line,
// never cobra's "accepts 2 arg(s), received 1".
func TestArgsErrorsNameTheArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"migrate", "x"}, []string{"migrate needs CATALOG OUT: OUT is missing", "usage: olmcat migrate CATALOG OUT [flags]"}},
		{[]string{"unpack"}, []string{"CATALOG and OUTDIR are missing", "usage: olmcat unpack CATALOG OUTDIR"}},
		{[]string{"filter", "x"}, []string{"OUT is missing", "usage: olmcat filter CATALOG OUT"}},
		{[]string{"inspect", "package"}, []string{"CATALOG is missing", "usage: olmcat inspect package CATALOG"}},
		{[]string{"inspect", "package", "../../fixtures/catalog"}, []string{"--package PACKAGE is missing"}},
		{[]string{"inspect", "packages", "a", "b"}, []string{`unexpected argument "b"`, "usage: olmcat inspect packages CATALOG"}},
		{[]string{"serve"}, []string{"serve needs CATALOG: CATALOG is missing", "usage: olmcat serve CATALOG"}},
		{[]string{"validate"}, []string{"CATALOG is missing"}},
		{[]string{"render"}, []string{"CATALOG is missing"}},
		{[]string{"render-template", "a", "b", "c"}, []string{`unexpected argument "c"`}},
		{[]string{"version", "x"}, []string{`version takes no arguments, got "x"`}},
		{[]string{"registry", "serve", "x"}, []string{`registry serve takes no arguments`}},
		{[]string{"validate", "bundle"}, []string{"DIR|IMAGE is missing"}},
		{[]string{"diff", "x"}, []string{"diff takes OLD and NEW", "usage: olmcat diff OLD NEW"}},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("olmcat %s: exit %d, want %d; stdout %q", strings.Join(tc.args, " "), code, exitUsage, stdout)
		}
		for _, w := range append(tc.want, "olmcat: ") {
			if !strings.Contains(stderr, w) {
				t.Errorf("olmcat %s: stderr lacks %q:\n%s", strings.Join(tc.args, " "), w, stderr)
			}
		}
		if strings.Contains(stderr, "arg(s)") {
			t.Errorf("olmcat %s: cobra's words on stderr:\n%s", strings.Join(tc.args, " "), stderr)
		}
	}

	// And every command of the tree, with no argument and with too many: whatever its check
	// refuses, it refuses in these words.
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.Args == nil || c.HasSubCommands() {
			return
		}
		for _, args := range [][]string{nil, strings.Fields("a b c d e f g h i j")} {
			err := c.Args(c, args)
			if err == nil {
				continue
			}
			checked++
			var u usageError
			if !asUsage(err, &u) || exitCode(err) != exitUsage {
				t.Errorf("%s with %d arguments: %T %v, want a usage error", c.CommandPath(), len(args), err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "arg(s)") || !strings.Contains(msg, "usage: "+c.UseLine()) {
				t.Errorf("%s with %d arguments: %q does not name the arguments and the usage line", c.CommandPath(), len(args), msg)
			}
		}
	}
	walk(newRootCmd())
	if checked < 20 {
		t.Errorf("only %d argument refusals checked; the command tree is not what this test expects", checked)
	}
}

// A mistyped flag names the nearest flag of the command, its own or inherited.
func TestUnknownFlagSuggestsTheNearest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for no suggestion
	}{
		{[]string{"filter", "--packge", "p", "a", "b"}, "(did you mean --package?)"},
		{[]string{"validate", "--stirct", "x"}, "(did you mean --strict?)"},
		{[]string{"migrate", "--forc", "a", "b"}, "(did you mean --force?)"},
		{[]string{"diff", "--colour", "auto", "a", "b"}, "(did you mean --color?)"},
		{[]string{"inspect", "package", "--pakage", "p", "x"}, "(did you mean --package?)"},
		{[]string{"diff", "--min-sev", "info", "a", "b"}, "(did you mean --min-severity?)"},
		{[]string{"validate", "--zzzzzzzz", "x"}, ""},
		{[]string{"filter", "-package", "p", "a", "b"}, "(did you mean --package?)"}, // one dash, as opm's Go-style flags
		{[]string{"validate", "-x", "a"}, ""},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitUsage || !strings.HasPrefix(stderr, "olmcat: unknown flag: --") && !strings.HasPrefix(stderr, "olmcat: unknown shorthand flag: ") {
			t.Errorf("olmcat %s: exit %d, stderr:\n%s", strings.Join(tc.args, " "), code, stderr)
		}
		if tc.want == "" && strings.Contains(stderr, "did you mean") || tc.want != "" && !strings.Contains(stderr, tc.want) {
			t.Errorf("olmcat %s: want %q in\n%s", strings.Join(tc.args, " "), tc.want, stderr)
		}
	}
	if got := levenshtein("packge", "package"); got != 1 {
		t.Errorf("levenshtein(packge, package) = %d, want 1", got)
	}
	if got := levenshtein("", "abc"); got != 3 {
		t.Errorf("levenshtein(\"\", abc) = %d, want 3", got)
	}
}

// A mistyped command is an error with the nearest command on the same line: no tab (which the
// terminal escaping printed as a literal \t), at the top level and in a group.
func TestUnknownCommandSuggestion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rendr"}, `unknown command "rendr" for "olmcat"; did you mean render?`},
		{[]string{"valdate", "x"}, `did you mean validate?`},
		{[]string{"inspect", "pakage", "x"}, `unknown command "pakage" for "olmcat inspect"; did you mean package or packages?`},
		{[]string{"bundle", "rendr"}, `unknown command "rendr" for "olmcat bundle"; did you mean render?`},
		{[]string{"generate", "dockerfil", "x"}, `did you mean dockerfile?`},
		{[]string{"nothinglikeit"}, `unknown command "nothinglikeit" for "olmcat"`},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("olmcat %s: exit %d (want %d), stdout %q, stderr lacks %q:\n%s", strings.Join(tc.args, " "), code, exitUsage, stdout, tc.want, stderr)
		}
		if strings.Contains(stderr, `\t`) || strings.Contains(stderr, "\t") {
			t.Errorf("olmcat %s: a tab on stderr:\n%q", strings.Join(tc.args, " "), stderr)
		}
	}
	// A group alone still shows its help.
	for _, group := range []string{"inspect", "bundle", "generate", "registry"} {
		code, stdout, _ := runCLI(t, group)
		if code != exitOK || !strings.Contains(stdout, "olmcat "+group) {
			t.Errorf("olmcat %s: exit %d, want its help:\n%s", group, code, stdout)
		}
	}
}

// The human output format is text on every command; table is its alias and reads the same.
func TestHumanFormatIsTextEverywhere(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		f := c.Flags().Lookup("output")
		if f == nil {
			return
		}
		if strings.Contains(f.Usage, "table") || f.DefValue == "table" {
			t.Errorf("%s -o: %q (default %q) names the human format table; its name is text", c.CommandPath(), f.Usage, f.DefValue)
		}
		if strings.Contains(f.Usage, "text") {
			seen++
		}
	}
	walk(newRootCmd())
	if seen < 6 { // validate, bundle validate (twice), version, compat, diff, inspect packages/package
		t.Errorf("only %d commands offer -o text", seen)
	}

	cat := "../../fixtures/catalog"
	for _, args := range [][]string{
		{"validate", cat},
		{"inspect", "packages", cat},
		{"inspect", "package", cat, "--package", "operator-000"},
		{"diff", cat, cat},
		{"version"},
	} {
		text := mustRun(t, append(args, "-o", "text")...)
		table := mustRun(t, append(args, "-o", "table")...)
		def := mustRun(t, args...)
		if text != table || text != def {
			t.Errorf("olmcat %s: -o text, -o table and the default differ", strings.Join(args, " "))
		}
	}
	if code, _, stderr := runCLI(t, "inspect", "packages", cat, "-o", "tabl"); code != exitUsage || !strings.Contains(stderr, "-o must be text or json") {
		t.Errorf("inspect -o tabl: exit %d, stderr:\n%s", code, stderr)
	}
}

// inspect package takes --package as every command does; the positional PACKAGE stays an alias.
func TestInspectPackageFlag(t *testing.T) {
	cat := "../../fixtures/catalog"
	flag := mustRun(t, "inspect", "package", cat, "--package", "operator-001", "-o", "json")
	positional := mustRun(t, "inspect", "package", cat, "operator-001", "-o", "json")
	if flag != positional || !strings.Contains(flag, `"name": "operator-001"`) {
		t.Errorf("--package and the positional PACKAGE differ:\n%s\n%s", flag, positional)
	}
	if code, _, stderr := runCLI(t, "inspect", "package", cat, "operator-001", "--package", "operator-002"); code != exitUsage || !strings.Contains(stderr, "one package") {
		t.Errorf("both forms: exit %d, stderr:\n%s", code, stderr)
	}
	// A package that is not there: the nearest name, then the list, joined as olmcat joins lists.
	code, _, stderr := runCLI(t, "inspect", "package", cat, "--package", "operatr-001")
	if code != exitUsage || !strings.Contains(stderr, `no package "operatr-001" in the catalog; did you mean operator-001? (packages: operator-000, operator-001, operator-002)`) {
		t.Errorf("an unknown package: exit %d, stderr:\n%s", code, stderr)
	}
}

// A second copy of a package, bundle or channel names both places: the issue is at the stray
// copy, and says where the first is.
func TestDuplicateBlobsNameBothPlaces(t *testing.T) {
	cat := filepath.Join(t.TempDir(), "catalog")
	copyDir(t, "../../fixtures/catalog", cat)
	data, err := os.ReadFile(filepath.Join(cat, "operator-000", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The stray file: the package blob, a channel and a bundle of the catalog, once more.
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var stray []string
	kept := map[string]bool{}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		var head struct{ Schema string }
		json.Unmarshal(raw, &head)
		if !kept[head.Schema] && head.Schema != "olm.deprecations" {
			kept[head.Schema] = true
			stray = append(stray, string(raw))
		}
	}
	if len(stray) != 3 {
		t.Fatalf("fixtures/catalog/operator-000 has %d schemas besides deprecations, want 3", len(stray))
	}
	writeFile(t, filepath.Join(cat, "operator-000", "stray.json"), strings.Join(stray, "\n")+"\n")

	code, stdout, _ := runCLI(t, "validate", cat, "-o", "json")
	if code != exitFindings {
		t.Fatalf("validate: exit %d, want %d", code, exitFindings)
	}
	var report struct {
		Issues []struct{ Rule, File, Hint string }
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	rules := map[string]bool{}
	for _, i := range report.Issues {
		if !strings.HasPrefix(i.Rule, "duplicate-") {
			continue
		}
		rules[i.Rule] = true
		if !strings.HasSuffix(i.File, "stray.json") || !strings.Contains(i.Hint, "the first is at operator-000/catalog.json:") ||
			!strings.Contains(i.Hint, "this one at operator-000/stray.json:") {
			t.Errorf("%s at %s: hint %q does not name both places", i.Rule, i.File, i.Hint)
		}
	}
	for _, r := range []string{"duplicate-package", "duplicate-channel", "duplicate-bundle"} {
		if !rules[r] {
			t.Errorf("no %s issue", r)
		}
	}

	// The text report says it too, on the issue's line.
	_, text, _ := runCLI(t, "validate", cat)
	if !strings.Contains(text, "stray.json:1: error: package \"operator-000\": duplicate package") || !strings.Contains(text, "the first is at operator-000/catalog.json:1") {
		t.Errorf("validate's text does not name both places of the duplicate package:\n%s", text)
	}

	// A filter configuration listing a package twice names both entries.
	isc := filepath.Join(t.TempDir(), "isc.yaml")
	writeFile(t, isc, "apiVersion: mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\nmirror:\n  operators:\n  - catalog: x\n    packages:\n    - name: operator-000\n    - name: operator-001\n    - name: operator-000\n")
	code, _, stderr := runCLI(t, "filter", "../../fixtures/catalog", filepath.Join(t.TempDir(), "out"), "--config", isc)
	if code != exitUsage || !strings.Contains(stderr, "package operator-000 is listed twice (packages entries 1 and 3)") {
		t.Errorf("filter with a package listed twice: exit %d, stderr:\n%s", code, stderr)
	}
}

// migrate --to sqlite --report: committed is true when the database was written, false when
// --strict refused it.
func TestMigrateToSQLiteReportCommitted(t *testing.T) {
	dir := t.TempDir()
	committed := func(report string) (bool, int) {
		t.Helper()
		var r struct {
			Committed *bool
			Losses    []json.RawMessage
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &r); err != nil || r.Committed == nil {
			t.Fatalf("%s: %v, committed %v", report, err, r.Committed)
		}
		return *r.Committed, len(r.Losses)
	}
	// fixtures/catalog has what an index.db cannot hold (deprecation messages, descriptions).
	db, report := filepath.Join(dir, "index.db"), filepath.Join(dir, "report.json")
	if code, _, stderr := runCLI(t, "migrate", "--to", "sqlite", "../../fixtures/catalog", db, "--report", report); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatal(err)
	}
	if ok, losses := committed(report); !ok || losses == 0 {
		t.Errorf("written: committed %v with %d losses, want true with some", ok, losses)
	}

	db, report = filepath.Join(dir, "strict.db"), filepath.Join(dir, "strict.json")
	if code, _, stderr := runCLI(t, "migrate", "--to", "sqlite", "../../fixtures/catalog", db, "--report", report, "--strict"); code != exitFindings {
		t.Fatalf("--strict: exit %d, want %d\n%s", code, exitFindings, stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("--strict wrote %s", db)
	}
	if ok, losses := committed(report); ok || losses == 0 {
		t.Errorf("--strict refusal: committed %v with %d losses, want false with some", ok, losses)
	}
}

// render-template on a misspelled template schema says what validate says: the schema it
// probably meant; a misspelled TYPE is named too.
func TestRenderTemplateMisspelledSchema(t *testing.T) {
	tmpl := filepath.Join(t.TempDir(), "semver.yaml")
	writeFile(t, tmpl, "schema: olm.semverr\nGenerateMajorChannels: true\nStable:\n  Bundles:\n  - Image: quay.io/ns/b:v1\n")
	const meant = "probably the template schema olm.semver misspelled"
	code, stdout, stderr := runCLI(t, "render-template", tmpl)
	if code != exitFindings || stdout != "" || !strings.Contains(stderr, meant) || !strings.Contains(stderr, `schema "olm.semverr" (line 1)`) ||
		!strings.Contains(stderr, "write schema: olm.semver") {
		t.Errorf("render-template: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, "validate", tmpl)
	if code != exitUsage || !strings.Contains(stderr, meant) || !strings.Contains(stderr, "write schema: olm.semver") {
		t.Errorf("validate: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, "render-template", "semverr", tmpl)
	if code != exitFindings || !strings.Contains(stderr, `TYPE "semverr" is probably semver misspelled`) {
		t.Errorf("render-template semverr: exit %d, stderr:\n%s", code, stderr)
	}
}

// validate bundle ends as validate does: the verdict line on stderr, and -o json in validate's
// shape (passed, errors, warnings, issues).
func TestValidateBundleVerdictAndShape(t *testing.T) {
	good := "testdata/readme/bundle-dir"
	code, stdout, stderr := runCLI(t, "validate", "bundle", good)
	if code != exitOK || stdout != "" || stderr != "olmcat: valid: 0 errors, 0 warnings (bundle "+good+")\n" {
		t.Errorf("a valid bundle: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	broken := filepath.Join(t.TempDir(), "bundle")
	copyDir(t, good, broken)
	writeFile(t, filepath.Join(broken, "metadata", "annotations.yaml"), "annotations: [\n")
	code, stdout, stderr = runCLI(t, "bundle", "validate", broken)
	if code != exitFindings || !strings.Contains(stdout, "error: ") || !strings.HasPrefix(stderr, "olmcat: invalid: 1 error, 0 warnings (bundle ") {
		t.Errorf("a broken bundle: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	keys := func(doc string) map[string]bool {
		t.Helper()
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		out := map[string]bool{}
		for k := range m {
			out[k] = true
		}
		return out
	}
	_, catalogDoc, _ := runCLI(t, "validate", "../../fixtures/catalog", "-o", "json")
	code, bundleDoc, _ := runCLI(t, "validate", "bundle", broken, "-o", "json")
	if code != exitFindings {
		t.Errorf("-o json of a broken bundle: exit %d", code)
	}
	bk := keys(bundleDoc)
	for k := range keys(catalogDoc) {
		if !bk[k] {
			t.Errorf("validate bundle -o json has no %q, which validate -o json has:\n%s", k, bundleDoc)
		}
	}
	var doc struct {
		Passed *bool
		Errors int
		Issues []struct{ Severity, Message string }
	}
	json.Unmarshal([]byte(bundleDoc), &doc)
	if doc.Passed == nil || *doc.Passed || doc.Errors != 1 || len(doc.Issues) != 1 || doc.Issues[0].Severity != "error" {
		t.Errorf("validate bundle -o json of a broken bundle:\n%s", bundleDoc)
	}
}

// registry serve serves an index.db: its --help lists no flag of catalog templates or images
// (still accepted, for an entrypoint that passes them).
func TestRegistryServeHelpListsIndexDBFlags(t *testing.T) {
	_, help, _ := runCLI(t, "registry", "serve", "--help")
	for _, name := range indexDBIrrelevantFlags {
		if strings.Contains(help, "--"+name+" ") {
			t.Errorf("registry serve --help lists --%s", name)
		}
	}
	for _, name := range []string{"--database", "--port", "--termination-log", "--skip-migrate", "--timeout-seconds", "--debug"} {
		if !strings.Contains(help, name) {
			t.Errorf("registry serve --help lacks %s", name)
		}
	}
	cmd, _, err := newRootCmd().Find([]string{"registry", "serve"})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Flags().Lookup("insecure") == nil {
		t.Error("registry serve no longer accepts --insecure")
	}
}

// FuzzUnknownFlag: whatever a mistyped flag is (any bytes, any length), the answer is one
// "unknown flag" line with at most a suggestion of real flags, and the distance is a distance.
func FuzzUnknownFlag(f *testing.F) {
	for _, s := range []string{"packge", "", "-", "p", "ü", "\x00\xff", "min-sev", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	cmd, _, err := newRootCmd().Find([]string{"filter"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string) {
		msg := flagError(cmd, errors.New("unknown flag: --"+name)).Error()
		first, rest, _ := strings.Cut(msg, "\n")
		if !strings.HasPrefix(first, "unknown flag: --") || rest != "run 'olmcat filter --help' for usage" {
			t.Fatalf("%q", msg)
		}
		for _, s := range nearestFlags(cmd, name) {
			if cmd.Flags().Lookup(strings.TrimPrefix(s, "--")) == nil {
				t.Fatalf("suggested %s, which filter does not have", s)
			}
		}
		d, back := levenshtein(name, "package"), levenshtein("package", name)
		if d != back || d > max(len([]rune(name)), len("package")) || (d == 0) != (name == "package") {
			t.Fatalf("levenshtein(%q, package) = %d, back %d", name, d, back)
		}
	})
}
