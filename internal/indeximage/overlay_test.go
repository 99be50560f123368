package indeximage

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

var fbcLabels = map[string]string{ConfigsLabel: "/configs"}

func TestHostileLayersAreRefused(t *testing.T) {
	cases := []struct {
		name    string
		entries []tarEntry
		want    error
		msg     string
	}{
		{"absolute path", []tarEntry{file("/etc/passwd", "x")}, ErrUnsafeEntry, "absolute path"},
		{"absolute path under configs", []tarEntry{file("/configs/a.json", "{}")}, ErrUnsafeEntry, "absolute path"},
		{"dotdot escaping", []tarEntry{file("configs/../../etc/passwd", "x")}, ErrUnsafeEntry, `".."`},
		{"dotdot staying inside", []tarEntry{file("configs/pkg/../a.json", "{}")}, ErrUnsafeEntry, `".."`},
		{"symlink escaping relatively", []tarEntry{dir("configs"), symlink("configs/evil", "../../etc/passwd")}, ErrUnsafeEntry, "points outside"},
		{"symlink escaping absolutely", []tarEntry{dir("configs"), symlink("configs/evil", "/etc/passwd")}, ErrUnsafeEntry, "points outside"},
		{"symlink to the image root", []tarEntry{dir("configs"), symlink("configs/evil", "/")}, ErrUnsafeEntry, "points outside"},
		{"hardlink escaping", []tarEntry{file("etc/passwd", "root"), hardlink("configs/evil", "etc/passwd")}, ErrUnsafeEntry, "points outside"},
		{"hardlink absolute", []tarEntry{hardlink("configs/evil", "/etc/passwd")}, ErrUnsafeEntry, "absolute"},
		{"hardlink to nothing earlier", []tarEntry{hardlink("configs/evil", "configs/later.json"), file("configs/later.json", "{}")}, ErrUnsafeEntry, "not a regular file earlier"},
		{"write through a symlink of the same layer", []tarEntry{dir("configs"), dir("configs/real"), symlink("configs/d", "real"), file("configs/d/x.json", "{}")}, ErrUnsafeEntry, "beneath a symlink"},
		{"char device", []tarEntry{dir("configs"), special("configs/null", tar.TypeChar)}, ErrUnsafeEntry, "device"},
		{"block device", []tarEntry{dir("configs"), special("configs/sda", tar.TypeBlock)}, ErrUnsafeEntry, "device"},
		{"fifo", []tarEntry{dir("configs"), special("configs/pipe", tar.TypeFifo)}, ErrUnsafeEntry, "fifo"},
		{"catalog root is a symlink", []tarEntry{dir("data"), file("data/a.json", "{}"), symlink("configs", "data")}, ErrUnsafeEntry, "is a symlink"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			img := imageWith(t, fbcLabels, amd64, layerOf(t, c.entries...))
			_, err := extractImage(t, img, Options{TempDir: tmp})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got error %v, want %v mentioning %q", err, c.want, c.msg)
			}
			if !strings.Contains(err.Error(), "layer 1 of 1") {
				t.Errorf("error does not locate the layer: %v", err)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("a refused extraction left %d entries in the temp dir", len(entries))
			}
		})
	}
}

func TestDevicesOutsideTheCatalogAreIgnored(t *testing.T) {
	img := imageWith(t, fbcLabels, amd64, layerOf(t, dir("dev"), special("dev/null", tar.TypeChar), dir("configs"), file("configs/a.json", "{}")))
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := treeOf(t, cat.Files); !cmp.Equal(got, map[string]string{"a.json": "{}"}) {
		t.Errorf("tree = %v", got)
	}
}

