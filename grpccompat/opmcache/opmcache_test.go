package opmcache

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
)

// copyCatalog copies a catalog directory to a new place with fixed permissions (directories 0755,
// files 0644, what `git checkout` gives under umask 022), so that the digest, which covers
// permission bits, does not depend on the umask of the checkout.
func copyCatalog(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "configs")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
			return os.Chmod(to, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return err
		}
		return os.Chmod(to, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// manifest lists every entry of a cache directory: permission bits, sha256 of a file's bytes (or
// "dir"), and its path, in lexical order.
func manifest(t testing.TB, dir string) []string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "." {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := "dir"
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		lines = append(lines, fmt.Sprintf("%04o %s %s", info.Mode().Perm(), sum, filepath.ToSlash(rel)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func readManifest(t *testing.T, path string) (lines []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := s.Text(); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	return lines
}

func write(t testing.TB, configs string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cache")
	if err := Write(context.Background(), configs, out, Options{}); err != nil {
		t.Fatal(err)
	}
	return out
}

func diffLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	wantSet := map[string]bool{}
	for _, l := range want {
		wantSet[l] = true
	}
	gotSet := map[string]bool{}
	for _, l := range got {
		gotSet[l] = true
		if !wantSet[l] {
			t.Errorf("%s: olmcat wrote %s, opm did not", what, l)
		}
	}
	for _, l := range want {
		if !gotSet[l] {
			t.Errorf("%s: opm wrote %s, olmcat did not", what, l)
		}
	}
}

// TestWriteIsOpms compares the cache written for testdata/catalog (laid out with 0755 directories
// and 0644 files) with the one opm v1.73.0 wrote for the same layout: every file's bytes and mode,
// and the digest. The expectations in testdata/opm-v1.73.0-json-cache.txt come from opm v1.73.0's
// own run (`opm serve CONFIGS --cache-dir DIR --cache-only` on a DIR holding an empty json cache),
// not from olmcat.
func TestWriteIsOpms(t *testing.T) {
	configs := copyCatalog(t, "testdata/catalog")
	out := write(t, configs)
	diffLines(t, "testdata/catalog", manifest(t, out), readManifest(t, "testdata/opm-v1.73.0-json-cache.txt"))
}

// TestWriteIsReproducible: the same catalog gives the same bytes, and a second writer in another
// directory gives them too (nothing depends on time, place, map order or the worker schedule).
func TestWriteIsReproducible(t *testing.T) {
	configs := copyCatalog(t, "testdata/catalog")
	first := manifest(t, write(t, configs))
	for range 3 {
		diffLines(t, "second write", manifest(t, write(t, configs)), first)
	}
}

// TestDigestCoversEveryByteAndMode: opm recomputes the digest over /configs and the cache at every
// start, so a one-byte change of a catalog file, of a cache file, or of a permission bit must
// change it (and opm then refuses the cache with --cache-enforce-integrity).
func TestDigestCoversEveryByteAndMode(t *testing.T) {
	configs := copyCatalog(t, "testdata/catalog")
	out := write(t, configs)
	recorded, err := os.ReadFile(filepath.Join(out, digestFile))
	if err != nil {
		t.Fatal(err)
	}
	digest := func() string {
		d, err := Digest(configs, out)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if got := digest(); got != string(recorded) || len(got) != 16 {
		t.Fatalf("recomputed digest %q, recorded %q", got, recorded)
	}
	flip := func(path string) func() {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		changed := append([]byte(nil), data...)
		changed[len(changed)/2] ^= 1
		if err := os.WriteFile(path, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		return func() { os.WriteFile(path, data, 0o644) }
	}
	chmod := func(path string, mode fs.FileMode) func() {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return func() { os.Chmod(path, info.Mode().Perm()) }
	}
	for _, c := range []struct {
		name   string
		change func() func()
	}{
		{"one byte of a catalog file", func() func() { return flip(filepath.Join(configs, "alpha", "catalog.json")) }},
		{"one byte of an ignored file", func() func() { return flip(filepath.Join(configs, "ignored.txt")) }},
		{"one byte of packages.json", func() func() { return flip(filepath.Join(out, cacheSubdir, packagesFile)) }},
		{"the mode of a catalog file", func() func() { return chmod(filepath.Join(configs, "beta", "catalog.yaml"), 0o600) }},
		{"the mode of the catalog directory", func() func() { return chmod(configs, 0o700) }},
	} {
		undo := c.change()
		if got := digest(); got == string(recorded) {
			t.Errorf("%s: the digest did not change", c.name)
		}
		undo()
		if got := digest(); got != string(recorded) {
			t.Fatalf("%s undone: digest %s, want %s", c.name, got, recorded)
		}
	}
}

func writeCatalog(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const onePackage = `{"schema":"olm.package","name":"p","defaultChannel":"x"}
{"schema":"olm.bundle","package":"p","name":"p.v1","image":"quay.io/e/p:v1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
`

// TestWriteRefuses: catalogs opm's cache build fails on, or would write differently from run to
// run, are refused with the reason and the names involved, and nothing is left behind.
func TestWriteRefuses(t *testing.T) {
	for _, c := range []struct {
		name, catalog string
		want          []string
	}{
		{"a custom schema opm's meta-key regex refuses",
			onePackage + `{"schema":"olm.channel","package":"p","name":"x","entries":[{"name":"p.v1"}]}
{"schema":"example.com/custom","package":"p"}`,
			[]string{`invalid custom schema meta: invalid schema "example.com/custom"`, "must match"}},
		{"a custom-schema blob whose package opm's meta-key regex refuses",
			onePackage + `{"schema":"olm.channel","package":"p","name":"x","entries":[{"name":"p.v1"}]}
{"schema":"example.notes","package":"../p"}`,
			[]string{`a blob of schema "example.notes" names package "../p"`, `invalid packageName "../p": must match`}},
		{"a channel name with a slash",
			strings.Replace(onePackage, `"defaultChannel":"x"`, `"defaultChannel":"x/y"`, 1) +
				`{"schema":"olm.channel","package":"p","name":"x/y","entries":[{"name":"p.v1"}]}`,
			[]string{`package "p", channel "x/y", bundle "p.v1": a name holds "/"`}},
		{"two entries that share one cache file",
			`{"schema":"olm.package","name":"p","defaultChannel":"x"}
{"schema":"olm.bundle","package":"p","name":"b.v1","image":"quay.io/e/p:v1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"p","name":"y_b.v1","image":"quay.io/e/p:v2","properties":[{"type":"olm.package","value":{"packageName":"p","version":"2.0.0"}}]}
{"schema":"olm.channel","package":"p","name":"x","entries":[{"name":"y_b.v1"}]}
{"schema":"olm.channel","package":"p","name":"x_y","entries":[{"name":"b.v1"}]}`,
			[]string{`both map to opm's cache file p_x_y_b.v1.json`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			configs := writeCatalog(t, map[string]string{"p/catalog.json": c.catalog})
			parent := t.TempDir()
			out := filepath.Join(parent, "cache")
			err := Write(context.Background(), configs, out, Options{})
			if err == nil {
				t.Fatal("written")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

func TestWriteRefusesAFullCacheDirAndAnInvalidCatalog(t *testing.T) {
	configs := copyCatalog(t, "testdata/catalog")
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), configs, full, Options{}); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("a cache directory with a file in it: %v", err)
	}
	empty := t.TempDir()
	if err := Write(context.Background(), configs, empty, Options{}); err != nil {
		t.Errorf("an empty cache directory: %v", err)
	}
	bad := writeCatalog(t, map[string]string{"p/catalog.json": onePackage}) // p.v1 is in no channel
	err := Write(context.Background(), bad, filepath.Join(t.TempDir(), "cache"), Options{})
	var invalid *fbcbackend.InvalidCatalogError
	if !errors.As(err, &invalid) {
		t.Errorf("a catalog that fails validation: %v, want an *InvalidCatalogError", err)
	}
}
