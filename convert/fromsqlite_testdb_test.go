package convert

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// Building index databases of any schema version opm wrote, for tests. The tables and columns are
// those of sqlite-fbc-mapping.md 1.3/1.4, version by version; the rows are what opm's loader (and,
// for the columns a version lacks, nothing) would have written for a small package "demo":
//
//	stable (default): demo.v1.1.0 replaces demo.v1.0.0 and skips demo.v0.9.0 (never loaded)

func legacyDDL(version int) []string {
	ddl := []string{
		`CREATE TABLE schema_migrations (version bigint NOT NULL, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP)`,
		`CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT)`,
		`CREATE TABLE channel (name TEXT, package_name TEXT, head_operatorbundle_name TEXT, PRIMARY KEY(name, package_name))`,
		`CREATE TABLE channel_entry (entry_id INTEGER PRIMARY KEY, channel_name TEXT, package_name TEXT, operatorbundle_name TEXT, replaces INTEGER, depth INTEGER)`,
		`CREATE TABLE api (group_name TEXT, version TEXT, kind TEXT, plural TEXT NOT NULL, PRIMARY KEY(group_name, version, kind))`,
	}
	cols := []string{"name TEXT PRIMARY KEY", "csv TEXT", "bundle TEXT"}
	if version >= 2 {
		cols = append(cols, "bundlepath TEXT")
	}
	if version >= 5 {
		cols = append(cols, "skiprange TEXT", "version TEXT")
	}
	if version >= 7 {
		cols = append(cols, "replaces TEXT", "skips TEXT")
	}
	if version >= 11 {
		cols = append(cols, "substitutesfor TEXT")
	}
	ddl = append(ddl, `CREATE TABLE operatorbundle (`+strings.Join(cols, ", ")+`)`)
	apiKey := "channel_entry_id INTEGER"
	if version >= 6 {
		apiKey = "operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT"
	}
	ddl = append(ddl, `CREATE TABLE api_provider (group_name TEXT, version TEXT, kind TEXT, `+apiKey+`)`)
	if version >= 3 {
		ddl = append(ddl, `CREATE TABLE api_requirer (group_name TEXT, version TEXT, kind TEXT, `+apiKey+`)`)
	}
	if version >= 1 {
		ddl = append(ddl, `CREATE TABLE related_image (image TEXT, operatorbundle_name TEXT)`)
	}
	keyed := "type TEXT, value TEXT, operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT"
	if version >= 8 {
		ddl = append(ddl, `CREATE TABLE dependencies (`+keyed+`)`)
	}
	if version >= 9 {
		ddl = append(ddl, `CREATE TABLE properties (`+keyed+`)`)
	}
	if version >= 12 {
		ddl = append(ddl, `CREATE TABLE deprecated (operatorbundle_name TEXT PRIMARY KEY)`)
	}
	return append(ddl, fmt.Sprintf(`INSERT INTO schema_migrations(version) VALUES (%d)`, version))
}

const demoIcon = `[{"base64data":"iVBORw0KGgo=","mediatype":"image/png"}]`

func demoCSV(name, version, replaces, skips, skipRange, required string) string {
	return `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"annotations":{"olm.skipRange":"` +
		skipRange + `"},"name":"` + name + `"},"spec":{"customresourcedefinitions":{"required":[` + required + `]},"icon":` + demoIcon +
		`,"install":{"spec":{"deployments":[{"name":"op","spec":{"template":{"spec":{"containers":[{"image":"quay.io/demo/op:` +
		version + `"}],"initContainers":[{"image":"quay.io/demo/init:1"}]}}}}]},"strategy":"deployment"},` +
		`"relatedImages":[{"image":"quay.io/demo/op:` + version + `","name":"op"}],"replaces":"` + replaces + `","skips":[` + skips +
		`],"version":"` + version + `"}}` + "\n"
}

type demoBundle struct {
	name, version, replaces, skips, skipRange string
	csv, blob                                 string
	provides, requires                        [][3]string // group, version, kind
}

func demoBundles() []demoBundle {
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.demo.io"}}` + "\n"
	v100 := demoCSV("demo.v1.0.0", "1.0.0", "", "", "", `{"kind":"Widget","name":"widgets.demo.io","version":"v1"}`)
	v110 := demoCSV("demo.v1.1.0", "1.1.0", "demo.v1.0.0", `"demo.v0.9.0"`, "<1.1.0",
		`{"kind":"Widget","name":"widgets.demo.io","version":"v1"},{"kind":"Thing","name":"things.demo.io","version":"v1"}`)
	return []demoBundle{
		{name: "demo.v1.0.0", version: "1.0.0", csv: v100, blob: v100,
			requires: [][3]string{{"demo.io", "v1", "Widget"}}},
		{name: "demo.v1.1.0", version: "1.1.0", replaces: "demo.v1.0.0", skips: "demo.v0.9.0", skipRange: "<1.1.0",
			csv: v110, blob: crd + v110, provides: [][3]string{{"demo.io", "v1", "Gadget"}},
			requires: [][3]string{{"demo.io", "v1", "Thing"}, {"demo.io", "v1", "Widget"}}},
	}
}

