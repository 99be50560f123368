package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"syscall"

	moderncsqlite "modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/olmcat/olmcat/internal/atomicout"
)

// Writer creates a schema-13 index.db: the whole database is written in one transaction into a
// temporary file beside the output, which replaces the output only when Commit succeeds. Packages
// are added one at a time, so a caller never needs more than one package's rows in memory.
//
// Foreign keys are enforced while writing (as opm's loader does), so rows that would break the
// schema's references are refused with the package and bundle named.
type Writer struct {
	out         *atomicout.Target
	db          *sql.DB
	tx          *sql.Tx
	stmts       *statements
	nextEntryID int64
	bundles     map[string]string // bundle name -> package that wrote it
	packages    map[string]bool
	done        bool
}

// Create starts a new database at path. An existing file there is an error unless force is set;
// it is replaced only on Commit.
func Create(ctx context.Context, path string, force bool) (*Writer, error) {
	out, err := atomicout.File(path, force)
	if err != nil {
		return nil, err
	}
	w := &Writer{out: out, nextEntryID: 1, bundles: map[string]string{}, packages: map[string]bool{}}
	if err := w.open(ctx); err != nil {
		w.Abort()
		if oerr := w.outputError(err); oerr != err {
			return nil, oerr
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return w, nil
}

func (w *Writer) open(ctx context.Context) error {
	// The temporary file is renamed only after commit and close, so neither a journal nor syncs
	// during the transaction protect anything: a crash leaves only the temporary file behind.
	dsn := "file:" + (&url.URL{Path: w.out.Path()}).EscapedPath() +
		"?_pragma=foreign_keys(1)&_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	w.db = db
	for _, stmt := range schemaStatements {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	if w.tx, err = db.BeginTx(ctx, nil); err != nil {
		return err
	}
	if _, err := w.tx.ExecContext(ctx, "INSERT INTO schema_migrations(version) VALUES(?)", SchemaVersion); err != nil {
		return fmt.Errorf("record schema version: %w", err)
	}
	w.stmts, err = prepareStatements(ctx, w.tx)
	return err
}

// AddPackage writes one package: its bundles (with their related images, properties,
// dependencies and APIs), channels, the package row and the channel entries, in an order that
// satisfies every foreign key.
func (w *Writer) AddPackage(ctx context.Context, p *PackageOut) error {
	if w.done {
		return errors.New("index.db writer already committed or aborted")
	}
	if err := w.check(p); err != nil {
		return fmt.Errorf("package %q: %w", p.Name, err)
	}
	if err := w.insertPackage(ctx, p); err != nil {
		if oerr := w.outputError(err); oerr != err {
			return oerr
		}
		return fmt.Errorf("package %q: %w", p.Name, err)
	}
	w.packages[p.Name] = true
	for i := range p.Bundles {
		w.bundles[p.Bundles[i].Name] = p.Name
	}
	return nil
}

// check catches what would otherwise surface as an anonymous constraint failure.
func (w *Writer) check(p *PackageOut) error {
	if w.packages[p.Name] {
		return errors.New("package written twice")
	}
	for i := range p.Bundles {
		if other, ok := w.bundles[p.Bundles[i].Name]; ok {
			return fmt.Errorf("bundle %q is already written for package %q: operatorbundle.name is unique across the database", p.Bundles[i].Name, other)
		}
	}
	return p.Check()
}

// Check reports what in the package's rows the schema (or opm's readers) would refuse: empty or
// repeated names, an API without a plural, a channel head that is not one of the bundles, a
// replaces index out of range, a default channel that is not one of the channels.
func (p *PackageOut) Check() error {
	if p.Name == "" {
		return errors.New("empty package name")
	}
	names := make(map[string]bool, len(p.Bundles))
	for i := range p.Bundles {
		b := &p.Bundles[i]
		if b.Name == "" {
			return errors.New("bundle with an empty name")
		}
		if names[b.Name] {
			return fmt.Errorf("bundle %q listed twice", b.Name)
		}
		names[b.Name] = true
		for _, api := range append(append([]APIOut(nil), b.ProvidedAPIs...), b.RequiredAPIs...) {
			if api.Plural == "" {
				return fmt.Errorf("bundle %q: API %s/%s/%s has no plural (api.plural is NOT NULL; leave the API out instead)", b.Name, api.Group, api.Version, api.Kind)
			}
		}
	}
	defaultFound := false
	for _, ch := range p.Channels {
		if ch.Name == p.DefaultChannel {
			defaultFound = true
		}
		if !names[ch.Head] {
			return fmt.Errorf("channel %q: head %q is not a bundle of the package", ch.Name, ch.Head)
		}
		for i, e := range ch.Entries {
			if e.Replaces != NoReplaces && (e.Replaces < 0 || e.Replaces >= len(ch.Entries)) {
				return fmt.Errorf("channel %q: entry %d (%s) replaces entry %d, which does not exist", ch.Name, i, e.Bundle, e.Replaces)
			}
		}
	}
	if !defaultFound {
		return fmt.Errorf("default channel %q is not one of the package's channels", p.DefaultChannel)
	}
	return nil
}

func (w *Writer) insertPackage(ctx context.Context, p *PackageOut) error {
	s := w.stmts
	for i := range p.Bundles {
		if err := w.insertBundle(ctx, &p.Bundles[i]); err != nil {
			return fmt.Errorf("bundle %q: %w", p.Bundles[i].Name, err)
		}
	}
	for _, ch := range p.Channels {
		if _, err := s.channel.ExecContext(ctx, ch.Name, p.Name, ch.Head); err != nil {
			return fmt.Errorf("channel %q: %w", ch.Name, err)
		}
	}
	if _, err := s.pkg.ExecContext(ctx, p.Name, p.DefaultChannel); err != nil {
		return err
	}
	for _, ch := range p.Channels {
		first := w.nextEntryID
		for _, i := range targetsFirst(ch.Entries) {
			e := ch.Entries[i]
			var replaces any
			if e.Replaces != NoReplaces {
				replaces = first + int64(e.Replaces)
			}
			if _, err := s.entry.ExecContext(ctx, first+int64(i), ch.Name, p.Name, e.Bundle, replaces, e.Depth); err != nil {
				return fmt.Errorf("channel %q, entry of %q: %w", ch.Name, e.Bundle, err)
			}
		}
		w.nextEntryID += int64(len(ch.Entries))
	}
	return nil
}

// targetsFirst orders a channel's entries so that each comes after the entry it replaces. The
// entry_ids stay those of the given order; only the order of the inserts changes. It matters for
// speed: channel_entry.replaces is a deferred foreign key without an index, and while any deferred
// reference is unresolved SQLite scans the whole table on every insert into it.
func targetsFirst(entries []EntryOut) []int {
	order := make([]int, 0, len(entries))
	placed := make([]bool, len(entries))
	var chain []int
	for i := range entries {
		chain = chain[:0]
		for j := i; j != NoReplaces && !placed[j]; j = entries[j].Replaces {
			placed[j] = true // the writer's callers never form cycles; this also stops one
			chain = append(chain, j)
		}
		for k := len(chain) - 1; k >= 0; k-- {
			order = append(order, chain[k])
		}
	}
	return order
}

func (w *Writer) insertBundle(ctx context.Context, b *BundleOut) error {
	s := w.stmts
	if _, err := s.bundle.ExecContext(ctx, b.Name, blob(b.CSV), blob(b.Bundle), b.BundlePath, b.Version,
		b.SkipRange, b.Replaces, b.Skips, b.SubstitutesFor); err != nil {
		return err
	}
	for _, img := range b.RelatedImages {
		if _, err := s.relatedImage.ExecContext(ctx, img, b.Name); err != nil {
			return fmt.Errorf("related image %q: %w", img, err)
		}
	}
	version, path := nullIfEmpty(b.Version), nullIfEmpty(b.BundlePath)
	for _, p := range b.Properties {
		if _, err := s.property.ExecContext(ctx, p.Type, p.Value, b.Name, version, path); err != nil {
			return fmt.Errorf("property %s: %w", p.Type, err)
		}
	}
	for _, d := range b.Dependencies {
		if _, err := s.dependency.ExecContext(ctx, d.Type, []byte(d.Value), b.Name, version, path); err != nil {
			return fmt.Errorf("dependency %s: %w", d.Type, err)
		}
	}
	for _, api := range b.ProvidedAPIs {
		if err := w.insertAPI(ctx, s.apiProvider, api, b.Name, version, path); err != nil {
			return fmt.Errorf("provided API %s/%s/%s: %w", api.Group, api.Version, api.Kind, err)
		}
	}
	for _, api := range b.RequiredAPIs {
		if err := w.insertAPI(ctx, s.apiRequirer, api, b.Name, version, path); err != nil {
			return fmt.Errorf("required API %s/%s/%s: %w", api.Group, api.Version, api.Kind, err)
		}
	}
	return nil
}

func (w *Writer) insertAPI(ctx context.Context, link *sql.Stmt, api APIOut, bundle string, version, path any) error {
	if _, err := w.stmts.api.ExecContext(ctx, api.Group, api.Version, api.Kind, api.Plural); err != nil {
		return err
	}
	_, err := link.ExecContext(ctx, api.Group, api.Version, api.Kind, bundle, version, path)
	return err
}

// Commit ends the transaction, closes the database and moves it into place.
func (w *Writer) Commit() error {
	if w.done {
		return errors.New("index.db writer already committed or aborted")
	}
	w.stmts.close()
	if err := w.tx.Commit(); err != nil {
		w.Abort()
		return w.outputError(fmt.Errorf("commit index.db: %w", err))
	}
	if err := w.db.Close(); err != nil {
		w.Abort()
		return w.outputError(fmt.Errorf("close index.db: %w", err))
	}
	w.db = nil
	if err := syncFile(w.out.Path()); err != nil {
		w.Abort()
		return w.out.Err(err)
	}
	w.done = true
	return w.out.Commit()
}

// Abort discards everything written. It is safe after Commit, so `defer w.Abort()` is the usual
// pattern.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.stmts != nil {
		w.stmts.close()
	}
	if w.tx != nil {
		_ = w.tx.Rollback()
	}
	if w.db != nil {
		_ = w.db.Close()
	}
	w.out.Abort()
}

// syncFile flushes the database file before it is renamed into place (it was written with
// synchronous=OFF).
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("sync index.db: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync index.db: %w", err)
	}
	return nil
}

func blob(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// outputError turns what the SQLite engine says about the file it writes (full disk, read-only
// file system, I/O error) into an *atomicout.WriteError naming the output; other errors (a row
// the schema refuses) are returned as they are.
func (w *Writer) outputError(err error) error {
	var e *moderncsqlite.Error
	if !errors.As(err, &e) {
		return w.out.Err(err)
	}
	switch e.Code() & 0xff { // the primary result code
	case sqlite3.SQLITE_FULL:
		return w.out.Err(syscall.ENOSPC)
	case sqlite3.SQLITE_READONLY:
		return w.out.Err(syscall.EROFS)
	case sqlite3.SQLITE_IOERR:
		return w.out.Err(syscall.EIO)
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		return w.out.Err(syscall.EACCES)
	}
	return err
}
