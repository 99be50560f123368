package convert

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// channelLayouts describes every channel's channel_entry rows without entry_id numbering: per
// (package, channel), the rows in entry_id order as "bundle depth=N -> #k" where k is the position
// (in the same list) of the row it replaces.
func channelLayouts(t testing.TB, db *sql.DB, withDepth bool) map[string][]string {
	rows, err := db.Query("SELECT entry_id, package_name, channel_name, operatorbundle_name, replaces, depth FROM channel_entry ORDER BY entry_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type entry struct {
		id, replaces, depth sql.NullInt64
		key, bundle         string
	}
	var all []entry
	pos := map[int64]int{}
	count := map[string]int{}
	for rows.Next() {
		var e entry
		var pkg, ch string
		if err := rows.Scan(&e.id, &pkg, &ch, &e.bundle, &e.replaces, &e.depth); err != nil {
			t.Fatal(err)
		}
		e.key = pkg + "/" + ch
		pos[e.id.Int64] = count[e.key]
		count[e.key]++
		all = append(all, e)
	}
	out := map[string][]string{}
	for _, e := range all {
		s := e.bundle
		if withDepth {
			s += fmt.Sprintf(" depth=%d", e.depth.Int64)
		}
		if e.replaces.Valid {
			s += fmt.Sprintf(" -> #%d", pos[e.replaces.Int64])
		}
		out[e.key] = append(out[e.key], s)
	}
	return out
}

// TestToSQLiteReproducesLoaderLayout writes each opm migrate output back to an index.db and
// compares it with the index.db opm migrated it from: channel_entry layout up to entry_id
// numbering, heads and default channels, operatorbundle columns, properties, dependencies, APIs
// and related images of every bundle the FBC holds.
func TestToSQLiteReproducesLoaderLayout(t *testing.T) {
	for _, dir := range sqliteCasesWithMigrate(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var caseInfo struct{ Mode string }
			if b, err := os.ReadFile(filepath.Join(dir, "CASE.json")); err == nil {
				_ = json.Unmarshal(b, &caseInfo)
			}
			out, _ := writeDB(t, loadCatalog(t, filepath.Join(dir, "migrate")), ToSQLiteOptions{})
			ours, theirs := openDB(t, out), openDB(t, filepath.Join(dir, "input.db"))

			// Semver modes place synthetic skip pairs at the depth of the next real row; the
			// replaces-mode layout written here shifts them (docs/sqlite-fbc-mapping.md §5.5).
			withDepth := !strings.HasPrefix(caseInfo.Mode, "semver")
			want, got := channelLayouts(t, theirs, withDepth), channelLayouts(t, ours, withDepth)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("channel_entry layout differs (-opm loader +ours):\n%s", diff)
			}
			same := func(what, query string) {
				t.Helper()
				if diff := cmp.Diff(sortedRows(t, theirs, query), sortedRows(t, ours, query)); diff != "" {
					t.Errorf("%s differ (-opm loader +ours):\n%s", what, diff)
				}
			}
			same("packages", "SELECT name, default_channel FROM package")
			same("channels", "SELECT package_name, name, head_operatorbundle_name FROM channel")

			names := rowsOf(t, ours, "SELECT name FROM operatorbundle ORDER BY name")
			inOurs := "operatorbundle_name IN (SELECT value FROM json_each(?))"
			list, _ := json.Marshal(names)
			compareBundleColumns(t, theirs, ours, string(list))
			compareObjects(t, theirs, ours, names)
			if hasTable(t, theirs, "properties") {
				// The loader writes olm.package once more per channel walk; readers deduplicate.
				q := "SELECT DISTINCT operatorbundle_name, type, CAST(value AS TEXT) FROM properties WHERE " + inOurs
				if diff := cmp.Diff(sortedRows(t, theirs, q, string(list)), sortedRows(t, ours, q, string(list))); diff != "" {
					t.Errorf("properties differ (-opm loader +ours):\n%s", diff)
				}
			}
			if hasTable(t, theirs, "dependencies") {
				// olm.constraint and olm.label dependencies do not survive opm migrate.
				q := "SELECT DISTINCT operatorbundle_name, type, json(CAST(value AS TEXT)) FROM dependencies WHERE type IN ('olm.gvk', 'olm.package') AND " + inOurs
				if diff := cmp.Diff(sortedRows(t, theirs, q, string(list)), sortedRows(t, ours, q, string(list))); diff != "" {
					t.Errorf("dependencies differ (-opm loader +ours):\n%s", diff)
				}
			}
			q := "SELECT DISTINCT operatorbundle_name, image FROM related_image WHERE " + inOurs
			if diff := cmp.Diff(sortedRows(t, theirs, q, string(list)), sortedRows(t, ours, q, string(list))); diff != "" {
				t.Errorf("related images differ (-opm loader +ours):\n%s", diff)
			}
			if hasTable(t, theirs, "properties") && filepath.Base(dir) != "community-5ops-deprecatetruncate" {
				// Schema >= 6 keys APIs by bundle. opm's deprecatetruncate ran the api cleanup
				// triggers, whose defect (§1.6 item 5) deleted providers of unrelated bundles.
				// Bundles whose csv opm had NULLed have no manifests in the FBC, so nothing names
				// their plurals; their GVKs keep an api row through the bundles that do.
				for _, table := range []string{"api_provider", "api_requirer"} {
					q := "SELECT DISTINCT l.operatorbundle_name, l.group_name, l.version, l.kind, a.plural FROM " + table +
						" l JOIN api a USING (group_name, version, kind) JOIN operatorbundle b ON b.name = l.operatorbundle_name WHERE b.csv IS NOT NULL AND l." + inOurs
					if diff := cmp.Diff(sortedRows(t, theirs, q, string(list)), sortedRows(t, ours, q, string(list))); diff != "" {
						t.Errorf("%s differ (-opm loader +ours):\n%s", table, diff)
					}
				}
			}
		})
	}
}

