package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const conformanceDir = "../../shared/conformance"

// openReadOnly opens a database without any chance of changing it.
func openReadOnly(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryStrings(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaShape describes a database's layout with SQLite's own introspection: tables and their
// columns, keys, foreign keys and indexes, plus every object's SQL with whitespace and quoting
// normalized.
func schemaShape(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	shape := map[string][]string{}
	space := regexp.MustCompile(`\s+`)
	for _, row := range queryStrings(t, db, "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name") {
		parts := strings.SplitN(row, "|", 3)
		norm := space.ReplaceAllString(strings.ReplaceAll(parts[2], `"`, ""), "")
		shape["sql "+parts[0]+" "+parts[1]] = []string{strings.ToLower(norm)}
	}
	for _, table := range queryStrings(t, db, "SELECT name FROM sqlite_master WHERE type = 'table'") {
		shape["columns "+table] = queryStrings(t, db, fmt.Sprintf("PRAGMA table_info(%q)", table))
		shape["foreign keys "+table] = queryStrings(t, db, fmt.Sprintf("PRAGMA foreign_key_list(%q)", table))
		for _, idx := range queryStrings(t, db, fmt.Sprintf("SELECT name FROM pragma_index_list(%q)", table)) {
			shape["index "+table+" "+idx] = queryStrings(t, db, fmt.Sprintf("PRAGMA index_info(%q)", idx))
		}
	}
	return shape
}

func TestSchemaMatchesOpmBuiltDatabase(t *testing.T) {
	// community-5ops-replaces was built by opm v1.72's loader on a fresh database (migrations 0..13).
	ref := filepath.Join(conformanceDir, "sqlite/community-5ops-replaces/input.db")
	if _, err := os.Stat(ref); err != nil {
		t.Skipf("conformance corpus not found at %s", conformanceDir)
	}
	out := filepath.Join(t.TempDir(), "index.db")
	w, err := Create(context.Background(), out, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	want := schemaShape(t, openReadOnly(t, ref))
	got := schemaShape(t, openReadOnly(t, out))
	if len(want) < 40 {
		t.Fatalf("reference schema looks incomplete: %d objects", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema differs from opm's (-opm +ours):\n%s", diff)
	}
	if v := queryStrings(t, openReadOnly(t, out), "SELECT version FROM schema_migrations"); !cmp.Equal(v, []string{"13"}) {
		t.Errorf("schema_migrations = %v, want one row with 13", v)
	}
}
