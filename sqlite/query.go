package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"sync"

	"google.golang.org/protobuf/proto"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Querier answers the api.Registry queries straight from an index.db with SQL, reproducing what
// `opm registry serve` (operator-registry v1.72, manifests omitted from ListBundles) answers,
// quirks included. It opens the file read-only and immutable and never writes to it.
// It implements api.Backend.
type Querier struct {
	db         *sql.DB                       // lookups: short statements, prepared once
	listDB     *sql.DB                       // ListBundles streams, which hold a connection for as long as the client reads
	path       string                        // the file served: the input, or a private upgraded copy of an old one
	input      string                        // the file named by the caller, for messages
	removeCopy func() error                  // path is a temporary copy: Close removes it
	index      lazy[queryRowIndex]           // built by the first lookup that needs it
	packages   lazy[map[string]*api.Package] // GetPackage's answers, built on first use
	stmts      sync.Map                      // SQL text -> *sql.Stmt on db
	bundles    bundleCache                   // completed bundles, by name
	listMu     sync.Mutex                    // guards list and listClosed
	list       *listLoad                     // the reading of the ListBundles stream, under way or done
	listClosed bool                          // Close has run: no stream is read any more
}

var _ api.RawBundleLister = (*Querier)(nil)

// NewQuerier opens the index.db at path for serving. It fails with a clear message when the file
// is not a readable SQLite database. An index older than schema version 9 is served from a
// private temporary copy completed as opm's migrations would have (opm did the same); the input
// is never written.
func NewQuerier(path string) (*Querier, error) {
	q, err := openQuerier(path, path)
	var old *QuerySchemaError
	if !errors.As(err, &old) {
		return q, err
	}
	copyPath, removeCopy, cerr := queryUpgradedCopy(context.Background(), path)
	if cerr != nil {
		return nil, fmt.Errorf("%v; serving it needs a completed copy, which failed: %w", err, cerr)
	}
	q, err = openQuerier(copyPath, path)
	if err != nil {
		removeCopy()
		return nil, err
	}
	q.removeCopy = removeCopy
	return q, nil
}

