// Package sqlite reads OLM's legacy SQLite index (index.db) of every schema version opm ever wrote
// (0 to 13). The file is opened read-only and immutable, so it is never changed and no journal or
// WAL file appears beside it. Old schemas are not migrated on disk: what opm's migrations would have
// added (properties, dependencies, related images, ...) is derived in memory when rows are read.
//
// This package knows rows and columns; what they mean as a File-Based Catalog is package convert's
// business.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is an open, read-only index database.
type DB struct {
	path            string
	sql             *sql.DB
	version         int
	versionInferred bool
	columns         map[string]map[string]bool // table -> column set
	indexMu         sync.Mutex                 // guards chain and rows
	chain           *chainIndex                // built on first use; see edges.go
	rows            *rowIndex                  // built on first use; see index.go
	stmtMu          sync.Mutex                 // guards stmts
	stmts           map[string]*sql.Stmt       // prepared by eachIn, closed by Close
}

// Open opens an index database read-only. It checks that the file is a complete SQLite database,
// reads its schema version and makes sure every table that version needs is there.
func Open(path string) (*DB, error) {
	if _, err := checkFile(path); err != nil {
		return nil, err
	}
	dsn, err := readOnlyDSN(path)
	if err != nil {
		return nil, err
	}
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// database/sql keeps two idle connections unless told otherwise: a conversion's readers (a few
	// workers, each with a query or two open) would close and reopen connections all the time, and
	// each reopening parses the schema and prepares its statements again.
	sqldb.SetMaxIdleConns(8)
	d := &DB{path: path, sql: sqldb}
	if err := d.load(context.Background()); err != nil {
		sqldb.Close()
		return nil, err
	}
	return d, nil
}

// readOnlyDSN builds a SQLite URI that opens path read-only and immutable: SQLite then takes no
// locks and writes no journal, which also works on read-only media. The path is percent-escaped so
// that '?', '#' and '%' in file names are not read as URI syntax. Each connection's page cache is
// held to 512 KiB (SQLite's default is 2 MiB): reads scan tables once or seek by key, and a
// conversion keeps a few connections busy at once.
func readOnlyDSN(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: "mode=ro&immutable=1&_pragma=cache_size(-512)"}
	return u.String(), nil
}

// Path is the file name the database was opened with.
func (d *DB) Path() string { return d.path }

// SQL is the underlying read-only handle, for packages that answer queries straight from SQL.
func (d *DB) SQL() *sql.DB { return d.sql }

// Close releases the handle and its prepared statements.
func (d *DB) Close() error {
	d.stmtMu.Lock()
	for _, st := range d.stmts {
		st.Close()
	}
	d.stmts = nil
	d.stmtMu.Unlock()
	return d.sql.Close()
}

// SchemaVersion is the migration level of the file: schema_migrations.version, or, when that table
// is missing or empty, the level its tables and columns show (see VersionInferred).
func (d *DB) SchemaVersion() int { return d.version }

// VersionInferred reports that schema_migrations did not give a version and it was deduced from the
// tables and columns present. opm would have tried to re-run every migration on such a file and failed.
func (d *DB) VersionInferred() bool { return d.versionInferred }

// HasTable reports whether the database has a table of that name.
func (d *DB) HasTable(table string) bool { return d.columns[table] != nil }

// HasColumn reports whether the table has that column.
func (d *DB) HasColumn(table, column string) bool { return d.columns[table][column] }

func (d *DB) load(ctx context.Context) error {
	if err := d.readColumns(ctx); err != nil {
		return err
	}
	v, ok, err := d.recordedVersion(ctx)
	if err != nil {
		return err
	}
	if ok {
		d.version = v
	} else {
		d.version = d.inferVersion()
		d.versionInferred = true
	}
	return d.checkSchema()
}

func (d *DB) readColumns(ctx context.Context) error {
	rows, err := d.sql.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return classify(d.path, "reading the list of tables", err)
	}
	var tables []string
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return classify(d.path, "reading the list of tables", err)
		}
		if name.Valid {
			tables = append(tables, name.String)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return classify(d.path, "reading the list of tables", err)
	}
	rows.Close()
	d.columns = make(map[string]map[string]bool, len(tables))
	for _, t := range tables {
		cols, err := d.tableColumns(ctx, t)
		if err != nil {
			return err
		}
		d.columns[t] = cols
	}
	return nil
}