func TestSymlinksInsideTheCatalogAreKeptRelative(t *testing.T) {
	img := imageWith(t, fbcLabels, amd64, layerOf(t,
		dir("configs"), dir("configs/pkg"), file("configs/pkg/a.json", "{}"),
		symlink("configs/rel.json", "pkg/a.json"),
		symlink("configs/pkg/abs.json", "/configs/pkg/a.json"),
		symlink("configs/pkg/up.json", "../pkg/./a.json"),
		file("configs/pkg/b.json", "b"), hardlink("configs/hard.json", "configs/pkg/b.json"),
	))
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pkg": "/", "pkg/a.json": "{}", "pkg/b.json": "b", "hard.json": "b",
		"rel.json": "->pkg/a.json", "pkg/abs.json": "->a.json", "pkg/up.json": "->a.json",
	}
	if diff := cmp.Diff(want, treeOf(t, cat.Files)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

func TestWhiteoutsAcrossLayers(t *testing.T) {
	bottom := layerOf(t, dir("configs"), file("configs/a.json", "a1"), file("configs/b.json", "b1"),
		dir("configs/sub"), file("configs/sub/c.json", "c1"), dir("configs/gone"), file("configs/gone/x.json", "x"),
		file("configs/link", "was a file"))
	middle := layerOf(t, file("configs/.wh.a.json", ""), file("configs/d.json", "d2"), file("configs/b.json", "b2"),
		file("configs/.wh.gone", ""), dir("configs/link"), file("configs/link/inner.json", "dir now"))
	top := layerOf(t, dir("configs/sub"), file("configs/sub/.wh..wh..opq", ""), file("configs/sub/e.json", "e3"),
		symlink("configs/alias.json", "d.json"))
	img := imageWith(t, fbcLabels, amd64, bottom, middle, top)
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"b.json": "b2", "d.json": "d2", "sub": "/", "sub/e.json": "e3", "alias.json": "->d.json",
		"link": "/", "link/inner.json": "dir now",
	}
	if diff := cmp.Diff(want, treeOf(t, cat.Files)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	if cat.LayersRead != 3 {
		t.Errorf("read %d layers, want 3", cat.LayersRead)
	}
}

// failingLayer fails when read: an image whose failing layer is never reported proves the walk
// stopped above it.
func failingLayer(testing.TB) v1.Layer { return unreadableLayer{} }

type unreadableLayer struct{}

var unreadableHash = v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("0", 64)}

func (unreadableLayer) Digest() (v1.Hash, error) { return unreadableHash, nil }
func (unreadableLayer) DiffID() (v1.Hash, error) { return unreadableHash, nil }
func (unreadableLayer) Compressed() (io.ReadCloser, error) {
	return nil, errors.New("this layer must not be read")
}
func (unreadableLayer) Uncompressed() (io.ReadCloser, error) {
	return nil, errors.New("this layer must not be read")
}
func (unreadableLayer) Size() (int64, error)                { return 1, nil }
func (unreadableLayer) MediaType() (types.MediaType, error) { return types.OCILayer, nil }

func TestOpaqueCatalogDirStopsTheWalk(t *testing.T) {
	upper := layerOf(t, dir("configs"), file("configs/.wh..wh..opq", ""), file("configs/new.json", "n"))
	img := imageWith(t, fbcLabels, amd64, failingLayer(t), upper)
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := treeOf(t, cat.Files); !cmp.Equal(got, map[string]string{"new.json": "n"}) {
		t.Errorf("tree = %v", got)
	}
	if cat.LayersRead != 1 || cat.LayersTotal != 2 {
		t.Errorf("read %d of %d layers, want 1 of 2", cat.LayersRead, cat.LayersTotal)
	}
}

