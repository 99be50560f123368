package convert

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

func execSQL(t *testing.T, path string, statements ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range statements {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

const v12CSV = `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"demo.v1.2.0"},"spec":{"version":"1.2.0"}}` + "\n"

// Each case breaks a schema-13 demo index the way opm's own bugs or hand edits do. opm migrate fails,
// panics or loses data on every one; olmcat must write a catalog that passes validation (unless the
// case says the graph cannot be repaired) and report the expected departures.
var edgeCases = []struct {
	name    string
	edit    []string
	want    []tofbc.DepartureCode
	invalid bool // the catalog cannot be made valid (and the departure says so)
	check   func(t *testing.T, c *fbc.Catalog)
}{
	{name: "null default channel", edit: []string{`UPDATE package SET default_channel = NULL`},
		want: []tofbc.DepartureCode{tofbc.DefaultChannelChosen},
		check: func(t *testing.T, c *fbc.Catalog) {
			if c.Packages[0].DefaultChannel != "stable" {
				t.Errorf("default channel %q", c.Packages[0].DefaultChannel)
			}
		}},
	{name: "unknown default channel", edit: []string{`UPDATE package SET default_channel = 'fast'`},
		want: []tofbc.DepartureCode{tofbc.DefaultChannelChosen}},
	{name: "empty version", edit: []string{`UPDATE operatorbundle SET version = '' WHERE name = 'demo.v1.0.0'`},
		want: []tofbc.DepartureCode{tofbc.VersionRecovered}},
	{name: "null version and no CSV version", edit: []string{
		`UPDATE operatorbundle SET version = NULL, csv = NULL, bundle = '{"kind":"ConfigMap"}' WHERE name = 'demo.v1.0.0'`},
		want: []tofbc.DepartureCode{tofbc.BundleDropped, tofbc.CSVMissing}},
	{name: "olm.package with release next to one without", edit: []string{
		`INSERT INTO properties VALUES ('olm.package', '{"packageName":"demo","release":"2","version":"1.1.0"}', 'demo.v1.1.0', '1.1.0', NULL)`},
		want: []tofbc.DepartureCode{tofbc.PackagePropertyFixed},
		check: func(t *testing.T, c *fbc.Catalog) {
			// The release cannot be kept: FBC requires such a bundle to be named demo-v1.1.0-2.
			if !hasProperty(c, "demo.v1.1.0", "olm.package", `{"packageName":"demo","version":"1.1.0"}`) {
				t.Error("the olm.package without release was not kept")
			}
		}},
	{name: "dependencies opm drops", edit: []string{
		`INSERT INTO dependencies VALUES ('olm.label', '{"label":"gpu"}', 'demo.v1.0.0', '1.0.0', NULL)`,
		`INSERT INTO dependencies VALUES ('olm.constraint', '{"cel":{"rule":"true"},"failureMessage":"x \u003c y"}', 'demo.v1.0.0', '1.0.0', NULL)`,
		`INSERT INTO dependencies VALUES ('example.com/custom', '[1, 2]', 'demo.v1.0.0', '1.0.0', NULL)`,
		`INSERT INTO dependencies VALUES ('olm.package', '{"packageName":"etcd","version":"\u003e0.9.0"}', 'demo.v1.0.0', '1.0.0', NULL)`},
		want: []tofbc.DepartureCode{tofbc.DependencyKept, tofbc.DependencyKept, tofbc.DependencyKept},
		check: func(t *testing.T, c *fbc.Catalog) {
			for _, want := range [][2]string{{"olm.label", `{"label":"gpu"}`}, {"olm.constraint", `{"cel":{"rule":"true"},"failureMessage":"x \u003c y"}`},
				{"example.com/custom", `[1,2]`}, {"olm.package.required", `{"packageName":"etcd","versionRange":">0.9.0"}`}} {
				if !hasProperty(c, "demo.v1.0.0", want[0], want[1]) {
					t.Errorf("property %s %s missing", want[0], want[1])
				}
			}
		}},
	{name: "deprecated bundle", edit: []string{`INSERT INTO properties VALUES ('olm.deprecated', '{}', 'demo.v1.0.0', '1.0.0', NULL)`},
		want: []tofbc.DepartureCode{tofbc.DeprecatedBundleKept},
		check: func(t *testing.T, c *fbc.Catalog) {
			if len(c.Deprecations) != 1 || c.Deprecations[0].Entries[0].Reference.Name != "demo.v1.0.0" || hasProperty(c, "demo.v1.0.0", "olm.deprecated", "{}") {
				t.Errorf("deprecations %+v", c.Deprecations)
			}
		}},
	{name: "bundle in two packages", edit: []string{
		`INSERT INTO package VALUES ('other', 'alpha')`, `INSERT INTO channel VALUES ('alpha', 'other', 'demo.v1.0.0')`,
		`INSERT INTO channel_entry VALUES (9, 'alpha', 'other', 'demo.v1.0.0', NULL, 0)`},
		want: []tofbc.DepartureCode{tofbc.PackagePropertyFixed},
		check: func(t *testing.T, c *fbc.Catalog) {
			for _, b := range c.Bundles {
				if b.Name == "demo.v1.0.0" && !hasPropertyIn(b, "olm.package", `{"packageName":"`+b.Package+`","version":"1.0.0"}`) {
					t.Errorf("bundle %s of %s has properties %v", b.Name, b.Package, b.Properties)
				}
			}
		}},
	{name: "no package row", edit: []string{`DELETE FROM package`},
		want: []tofbc.DepartureCode{tofbc.DefaultChannelChosen, tofbc.PackageRowMissing}},
	{name: "no channel row", edit: []string{`DELETE FROM channel`},
		want: []tofbc.DepartureCode{tofbc.ChannelAdded}},
	{name: "channel without entries", edit: []string{`INSERT INTO channel VALUES ('beta', 'demo', 'demo.v1.0.0')`},
		want: []tofbc.DepartureCode{tofbc.EmptyChannelDropped}},
	{name: "package without channels", edit: []string{`INSERT INTO package VALUES ('ghost', 'stable')`},
		want: []tofbc.DepartureCode{tofbc.PackageDropped}},
	{name: "invalid property value", edit: []string{
		`INSERT INTO properties VALUES ('example.com/note', '{bad', 'demo.v1.0.0', '1.0.0', NULL)`,
		`INSERT INTO properties VALUES ('olm.gvk', '"x"', 'demo.v1.0.0', '1.0.0', NULL)`},
		want: []tofbc.DepartureCode{tofbc.InvalidPropertyDropped, tofbc.InvalidPropertyDropped}},
	{name: "bundle without image or manifests", edit: []string{`UPDATE operatorbundle SET bundle = NULL WHERE name = 'demo.v1.0.0'`},
		want: []tofbc.DepartureCode{tofbc.BundleDropped}},
	{name: "unreadable manifests", edit: []string{`UPDATE operatorbundle SET bundle = '{"kind": ' WHERE name = 'demo.v1.0.0'`},
		want: []tofbc.DepartureCode{tofbc.BundleDropped, tofbc.BundleObjectsUnreadable}},
	{name: "default head without csv", edit: []string{`UPDATE operatorbundle SET csv = NULL WHERE name = 'demo.v1.1.0'`},
		want: []tofbc.DepartureCode{tofbc.IconUnavailable}},
	{name: "no schema_migrations", edit: []string{`DROP TABLE schema_migrations`},
		want: []tofbc.DepartureCode{tofbc.SchemaVersionInferred}},
	{name: "second head", edit: []string{
		`INSERT INTO operatorbundle (name, csv, bundle, bundlepath, version, skiprange, replaces, skips) VALUES ('demo.v1.2.0', CAST('` + v12CSV + `' AS BLOB), CAST('` + v12CSV + `' AS BLOB), '', '1.2.0', '', '', '')`,
		`INSERT INTO channel_entry VALUES (5, 'stable', 'demo', 'demo.v1.2.0', NULL, 0)`},
		want: []tofbc.DepartureCode{tofbc.CSVEdgeAdded, tofbc.StrandedSkipAdded},
		check: func(t *testing.T, c *fbc.Catalog) {
			if e := findEntry(c, "stable", "demo.v1.2.0"); e == nil || !slices.Equal(e.Skips, []string{"demo.v1.1.0"}) {
				t.Errorf("entry %+v", e)
			}
		}},
	{name: "replaces cycle", edit: []string{`UPDATE channel_entry SET replaces = 1 WHERE entry_id = 4`},
		want: []tofbc.DepartureCode{tofbc.GraphUnrepaired}, invalid: true},
}

func hasProperty(c *fbc.Catalog, bundle, typ, value string) bool {
	b := findBundle(c, bundle)
	return b != nil && hasPropertyIn(*b, typ, value)
}

func hasPropertyIn(b fbc.Bundle, typ, value string) bool {
	return slices.ContainsFunc(b.Properties, func(p fbc.Property) bool {
		return p.Type == typ && compactJSONForTest(p.Value) == value
	})
}

func TestMigrateRepairsWhatOpmCannot(t *testing.T) {
	for _, c := range edgeCases {
		t.Run(c.name, func(t *testing.T) {
			path := buildLegacyIndex(t, 13)
			execSQL(t, path, c.edit...)
			out := filepath.Join(t.TempDir(), "out")
			report, err := migrateIndex(path, out, MigrateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var codes []tofbc.DepartureCode
			for _, d := range report.Departures {
				codes = append(codes, d.Code)
				if d.Opm == "" || d.Olmcat == "" {
					t.Errorf("departure without an explanation: %+v", d)
				}
			}
			slices.Sort(codes)
			if !slices.Equal(codes, c.want) {
				t.Errorf("departures %v, want %v\n%v", codes, c.want, report.Departures)
			}
			cat := loadOutput(t, out)
			errs := model.ValidateCatalog(cat, model.Options{}).Errors()
			if c.invalid != (len(errs) > 0) {
				t.Errorf("validation errors (want some: %v):\n%v", c.invalid, errs)
			}
			if c.check != nil {
				c.check(t, cat)
			}
		})
	}
}

// TestMigrateStrict refuses to write anything when there is a departure, and says why.
func TestMigrateStrict(t *testing.T) {
	path := buildLegacyIndex(t, 13)
	execSQL(t, path, `UPDATE package SET default_channel = NULL`)
	out := filepath.Join(t.TempDir(), "out")
	report, err := migrateIndex(path, out, MigrateOptions{Strict: true})
	var strict *StrictError
	if !errors.As(err, &strict) || report == nil || !strings.Contains(err.Error(), string(tofbc.DefaultChannelChosen)) {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("strict mode left output at %s", out)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Errorf("strict mode left files behind: %v", entries)
	}
	// Without departures, strict mode writes.
	clean := buildLegacyIndex(t, 13)
	if _, err := migrateIndex(clean, out, MigrateOptions{Strict: true}); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateLeavesInputUnchanged migrates from a read-only directory and checks the index's bytes,
// modification time and directory.
func TestMigrateLeavesInputUnchanged(t *testing.T) {
	conformanceCases(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	data, err := os.ReadFile(filepath.Join(sqliteConformanceDir, "real-indexer-testdata-schema5", "input.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	before, _ := os.Stat(path)
	if _, err := migrateIndex(path, filepath.Join(t.TempDir(), "out"), MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	now, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(now) != string(data) || !before.ModTime().Equal(after.ModTime()) || len(entries) != 1 {
		t.Errorf("the schema-5 index changed (opm would have upgraded it to 13 in place): mtime %v -> %v, files %v",
			before.ModTime(), after.ModTime(), entries)
	}
}

func TestMigrateEmptyIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	execSQL(t, path, legacyDDL(13)...)
	out := filepath.Join(t.TempDir(), "out")
	report, err := migrateIndex(path, out, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) != 0 || len(report.Departures) != 0 || report.Packages != 0 {
		t.Errorf("entries %v, err %v, report %+v", entries, err, report)
	}
}