// compareBundleColumns compares the operatorbundle columns of the bundles named in the JSON list.
// The CSV-derived replaces, skips and substitutesfor columns can only be compared where opm kept a
// CSV, and not after opm's substitutesFor bookkeeping, which rewrites them across bundles.
func compareBundleColumns(t *testing.T, theirs, ours *sql.DB, list string) {
	t.Helper()
	cols := "name, bundlepath, version, skiprange, csv"
	subst := len(rowsOf(t, theirs, "SELECT 1 FROM pragma_table_info('operatorbundle') WHERE name = 'substitutesfor'")) > 0
	if subst && len(rowsOf(t, theirs, "SELECT 1 FROM operatorbundle WHERE substitutesfor != ''")) > 0 {
		subst = false
	} else if len(rowsOf(t, theirs, "SELECT 1 FROM pragma_table_info('operatorbundle') WHERE name = 'replaces'")) > 0 {
		cols += ", CASE WHEN csv IS NULL THEN '' ELSE replaces || '|' || skips END"
	}
	if subst {
		cols += ", CASE WHEN csv IS NULL THEN '' ELSE substitutesfor END"
	}
	q := "SELECT " + cols + " FROM operatorbundle WHERE name IN (SELECT value FROM json_each(?))"
	if diff := cmp.Diff(sortedRows(t, theirs, q, list), sortedRows(t, ours, q, list)); diff != "" {
		t.Errorf("operatorbundle columns differ (-opm loader +ours):\n%s", diff)
	}
}

// compareObjects checks that each bundle column holds the same manifests. The order may differ:
// opm stored them in file order, which the FBC does not keep.
func compareObjects(t *testing.T, theirs, ours *sql.DB, names []string) {
	t.Helper()
	objects := func(db *sql.DB, name string) []string {
		var blob []byte
		if err := db.QueryRow("SELECT bundle FROM operatorbundle WHERE name = ?", name).Scan(&blob); err != nil {
			t.Fatal(err)
		}
		var out []string
		dec := json.NewDecoder(bytes.NewReader(blob))
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatalf("bundle %s: %v", name, err)
			}
			out = append(out, string(raw))
		}
		if len(blob) > 0 && !bytes.HasSuffix(blob, []byte("}\n")) {
			t.Errorf("bundle %s: bundle column does not end with an object and a newline", name)
		}
		sort.Strings(out)
		return out
	}
	for _, name := range names {
		if diff := cmp.Diff(objects(theirs, name), objects(ours, name)); diff != "" {
			t.Errorf("bundle %s: objects differ (-opm loader +ours):\n%.2000s", name, diff)
		}
	}
}