func TestWhiteoutOfTheWholeCatalogThenRecreated(t *testing.T) {
	old := layerOf(t, dir("configs"), file("configs/old.json", "o"))
	wipe := layerOf(t, file(".wh.configs", ""))
	fresh := layerOf(t, dir("configs"), file("configs/fresh.json", "f"))
	cat, err := extractImage(t, imageWith(t, fbcLabels, amd64, failingLayer(t), old, wipe, fresh), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := treeOf(t, cat.Files); !cmp.Equal(got, map[string]string{"fresh.json": "f"}) {
		t.Errorf("tree = %v", got)
	}
	_, err = extractImage(t, imageWith(t, fbcLabels, amd64, old, wipe), Options{})
	if err == nil || !strings.Contains(err.Error(), "no layer holds it") {
		t.Errorf("whited-out catalog: got %v, want 'no layer holds it'", err)
	}
}

func TestSQLiteStopsAtTheLayerHoldingIndexDB(t *testing.T) {
	dbLabels := map[string]string{DatabaseLabel: "/database/index.db"}
	img := imageWith(t, dbLabels, amd64, failingLayer(t),
		layerOf(t, dir("database"), file("database/index.db", "old")),
		layerOf(t, dir("database"), file("database/index.db", "new"), file("database/other", "x")),
		layerOf(t, file("tmp/unrelated", "y")))
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cat.Path); string(b) != "new" || cat.Kind != SQLite {
		t.Errorf("kind %v, content %q; want sqlite, %q", cat.Kind, b, "new")
	}
	if cat.LayersRead != 2 {
		t.Errorf("read %d layers, want 2", cat.LayersRead)
	}

	deleted := imageWith(t, dbLabels, amd64, layerOf(t, dir("database"), file("database/index.db", "old")),
		layerOf(t, file("database/.wh.index.db", "")))
	if _, err := extractImage(t, deleted, Options{}); err == nil || !strings.Contains(err.Error(), "no layer holds it") {
		t.Errorf("deleted index.db: got %v", err)
	}
	asDir := imageWith(t, dbLabels, amd64, layerOf(t, dir("database/index.db")))
	if _, err := extractImage(t, asDir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("index.db as a directory: got %v", err)
	}
	asLink := imageWith(t, dbLabels, amd64, layerOf(t, file("data/x.db", "x"), dir("database"), symlink("database/index.db", "/data/x.db")))
	if _, err := extractImage(t, asLink, Options{}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("index.db as a symlink: got %v", err)
	}
}

// The extractor checks each directory once; a directory already written through must never
// turn into a link that a later entry would be written through.
func TestDirectoryWrittenThroughCannotBecomeALink(t *testing.T) {
	img := imageWith(t, fbcLabels, amd64, layerOf(t, dir("configs"), dir("configs/e"),
		file("configs/d/a.json", "{}"), symlink("configs/d", "e"), file("configs/d/b.json", "{}")))
	tmp := t.TempDir()
	_, err := extractImage(t, img, Options{TempDir: tmp})
	if err == nil || !strings.Contains(err.Error(), `entry "configs/d"`) {
		t.Fatalf("got %v, want the link over the directory refused", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("a refused extraction left %d entries in the temp dir", len(entries))
	}
}

func TestDuplicateEntriesInALayerLastWins(t *testing.T) {
	img := imageWith(t, fbcLabels, amd64, layerOf(t, dir("configs"), file("configs/a.json", "first"), file("configs/a.json", "second")))
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := treeOf(t, cat.Files)["a.json"]; got != "second" {
		t.Errorf("a.json = %q, want second", got)
	}
}

func TestDecompressionBombLimits(t *testing.T) {
	zeros := strings.Repeat("\x00", 4<<20) // 4 MiB that gzip squeezes to a few KiB
	many := []tarEntry{dir("configs")}
	for i := 0; i < 50; i++ {
		many = append(many, file(filepath.Join("configs", strings.Repeat("f", i+1)), "{}"))
	}
	cases := []struct {
		name   string
		layer  v1.Layer
		limits Limits
		msg    string
	}{
		{"bytes", layerOf(t, dir("configs"), file("configs/a.json", zeros[:1<<20]), file("configs/b.json", zeros[:1<<20])), Limits{MaxBytes: 3 << 19}, "the files under /configs add up to more than 1536KiB (the image is a decompression bomb, or set OLMCAT_MAX_INPUT_BYTES to a higher value, e.g. OLMCAT_MAX_INPUT_BYTES=3MiB)"},
		{"file", layerOf(t, dir("configs"), file("configs/bomb.json", zeros)), Limits{MaxFileBytes: 1 << 20}, "the file is larger than 1MiB (the image is a decompression bomb, or set OLMCAT_MAX_FILE_BYTES"},
		{"files", layerOf(t, many...), Limits{MaxFiles: 10}, "/configs holds more entries than 10 (the image is a decompression bomb, or set OLMCAT_MAX_INPUT_FILES"},
		{"scanned", layerOf(t, file("junk", zeros), dir("configs"), file("configs/a.json", "{}")), Limits{MaxScannedBytes: 1 << 20}, "the image's layers uncompress to more than 1MiB (the image is a decompression bomb, or set OLMCAT_MAX_SCANNED_BYTES"},
	}
	// A bomb whose files and total stay under their caps is refused by how far it expands, at
	// about expansionFloor bytes instead of its full size.
	bomb := strings.Repeat("\x00", int(expansionFloor)+(8<<20))
	cases = append(cases, struct {
		name   string
		layer  v1.Layer
		limits Limits
		msg    string
	}{"expansion", layerOf(t, dir("configs"), file("configs/a.json", bomb)), Limits{}, "times its compressed size of"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := extractImage(t, imageWith(t, fbcLabels, amd64, c.layer), Options{Limits: c.limits})
			if !errors.Is(err, ErrLimitExceeded) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want ErrLimitExceeded naming %s", err, c.msg)
			}
		})
	}
	if _, err := extractImage(t, imageWith(t, fbcLabels, amd64, layerOf(t, many...)), Options{}); err != nil {
		t.Errorf("default limits refused a small catalog: %v", err)
	}
}

