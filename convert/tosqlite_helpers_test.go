package convert

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

const toSQLiteConformance = "../../shared/conformance"

func requireConformance(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(toSQLiteConformance); err != nil {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository)", toSQLiteConformance)
	}
}

// sqliteCasesWithMigrate lists sqlite/<case> directories whose opm migrate output exists.
func sqliteCasesWithMigrate(t testing.TB) []string {
	requireConformance(t)
	dirs, _ := filepath.Glob(filepath.Join(toSQLiteConformance, "sqlite", "*", "migrate"))
	var cases []string
	for _, d := range dirs {
		cases = append(cases, filepath.Dir(d))
	}
	sort.Strings(cases)
	return cases
}

func loadCatalog(t testing.TB, dir string) *fbc.Catalog {
	t.Helper()
	c, err := fbc.Load(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return c
}

// writeDB converts cat into a new index.db in a temporary directory.
func writeDB(t testing.TB, cat *fbc.Catalog, opts ToSQLiteOptions) (string, *SQLiteReport) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "index.db")
	r, err := ToSQLite(context.Background(), cat, out, opts)
	if err != nil {
		t.Fatalf("ToSQLite: %v", err)
	}
	return out, r
}

func openDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func hasTable(t testing.TB, db *sql.DB, name string) bool {
	return len(rowsOf(t, db, "SELECT name FROM sqlite_master WHERE type='table' AND name = ?", name)) > 0
}

// rowsOf runs a query and returns each row as its columns joined by "|" (NULL as "<null>", BLOBs
// as text).
func rowsOf(t testing.TB, db *sql.DB, query string, args ...any) []string {
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
			switch x := v.(type) {
			case nil:
				parts[i] = "<null>"
			case []byte:
				parts[i] = string(x)
			default:
				parts[i] = fmt.Sprint(x)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedRows(t testing.TB, db *sql.DB, query string, args ...any) []string {
	out := rowsOf(t, db, query, args...)
	sort.Strings(out)
	return out
}