// demoEntries is the replaces-mode layout of channel stable: entry_id, bundle, replaces, depth.
var demoEntries = []struct {
	id       int
	bundle   string
	replaces any
	depth    int
}{
	{1, "demo.v1.1.0", 4, 0},
	{2, "demo.v0.9.0", nil, 1},
	{3, "demo.v1.1.0", 2, 1},
	{4, "demo.v1.0.0", nil, 2},
}

// buildLegacyIndex writes the demo package into a new index.db at the given schema version.
func buildLegacyIndex(t *testing.T, version int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", version))
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("schema %d: %s: %v", version, q, err)
		}
	}
	for _, s := range legacyDDL(version) {
		exec(s)
	}
	exec(`INSERT INTO package VALUES ('demo', 'stable')`)
	exec(`INSERT INTO channel VALUES ('stable', 'demo', 'demo.v1.1.0')`)
	for _, e := range demoEntries {
		exec(`INSERT INTO channel_entry VALUES (?, 'stable', 'demo', ?, ?, ?)`, e.id, e.bundle, e.replaces, e.depth)
	}
	for _, b := range demoBundles() {
		cols, vals := []string{"name", "csv", "bundle"}, []any{b.name, []byte(b.csv), []byte(b.blob)}
		if version >= 2 {
			cols, vals = append(cols, "bundlepath"), append(vals, "")
		}
		if version >= 5 {
			cols, vals = append(cols, "version", "skiprange"), append(vals, b.version, b.skipRange)
		}
		if version >= 7 {
			cols, vals = append(cols, "replaces", "skips"), append(vals, b.replaces, b.skips)
		}
		exec(`INSERT INTO operatorbundle (`+strings.Join(cols, ",")+`) VALUES (`+strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",")+`)`, vals...)
		if version >= 1 {
			for _, img := range []string{"quay.io/demo/op:" + b.version, "quay.io/demo/init:1"} {
				exec(`INSERT INTO related_image VALUES (?, ?)`, img, b.name)
			}
		}
		insertAPIs(t, exec, version, "api_provider", b.name, b.version, b.provides)
		if version >= 3 {
			insertAPIs(t, exec, version, "api_requirer", b.name, b.version, b.requires)
		}
		for _, g := range b.requires {
			if version >= 8 {
				value := fmt.Sprintf(`{"group":%q,"kind":%q,"version":%q}`, g[0], g[2], g[1])
				exec(`INSERT INTO dependencies VALUES ('olm.gvk', ?, ?, ?, NULL)`, value, b.name, b.version)
			}
		}
		if version >= 9 {
			exec(`INSERT INTO properties VALUES ('olm.package', ?, ?, ?, NULL)`,
				fmt.Sprintf(`{"packageName":"demo","version":%q}`, b.version), b.name, b.version)
			for _, g := range b.provides {
				exec(`INSERT INTO properties VALUES ('olm.gvk', ?, ?, ?, NULL)`,
					fmt.Sprintf(`{"group":%q,"kind":%q,"version":%q}`, g[0], g[2], g[1]), b.name, b.version)
			}
		}
	}
	return path
}

func insertAPIs(t *testing.T, exec func(string, ...any), version int, table, bundle, bundleVersion string, gvks [][3]string) {
	t.Helper()
	for _, g := range gvks {
		exec(`INSERT OR IGNORE INTO api VALUES (?, ?, ?, ?)`, g[0], g[1], g[2], strings.ToLower(g[2])+"s")
		if version >= 6 {
			exec(`INSERT INTO `+table+` VALUES (?, ?, ?, ?, ?, NULL)`, g[0], g[1], g[2], bundle, bundleVersion)
			continue
		}
		for _, e := range demoEntries {
			if e.bundle == bundle {
				exec(`INSERT INTO `+table+` VALUES (?, ?, ?, ?)`, g[0], g[1], g[2], e.id)
			}
		}
	}
}

// migrateIndex migrates the index.db at path into out as olmcat migrate does (an empty index is
// accepted, as with --allow-empty), with an optional migration level, and returns the departures.
func migrateIndex(path, out string, opts MigrateOptions, level ...tofbc.MigrateLevel) (*tofbc.Report, error) {
	srcOpts := source.Options{AllowEmpty: true}
	if len(level) > 0 {
		srcOpts.MigrateLevel = level[0]
	}
	sum, err := MigratePath(context.Background(), path, out, opts, srcOpts)
	if sum == nil {
		return nil, err
	}
	return sum.Departures, err
}