func TestLimitsFromEnv(t *testing.T) {
	env := map[string]string{EnvMaxBytes: "16G", EnvMaxFileBytes: "512MiB", EnvMaxFiles: "2000", EnvMaxScannedBytes: "1099511627776", EnvMaxExpansion: "500"}
	l, err := LimitsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if want := (Limits{MaxBytes: 16 << 30, MaxFileBytes: 512 << 20, MaxFiles: 2000, MaxScannedBytes: 1 << 40, MaxExpansion: 500}); l != want {
		t.Errorf("got %+v, want %+v", l, want)
	}
	for _, bad := range []string{"-1", "0", "lots", "12X", "9999999999T"} {
		_, err := LimitsFromEnv(func(k string) string {
			if k == EnvMaxBytes {
				return bad
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), EnvMaxBytes) {
			t.Errorf("%s=%s: got %v, want an error naming the variable", EnvMaxBytes, bad, err)
		}
	}
	t.Setenv(EnvMaxFileBytes, "3K")
	if got := (Limits{}).WithDefaults(); got.MaxFileBytes != 3<<10 || got.MaxBytes != DefaultMaxBytes {
		t.Errorf("WithDefaults with %s=3K: %+v", EnvMaxFileBytes, got)
	}
}

// A decompression bomb (a small layer declaring a file of gigabytes) is refused by the default
// limits at the entry's header, before a byte of it is written; the error says which limit and how
// to raise it.
func TestBombIsRefusedAtItsHeader(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []tar.Header{
		{Typeflag: tar.TypeDir, Name: "configs", Mode: 0o755},
		{Typeflag: tar.TypeReg, Name: "configs/bomb.json", Mode: 0o644, Size: DefaultMaxFileBytes + 1},
	} {
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
	}
	// The body would be gigabytes of zeros that gzip squeezes to a few MB; the header is enough.
	tmp := t.TempDir()
	_, err := extractImage(t, imageWith(t, fbcLabels, amd64, layerFromTar(t, buf.Bytes())), Options{TempDir: tmp})
	want := `entry "configs/bomb.json": limit exceeded: the file is larger than 2GiB (the image is a decompression bomb, or set OLMCAT_MAX_FILE_BYTES to a higher value, e.g. OLMCAT_MAX_FILE_BYTES=4GiB)`
	if !errors.Is(err, ErrLimitExceeded) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("a refused image left %d entries in the temporary directory", len(left))
	}
}
