package sqlite

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDB copies a corpus index into a fresh directory (opm's own tests never touch the originals).
func corpusDB(t *testing.T, name string) string {
	t.Helper()
	readerCases(t)
	src := filepath.Join(readerConformanceDir, name, "input.db")
	dst := filepath.Join(t.TempDir(), "index.db")
	copyFile(t, src, dst)
	return dst
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit runs statements on a database with an ordinary read-write connection (test setup only).
func edit(t *testing.T, path string, statements ...string) {
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

// readAll opens the file and reads every package, as a conversion does.
func readAll(path string) error {
	db, err := Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	refs, err := db.Packages(ctx)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		p, err := db.ReadPackage(ctx, ref)
		if err != nil {
			return err
		}
		for name := range p.Bundles {
			if _, err := db.BundleCSV(ctx, name); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestOpenCorpusVersions(t *testing.T) {
	want := map[string]int{"real-indexer-testdata-schema5": 5, "real-infrawatch-05": 10,
		"real-foo-index-v0.2.0": 12, "real-grafana-operator-bundles-db": 12, "kube-green-replaces": 13}
	for name, v := range want {
		db, err := Open(filepath.Join(readerConformanceDir, name, "input.db"))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				t.Skipf("conformance corpus not found at %s", readerConformanceDir)
			}
			t.Fatal(err)
		}
		if db.SchemaVersion() != v || db.VersionInferred() {
			t.Errorf("%s: schema version %d (inferred %v), want %d", name, db.SchemaVersion(), db.VersionInferred(), v)
		}
		db.Close()
	}
}

type fileState struct {
	sum     [32]byte
	modTime int64
	names   []string
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	s := fileState{sum: sha256.Sum256(data), modTime: fi.ModTime().UnixNano()}
	for _, e := range entries {
		s.names = append(s.names, e.Name())
	}
	return s
}

// TestReadingLeavesFileUnchanged reads every corpus index from a read-only directory and checks
// that the bytes, the modification time and the directory listing (no -journal, -wal or -shm) are
// the same afterwards, and that the handle refuses writes.
func TestReadingLeavesFileUnchanged(t *testing.T) {
	for _, name := range readerCases(t) {
		path := corpusDB(t, name)
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Dir(path), 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
		before := stateOf(t, path)
		if err := readAll(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		db, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SQL().Exec(`DELETE FROM package`); err == nil {
			t.Errorf("%s: a write through the read-only handle succeeded", name)
		}
		db.Close()
		after := stateOf(t, path)
		if before.sum != after.sum || before.modTime != after.modTime || strings.Join(before.names, ",") != strings.Join(after.names, ",") {
			t.Errorf("%s: reading changed the file or its directory: %+v -> %+v", name, before, after)
		}
	}
}

func TestOpenPathNeedingEscapes(t *testing.T) {
	src := corpusDB(t, "real-foo-index-v0.2.0")
	dir := filepath.Join(t.TempDir(), "odd ?#% dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "my index?.db")
	copyFile(t, src, path)
	if err := readAll(path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("reading created files beside the index: %v", entries)
	}
}

func TestOpenRejectsNonSQLiteFiles(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("SQLite format 3\x00 and more"))
	zw.Close()
	cases := map[string]struct {
		content []byte
		want    string
	}{
		"empty.db": {nil, "an empty file"},
		"gz.db":    {gz.Bytes(), "gzip-compressed data; decompress it first"},
		"fbc.db":   {[]byte(`{"schema":"olm.package","name":"x"}`), "JSON text"},
		"fbc.yaml": {[]byte("---\nschema: olm.package\n"), "YAML text"},
		"text.db":  {[]byte("hello\n"), "a text file"},
		"bin.db":   {[]byte{0, 1, 2, 3, 0xff}, "binary data starting with 00 01 02 03 ff"},
	}
	for name, c := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, c.content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path)
		var notDB *NotSQLiteError
		if !errors.As(err, &notDB) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a NotSQLiteError naming the file and saying %q", name, err, c.want)
		}
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("directory: got %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}
}

func TestOpenTruncatedFile(t *testing.T) {
	path := corpusDB(t, "kube-green-replaces")
	data, _ := os.ReadFile(path)
	for _, size := range []int{50, 4096, len(data) / 2, len(data) - 4096} {
		if err := os.WriteFile(path, data[:size], 0o644); err != nil {
			t.Fatal(err)
		}
		err := readAll(path)
		var corrupt *CorruptError
		if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("truncated to %d bytes: got %v, want a CorruptError saying truncated", size, err)
		}
	}
}

// corruptPage overwrites the b-tree page header of a table's root page.
func corruptPage(t *testing.T, path, table string) {
	t.Helper()
	var root, pageSize int64
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = ?`, table).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	offset := (root - 1) * pageSize
	if root == 1 {
		offset = 100
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, 16), offset); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCorruptPage(t *testing.T) {
	for _, table := range []string{"sqlite_master", "channel_entry", "operatorbundle", "properties"} {
		path := corpusDB(t, "kube-green-replaces")
		if table == "sqlite_master" {
			f, _ := os.OpenFile(path, os.O_RDWR, 0)
			f.WriteAt(bytes.Repeat([]byte{0xa5}, 16), 100)
			f.Close()
		} else {
			corruptPage(t, path, table)
		}
		err := readAll(path)
		var corrupt *CorruptError
		if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), path) {
			t.Errorf("corrupt %s page: got %v, want a CorruptError naming the file", table, err)
		}
	}
}

func TestOpenNewerSchemaVersion(t *testing.T) {
	path := corpusDB(t, "kube-green-replaces")
	edit(t, path, `UPDATE schema_migrations SET version = 99`)
	_, err := Open(path)
	var unsupported *UnsupportedVersionError
	if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), "schema version 99 is newer than this olmcat understands (max 13)") {
		t.Errorf("got %v", err)
	}
}

func TestOpenMissingTables(t *testing.T) {
	for _, c := range []struct{ drop, want string }{
		{`DROP TABLE properties`, "table properties is missing, but an index at schema version 13 has it"},
		{`DROP TABLE channel_entry`, "table channel_entry is missing"},
		{`ALTER TABLE operatorbundle DROP COLUMN skiprange`, "column operatorbundle.skiprange is missing"},
	} {
		path := corpusDB(t, "kube-green-replaces")
		edit(t, path, c.drop)
		_, err := Open(path)
		var missing *MissingSchemaError
		if !errors.As(err, &missing) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: got %v, want %q", c.drop, err, c.want)
		}
	}
}

func TestOpenWithoutSchemaMigrations(t *testing.T) {
	path := corpusDB(t, "kube-green-replaces")
	edit(t, path, `DROP TABLE schema_migrations`)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.SchemaVersion() != 13 || !db.VersionInferred() {
		t.Errorf("version %d inferred %v, want 13 inferred", db.SchemaVersion(), db.VersionInferred())
	}
}

func TestOpenIsSQLiteFile(t *testing.T) {
	path := corpusDB(t, "real-foo-index-v0.2.0")
	renamed := filepath.Join(filepath.Dir(path), "catalog.json")
	if err := os.Rename(path, renamed); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsSQLiteFile(renamed); !ok || err != nil {
		t.Errorf("IsSQLiteFile(%s) = %v, %v", renamed, ok, err)
	}
	other := filepath.Join(t.TempDir(), "index.db")
	os.WriteFile(other, []byte("{}"), 0o644)
	if ok, _ := IsSQLiteFile(other); ok {
		t.Error("a JSON file named index.db was taken for SQLite")
	}
	r, _ := os.Open(renamed)
	defer r.Close()
	io.Copy(io.Discard, r)
}

// Random bytes that happen to start with '{' are binary data, not JSON text (a 1 in 256 chance
// for /dev/urandom).
func TestNotSQLiteDescribesBinaryThatStartsLikeJSON(t *testing.T) {
	for _, head := range [][]byte{{'{', 0x00, 0x9f, 0x12}, {' ', '[', 0xff, 0xfe, 'a'}, []byte("---\x00")} {
		if got := NotSQLite("x", head).LooksLike; !strings.HasPrefix(got, "binary data") {
			t.Errorf("% x looks like %q, want binary data", head, got)
		}
	}
	if got := NotSQLite("x", []byte(`{"schema": "olm.package", "name": "caf`+"\xc3")).LooksLike; got != "JSON text" {
		t.Errorf("JSON cut inside a rune looks like %q, want JSON text", got)
	}
}