func openQuerier(path, input string) (*Querier, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open index %s: %w", input, err)
	}
	// Immutable read-only connections never contend; they are kept open for the server's lifetime
	// so that a file removed while serving goes on being readable. Each has a small page cache:
	// serving reads rows once, and many connections must fit in a small pod.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&immutable=1&_pragma=cache_size(-512)"
	open := func(conns int) (*sql.DB, error) {
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("open index %s: %w", path, err)
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
		return db, nil
	}
	db, err := open(4 * runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	listDB, err := open(4)
	if err != nil {
		db.Close()
		return nil, err
	}
	q := &Querier{db: db, listDB: listDB, path: path, input: input}
	if err := q.checkSchema(context.Background()); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// Close closes the database (and removes a temporary upgraded copy).
func (q *Querier) Close() error {
	q.listMu.Lock()
	q.listClosed = true
	l := q.list
	q.list = nil
	q.listMu.Unlock()
	var err error
	if l != nil {
		l.cancel()
		<-l.done // the read gives back its connection and temporary file before they are closed
		if l.sp != nil {
			err = l.sp.Close()
		}
	}
	err = errors.Join(err, q.db.Close(), q.listDB.Close())
	if q.removeCopy != nil {
		err = errors.Join(err, q.removeCopy())
		q.removeCopy = nil
	}
	return err
}

// query runs a lookup through a statement prepared once per SQL text.
func (q *Querier) query(ctx context.Context, text string, args ...any) (*sql.Rows, error) {
	st, err := q.stmt(ctx, text)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (q *Querier) queryRow(ctx context.Context, text string, args ...any) *sql.Row {
	st, err := q.stmt(ctx, text)
	if err != nil {
		// Let Scan report it: prepare with a query that fails the same way.
		return q.db.QueryRowContext(ctx, text, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (q *Querier) stmt(ctx context.Context, text string) (*sql.Stmt, error) {
	if st, ok := q.stmts.Load(text); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := q.db.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	if prev, loaded := q.stmts.LoadOrStore(text, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// queryRequiredColumns are what the serving queries read; databases older than schema version 9 lack
// some of them (opm upgrades a private copy before serving; olmcat does not write).
var queryRequiredColumns = map[string][]string{
	"package":        {"name", "default_channel"},
	"channel":        {"name", "package_name", "head_operatorbundle_name"},
	"channel_entry":  {"entry_id", "channel_name", "package_name", "operatorbundle_name", "replaces", "depth"},
	"operatorbundle": {"name", "csv", "bundle", "bundlepath", "version", "skiprange"},
	"properties":     {"type", "value", "operatorbundle_name", "operatorbundle_version", "operatorbundle_path"},
	"dependencies":   {"type", "value", "operatorbundle_name", "operatorbundle_version", "operatorbundle_path"},
	"api":            {"group_name", "version", "kind", "plural"},
}

func (q *Querier) checkSchema(ctx context.Context) error {
	for table, cols := range queryRequiredColumns {
		rows, err := q.db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
		if err != nil {
			return q.wrap(fmt.Errorf("read schema: %w", err))
		}
		have := map[string]bool{}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return q.wrap(err)
			}
			have[name] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return q.wrap(fmt.Errorf("read schema: %w", err))
		}
		for _, c := range cols {
			if !have[c] {
				return &QuerySchemaError{Path: q.input, Version: q.schemaVersion(ctx), Table: table, Column: c}
			}
		}
	}
	return nil
}

// QuerySchemaError says an index.db lacks a table or column the serving queries read: databases
// older than schema version 9. NewQuerier serves those from an upgraded copy; the error is
// returned only when that copy cannot be made.
type QuerySchemaError struct {
	Path, Version, Table, Column string
}

func (e *QuerySchemaError) Error() string {
	return fmt.Sprintf("index %s (schema version %s) has no %s.%s, which serving reads (added by schema version 9); "+
		"olmcat does not upgrade an index in place: convert it with `olmcat migrate %s DIR` and serve DIR",
		e.Path, e.Version, e.Table, e.Column, e.Path)
}

func (q *Querier) schemaVersion(ctx context.Context) string {
	var v sql.NullInt64
	if err := q.db.QueryRowContext(ctx, "SELECT version FROM schema_migrations LIMIT 1").Scan(&v); err != nil || !v.Valid {
		return "unknown"
	}
	return fmt.Sprint(v.Int64)
}

// wrap gives database failures (not lookup misses) the file's name, and says so plainly when the
// file has gone away while serving.
func (q *Querier) wrap(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if _, statErr := os.Stat(q.path); statErr != nil {
		return fmt.Errorf("index %s is no longer readable (%v): %w", q.input, statErr, err)
	}
	return fmt.Errorf("index %s: %w", q.input, err)
}

// ListPackages returns the package names in SQLite's row order (opm has no ORDER BY either).
func (q *Querier) ListPackages(ctx context.Context) ([]string, error) {
	rows, err := q.query(ctx, `SELECT DISTINCT name FROM package`)
	if err != nil {
		return nil, q.wrap(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&name); err != nil {
			return nil, q.wrap(err)
		}
		if name.Valid {
			names = append(names, name.String)
		}
	}
	return names, q.wrap(rows.Err())
}

// GetPackage joins the package with its channels; a package without channel rows is "not found".
// Deprecations are never set: the SQLite schema has no place for them.
func (q *Querier) GetPackage(ctx context.Context, name string) (*api.Package, error) {
	packages, err := q.packages.get(ctx, q.readPackages)
	if err != nil {
		return nil, q.wrap(err)
	}
	pkg, ok := (*packages)[name]
	if !ok {
		return nil, fmt.Errorf("package %s not found", name)
	}
	return proto.Clone(pkg).(*api.Package), nil
}

// readPackages reads every package's GetPackage answer in one query. opm runs the query below
// with "WHERE p.name = ?" per call, but the channel table's key is (name, package_name), so each
// call scans the whole table: quadratic over a client that asks for every package (compat spent
// 5 s of 310 in it on 50,000 bundles). Within a package the rows come in the same order, channel
// name order through that key (TestGetPackageAnswersAsOpmsQuery).
func (q *Querier) readPackages(ctx context.Context) (*map[string]*api.Package, error) {
	rows, err := q.db.QueryContext(ctx, `
		SELECT DISTINCT p.name, p.default_channel, c.name, c.head_operatorbundle_name
		FROM package AS p JOIN channel AS c ON c.package_name = p.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	packages := map[string]*api.Package{}
	for rows.Next() {
		var pkgName, defaultChannel, channel, head sql.NullString
		if err := rows.Scan(&pkgName, &defaultChannel, &channel, &head); err != nil {
			return nil, err
		}
		if !pkgName.Valid {
			continue // "p.name = ?" matches no NULL
		}
		pkg := packages[pkgName.String]
		if pkg == nil {
			pkg = &api.Package{Name: pkgName.String, DefaultChannelName: defaultChannel.String}
			packages[pkgName.String] = pkg
		}
		pkg.Channels = append(pkg.Channels, &api.Channel{Name: channel.String, CsvName: head.String})
	}
	return &packages, rows.Err()
}