func (d *DB) tableColumns(ctx context.Context, table string) (map[string]bool, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, classify(d.path, "reading the columns of table "+table, err)
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, classify(d.path, "reading the columns of table "+table, err)
		}
		cols[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, classify(d.path, "reading the columns of table "+table, err)
	}
	return cols, nil
}

// recordedVersion reads schema_migrations the way opm's migrator does: the first row, no ORDER BY.
func (d *DB) recordedVersion(ctx context.Context) (int, bool, error) {
	if !d.HasTable("schema_migrations") || !d.HasColumn("schema_migrations", "version") {
		return 0, false, nil
	}
	var v sql.NullInt64
	err := d.sql.QueryRowContext(ctx, `SELECT version FROM schema_migrations LIMIT 1`).Scan(&v)
	if err == sql.ErrNoRows || (err == nil && !v.Valid) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, classify(d.path, "reading schema_migrations", err)
	}
	if v.Int64 < 0 || v.Int64 > MaxSchemaVersion {
		if v.Int64 == -1 {
			return 0, false, nil
		}
		return 0, false, &UnsupportedVersionError{Path: d.path, Version: v.Int64}
	}
	return int(v.Int64), true, nil
}

// inferVersion finds the newest migration whose tables and columns are all present.
func (d *DB) inferVersion() int {
	switch {
	case d.HasTable("deprecated"):
		return 13 // 12 and 13 differ only in which rows 013 deleted
	case d.HasColumn("operatorbundle", "substitutesfor"):
		return 11
	case d.HasTable("properties"):
		return 10
	case d.HasTable("dependencies"):
		return 8
	case d.HasColumn("operatorbundle", "replaces"):
		return 7
	case d.HasColumn("api_provider", "operatorbundle_name"):
		return 6
	case d.HasColumn("operatorbundle", "version"):
		return 5
	case d.HasTable("api_requirer"):
		return 4
	case d.HasColumn("operatorbundle", "bundlepath"):
		return 2
	case d.HasTable("related_image"):
		return 1
	}
	return 0
}

// requirement is a table (and columns) that every file at or above a schema version has.
type requirement struct {
	since   int
	table   string
	columns []string
}

var requirements = []requirement{
	{0, "operatorbundle", []string{"name", "csv", "bundle"}},
	{0, "package", []string{"name", "default_channel"}},
	{0, "channel", []string{"name", "package_name", "head_operatorbundle_name"}},
	{0, "channel_entry", []string{"entry_id", "channel_name", "package_name", "operatorbundle_name", "replaces", "depth"}},
	{1, "related_image", []string{"image", "operatorbundle_name"}},
	{2, "operatorbundle", []string{"bundlepath"}},
	{5, "operatorbundle", []string{"version", "skiprange"}},
	{7, "operatorbundle", []string{"replaces", "skips"}},
	{8, "dependencies", []string{"type", "value", "operatorbundle_name"}},
	{9, "properties", []string{"type", "value", "operatorbundle_name"}},
}

// checkSchema makes sure the tables and columns the version promises exist. Tables that only feed
// the in-memory migrations (api_provider, api_requirer) are checked when they are needed.
func (d *DB) checkSchema() error {
	for _, r := range requirements {
		if d.version < r.since {
			continue
		}
		if !d.HasTable(r.table) {
			return &MissingSchemaError{Path: d.path, Version: d.version, Table: r.table}
		}
		for _, c := range r.columns {
			if !d.HasColumn(r.table, c) {
				return &MissingSchemaError{Path: d.path, Version: d.version, Table: r.table, Column: c}
			}
		}
	}
	return nil
}

// col returns the column name, or NULL when the table does not have it (older schemas), so that
// one SELECT serves every version.
func (d *DB) col(table, column string) string {
	if d.HasColumn(table, column) {
		return table + "." + column
	}
	return "NULL"
}
