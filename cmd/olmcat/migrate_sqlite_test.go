package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/plural"
)

// migrateToSQLite runs `olmcat migrate --to sqlite args...`.
func migrateToSQLite(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLI(t, append([]string{"migrate", "--to", "sqlite"}, args...)...)
}

func TestMigrateToSQLiteCommand(t *testing.T) {
	catalog := filepath.Join(conformance, "fbc", "deprecations-konflux", "catalog")
	if _, err := os.Stat(catalog); err != nil {
		t.Skipf("conformance corpus not found at %s", conformance)
	}
	dir := t.TempDir()
	out, report := filepath.Join(dir, "index.db"), filepath.Join(dir, "report.json")

	code, _, stderr := migrateToSQLite(t, catalog, out, "--report", report)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "not representable in index.db (lost)") || !strings.Contains(stderr, "deprecation") {
		t.Errorf("stderr summary does not name the deprecation losses:\n%s", stderr)
	}
	var r struct {
		Written struct{ Bundles int }
		Losses  []struct{ Kind, Package, Channel, Bundle, Detail string }
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	deprecations := 0
	for _, l := range r.Losses {
		if l.Kind == "deprecation" {
			deprecations++
		}
	}
	if r.Written.Bundles == 0 || deprecations == 0 {
		t.Errorf("report: %d bundles written, %d deprecation losses; want both > 0", r.Written.Bundles, deprecations)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("no index.db written: %v", err)
	}

	if code, _, _ := migrateToSQLite(t, catalog, out); code != exitUsage {
		t.Errorf("existing OUT without --force: exit code %d, want %d", code, exitUsage)
	}
	if code, _, stderr := migrateToSQLite(t, catalog, out, "--force"); code != 0 {
		t.Errorf("--force: exit code %d: %s", code, stderr)
	}

	strictOut := filepath.Join(dir, "strict.db")
	if code, _, stderr := migrateToSQLite(t, catalog, strictOut, "--strict"); code != exitFindings || !strings.Contains(stderr, "--strict") {
		t.Errorf("--strict with losses: exit code %d (want %d), stderr:\n%s", code, exitFindings, stderr)
	}
	if _, err := os.Stat(strictOut); !os.IsNotExist(err) {
		t.Errorf("--strict failure left %s behind", strictOut)
	}

	// An index.db is a catalog like any other: rewritten as the schema-13 index.db of its catalog,
	// which migrates back to the same FBC.
	foo := filepath.Join(conformance, "sqlite", "real-foo-index-v0.2.0")
	rewritten := filepath.Join(dir, "x.db")
	if code, _, stderr := migrateToSQLite(t, filepath.Join(foo, "input.db"), rewritten); code != 0 {
		t.Fatalf("an index.db as CATALOG: exit code %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "migrate", rewritten, filepath.Join(dir, "x-fbc")); code != 0 {
		t.Fatalf("migrate the rewritten index.db: exit %d: %s", code, stderr)
	}
	if a, b := concatenated(t, filepath.Join(foo, "migrate"), ".json"), concatenated(t, filepath.Join(dir, "x-fbc"), ".json"); a != b {
		t.Errorf("index.db -> index.db -> FBC differs from opm's migrate of the original")
	}
}

func TestMigrateToSQLiteRefusesInvalidCatalog(t *testing.T) {
	catalog := filepath.Join(conformance, "invalid", "two-channel-heads", "catalog")
	if _, err := os.Stat(catalog); err != nil {
		t.Skipf("conformance corpus not found at %s", conformance)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "index.db")
	code, stdout, stderr := migrateToSQLite(t, catalog, out)
	if code != exitFindings {
		t.Fatalf("exit code %d, want %d; stderr: %s", code, exitFindings, stderr)
	}
	if !strings.Contains(stdout, "head") || !strings.Contains(stderr, "--permissive") {
		t.Errorf("the validation report is missing:\nstdout: %s\nstderr: %s", stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an invalid catalog left %s behind", out)
	}
	report := filepath.Join(dir, "report.json")
	if code, _, stderr := migrateToSQLite(t, catalog, out, "--permissive", "--report", report); code != 0 {
		t.Fatalf("--permissive: exit code %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(report)
	if !strings.Contains(string(b), `"skipped": [`) || strings.Contains(string(b), `"skipped": []`) {
		t.Errorf("--permissive report lists nothing as skipped:\n%s", b)
	}
}

// Each problem of an invalid catalog is reported once: the conversion validates the catalog and its
// model, and the second look must not repeat what the first found.
func TestMigrateToSQLiteReportsEachProblemOnce(t *testing.T) {
	catalog := filepath.Join(t.TempDir(), "catalog")
	copyDir(t, "../../fixtures/catalog", catalog)
	breakCatalog := func(rel, old, replacement string) {
		t.Helper()
		path := filepath.Join(catalog, rel)
		text := string(mustReadFile(t, path))
		if !strings.Contains(text, old) {
			t.Fatalf("%s does not contain %q", path, old)
		}
		writeFile(t, path, strings.Replace(text, old, replacement, 1))
	}
	breakCatalog("operator-000/catalog.json", `"defaultChannel": "stable"`, `"defaultChannel": "nowhere"`)
	breakCatalog("operator-001/catalog.json", `"name": "operator-001.v1.0.2"
        },`, `"name": "operator-001.v1.0.2",
            "replaces": "operator-001.v1.0.3"
        },`)

	cases := map[string]string{"the fixture catalog broken twice": catalog}
	if two := filepath.Join(conformance, "invalid", "two-channel-heads", "catalog"); dirExists(two) {
		cases["two-channel-heads"] = two
	}
	for name, catalog := range cases {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := migrateToSQLite(t, catalog, filepath.Join(t.TempDir(), "index.db"))
			if code != exitFindings {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, exitFindings, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			seen := map[string]int{}
			for _, l := range lines {
				seen[l]++
			}
			for l, n := range seen {
				if n != 1 {
					t.Errorf("printed %d times: %s", n, l)
				}
			}
			if want := plural.Of(len(lines), "error"); !strings.Contains(stderr, "("+want+")") {
				t.Errorf("stderr does not count the %s of stdout:\n%s", want, stderr)
			}
			if name != "two-channel-heads" && len(lines) < 2 {
				t.Errorf("want a line for each of the two problems, got:\n%s", stdout)
			}
		})
	}
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
