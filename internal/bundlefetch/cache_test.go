package bundlefetch

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/olmcat/olmcat/internal/imagetest"
)

// entryFiles are the files of a cache entry, found the way a reader finds them: index.json names
// the top manifest, the manifest its config and layers.
type entryFiles struct {
	dir, index, manifest, config string
	layers                       []string
}

func blobPath(dir string, h v1.Hash) string { return filepath.Join(dir, "blobs", h.Algorithm, h.Hex) }

func readEntry(t testing.TB, dir string) entryFiles {
	t.Helper()
	e := entryFiles{dir: dir, index: filepath.Join(dir, "index.json")}
	data, err := os.ReadFile(e.index)
	if err != nil {
		t.Fatal(err)
	}
	var idx v1.IndexManifest
	if err := json.Unmarshal(data, &idx); err != nil || len(idx.Manifests) != 1 {
		t.Fatalf("%s: %v, %d entries", e.index, err, len(idx.Manifests))
	}
	e.manifest = blobPath(dir, idx.Manifests[0].Digest)
	data, err = os.ReadFile(e.manifest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := v1.ParseManifest(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	e.config = blobPath(dir, m.Config.Digest)
	for _, l := range m.Layers {
		if _, err := os.Stat(blobPath(dir, l.Digest)); err == nil {
			e.layers = append(e.layers, blobPath(dir, l.Digest))
		}
	}
	if len(e.layers) == 0 {
		t.Fatalf("%s keeps no layer", dir)
	}
	return e
}

func entryDir(t *testing.T, cacheDir, digest string) string {
	t.Helper()
	h, err := v1.NewHash(digest)
	if err != nil {
		t.Fatal(err)
	}
	c := &cache{dir: filepath.Join(cacheDir, cacheSubdir), platform: "linux/amd64"}
	return c.entry(h)
}

// distinctImages are the first n images whose bundles differ (the corpus has some twice).
func distinctImages(t *testing.T, images []imagetest.CorpusImage, n int) []imagetest.CorpusImage {
	t.Helper()
	var out []imagetest.CorpusImage
	seen := map[string]bool{}
	for _, im := range images {
		if !seen[im.Digest] && !seen[im.BundleDir] && len(out) < n {
			seen[im.Digest], seen[im.BundleDir] = true, true
			out = append(out, im)
		}
	}
	if len(out) < n {
		t.Fatalf("the corpus has %d distinct bundle images, want %d", len(out), n)
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyBlobs makes the blobs of entry from available in entry to, as an attacker who builds a
// consistent forgery would.
func copyBlobs(t *testing.T, from, to entryFiles) {
	t.Helper()
	for _, f := range append([]string{from.manifest, from.config}, from.layers...) {
		copyFile(t, f, filepath.Join(to.dir, "blobs", "sha256", filepath.Base(f)))
	}
}

// Whoever can write the cache (a CI cache shared between jobs and pull requests) cannot change
// the bundle an entry yields: each way of putting another bundle's content, or garbage, in the
// entry of image 0 is detected, said once on stderr, the image pulled again (the registry sees
// the blob requests), the result is the bundle of image 0, and the entry is replaced so that the
// next run reads it without a blob request.
func TestTamperedCacheEntryIsDetectedAndPulledAgain(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = distinctImages(t, images, 2)
	refs := refsOf(images)
	dir, pristine := t.TempDir(), t.TempDir()
	if _, err := newFetcher(t, Options{CacheDir: dir}).RenderBundles(context.Background(), refs); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(pristine, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	victim, other := entryDir(t, dir, images[0].Digest), entryDir(t, dir, images[1].Digest)
	tamper := map[string]func(v, o entryFiles){
		"manifest replaced by another bundle's, its blobs beside it": func(v, o entryFiles) {
			copyBlobs(t, o, v)
			copyFile(t, o.manifest, v.manifest)
		},
		"manifest bytes changed": func(v, o entryFiles) {
			data, _ := os.ReadFile(v.manifest)
			os.WriteFile(v.manifest, bytes.Replace(data, []byte(`"size":`), []byte(`"size": `), 1), 0o644)
		},
		"index.json points at another bundle's manifest": func(v, o entryFiles) {
			copyBlobs(t, o, v)
			copyFile(t, o.index, v.index)
		},
		"config replaced by another bundle's": func(v, o entryFiles) { copyFile(t, o.config, v.config) },
		"layer replaced by another bundle's":  func(v, o entryFiles) { copyFile(t, o.layers[0], v.layers[0]) },
		"layer truncated": func(v, o entryFiles) {
			data, _ := os.ReadFile(v.layers[0])
			os.WriteFile(v.layers[0], data[:len(data)/2], 0o644)
		},
		"layer removed": func(v, o entryFiles) { os.Remove(v.layers[0]) },
		"manifest grown past what a manifest holds": func(v, o entryFiles) {
			os.WriteFile(v.manifest, bytes.Repeat([]byte(" "), 5<<20), 0o644)
		},
		"config grown past what a config holds": func(v, o entryFiles) {
			os.WriteFile(v.config, bytes.Repeat([]byte(" "), 5<<20), 0o644)
		},
		"entry is a file": func(v, o entryFiles) {
			os.RemoveAll(v.dir)
			os.WriteFile(v.dir, []byte("{}"), 0o644)
		},
		// A link is replaced, never followed: the other entry it points to stays as it is (the
		// second run finds both in the cache), a dangling one is no reason to fail every run.
		"entry is a symbolic link to another entry": func(v, o entryFiles) {
			os.RemoveAll(v.dir)
			os.Symlink(filepath.Base(o.dir), v.dir)
		},
		"entry is a dangling symbolic link": func(v, o entryFiles) {
			os.RemoveAll(v.dir)
			os.Symlink("/nonexistent/olmcat-cache-entry", v.dir)
		},
		// The files of an entry are read only as regular files, never through a link, never
		// blocking (a FIFO would hang the run), their size bounded before reading (/dev/zero).
		"index.json is a FIFO": func(v, o entryFiles) {
			os.Remove(v.index)
			if err := syscall.Mkfifo(v.index, 0o644); err != nil {
				t.Skip("no FIFO:", err)
			}
		},
		"index.json is a link to /dev/zero": func(v, o entryFiles) {
			os.Remove(v.index)
			os.Symlink("/dev/zero", v.index)
		},
		"index.json is a link to another entry's": func(v, o entryFiles) {
			os.Remove(v.index)
			os.Symlink(o.index, v.index)
		},
		"the manifest is a link to itself in another entry": func(v, o entryFiles) {
			copyFile(t, v.manifest, filepath.Join(o.dir, "blobs", "sha256", filepath.Base(v.manifest)))
			os.Remove(v.manifest)
			os.Symlink(filepath.Join(o.dir, "blobs", "sha256", filepath.Base(v.manifest)), v.manifest)
		},
		"a layer is a FIFO": func(v, o entryFiles) {
			os.Remove(v.layers[0])
			if err := syscall.Mkfifo(v.layers[0], 0o644); err != nil {
				t.Skip("no FIFO:", err)
			}
		},
		"blobs is a link to the other entry's": func(v, o entryFiles) {
			copyBlobs(t, v, o)
			os.RemoveAll(filepath.Join(v.dir, "blobs"))
			os.Symlink(filepath.Join(o.dir, "blobs"), filepath.Join(v.dir, "blobs"))
		},
	}
	// What the warning says of some, beyond "does not verify".
	said := map[string]string{
		"manifest bytes changed":                            "the manifest hashes to",
		"config replaced by another bundle's":               "the config blob hashes to",
		"layer replaced by another bundle's":                "content digest mismatch",
		"manifest grown past what a manifest holds":         "more than a manifest or config holds",
		"config grown past what a config holds":             "more than a manifest or config holds",
		"index.json points at another bundle's manifest":    "has no entry for digest " + images[0].Digest,
		"index.json is a FIFO":                              "index.json is a named pipe (FIFO), not a regular file",
		"index.json is a link to /dev/zero":                 "index.json is a symbolic link, not a regular file",
		"index.json is a link to another entry's":           "index.json is a symbolic link",
		"the manifest is a link to itself in another entry": "is a symbolic link, not a regular file",
		"a layer is a FIFO":                                 "is a named pipe (FIFO), not a regular file",
		"blobs is a link to the other entry's":              "blobs is a symbolic link, not a directory",
	}
	for name, change := range tamper {
		t.Run(name, func(t *testing.T) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(dir, os.DirFS(pristine)); err != nil {
				t.Fatal(err)
			}
			change(readEntry(t, victim), readEntry(t, other))
			reg.Reset()
			var log bytes.Buffer
			f := newFetcher(t, Options{CacheDir: dir, Log: &log})
			got, err := f.RenderBundles(context.Background(), refs)
			if err != nil {
				t.Fatal(err)
			}
			checkRendered(t, images, refs, got)
			if s := f.Stats(); s.Pulled != 1 || s.Cached != 1 || s.Repaired != 1 {
				t.Errorf("stats %+v: want image 0 pulled again, image 1 from the cache", s)
			}
			if reg.Count("GET", "blobs") == 0 {
				t.Errorf("the registry saw no blob request: %v", reg.PerPath())
			}
			msg := log.String()
			if n := strings.Count(msg, "does not verify"); n != 1 || !strings.Contains(msg, images[0].Ref) ||
				!strings.Contains(msg, "tampered with") || !strings.Contains(msg, "replaced") {
				t.Errorf("stderr said it %d times, want once naming %s: %q", n, images[0].Ref, msg)
			}
			if want := said[name]; !strings.Contains(msg, want) {
				t.Errorf("stderr does not say %q: %q", want, msg)
			}
			reg.Reset()
			f = newFetcher(t, Options{CacheDir: dir})
			got, err = f.RenderBundles(context.Background(), refs)
			if err != nil {
				t.Fatal(err)
			}
			checkRendered(t, images, refs, got)
			if s := f.Stats(); s.Cached != 2 || reg.Count("GET", "blobs") != 0 {
				t.Errorf("after the repair: %+v, %d blob GETs: want both from the cache", s, reg.Count("GET", "blobs"))
			}
		})
	}
}

// An entry of the earlier format (the rendered bundle as JSON, with its checksum) is never read,
// however well formed: it is removed, and the image is pulled.
func TestEntriesOfTheEarlierFormatAreRemoved(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = images[:1]
	refs := refsOf(images)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, cacheSubdir), 0o755); err != nil {
		t.Fatal(err)
	}
	old := entryDir(t, dir, images[0].Digest) + ".json"
	forged := `{"schema":"olmcat.bundle-cache.v1","digest":"` + images[0].Digest + `","platform":"linux/amd64","bundle":{"schema":"olm.bundle","name":"forged","package":"forged"}}`
	if err := os.WriteFile(old, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	reg.Reset()
	var log bytes.Buffer
	f := newFetcher(t, Options{CacheDir: dir, Log: &log})
	got, err := f.RenderBundles(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, images, refs, got)
	if s := f.Stats(); s.Pulled != 1 || reg.Count("GET", "blobs") == 0 {
		t.Errorf("stats %+v, %d blob GETs: want the image pulled", s, reg.Count("GET", "blobs"))
	}
	if _, err := os.Stat(old); err == nil {
		t.Errorf("the entry of the earlier format is still there")
	}
	if want := "removed 1 entry of an earlier olmcat"; !strings.Contains(log.String(), want) {
		t.Errorf("log %q does not say %q", log.String(), want)
	}
}

// A multi-arch bundle image is cached under its index digest (what a tag resolves to): the entry
// keeps the index, verified on every hit, and the platform's image.
func TestMultiArchEntryVerifiesItsIndex(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = distinctImages(t, images, 2)
	var indexes []string
	var digests []v1.Hash
	for i, im := range images {
		img := imagetest.LabelledBundleImage(t, im.BundleDir, imagetest.Annotations(t, im.BundleDir))
		idx := mutate.AppendManifests(empty.Index, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}})
		ref := reg.Host + "/multiarch:" + string(rune('a'+i))
		tag, err := name.NewTag(ref)
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.WriteIndex(tag, idx); err != nil {
			t.Fatal(err)
		}
		d, err := idx.Digest()
		if err != nil {
			t.Fatal(err)
		}
		indexes, digests = append(indexes, ref), append(digests, d)
	}
	dir := t.TempDir()
	render := func() (Stats, string) {
		t.Helper()
		reg.Reset()
		var log bytes.Buffer
		f := newFetcher(t, Options{CacheDir: dir, Log: &log})
		got, err := f.RenderBundles(context.Background(), indexes)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if want := wantJSON(t, images[i].BundleDir, indexes[i]); !bytes.Equal(want, marshal(t, got[i])) {
				t.Errorf("%s: differs from its bundle directory rendered", indexes[i])
			}
		}
		return f.Stats(), log.String()
	}
	if s, _ := render(); s.Pulled != 2 {
		t.Fatalf("cold: %+v", s)
	}
	if s, _ := render(); s.Cached != 2 || reg.Count("GET", "blobs") != 0 {
		t.Fatalf("warm: %+v, %d blob GETs", s, reg.Count("GET", "blobs"))
	}
	// The index of image 0 replaced by that of image 1, whose blobs are put beside it.
	victim, other := entryDir(t, dir, digests[0].String()), entryDir(t, dir, digests[1].String())
	if err := os.CopyFS(filepath.Join(victim, "blobs", "x"), os.DirFS(filepath.Join(other, "blobs", "sha256"))); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(victim, "blobs", "x"))
	for _, e := range entries {
		if err := os.Rename(filepath.Join(victim, "blobs", "x", e.Name()), filepath.Join(victim, "blobs", "sha256", e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, blobPath(other, digests[1]), blobPath(victim, digests[0]))
	s, log := render()
	if s.Pulled != 1 || s.Repaired != 1 || !strings.Contains(log, "hashes to "+digests[1].String()) {
		t.Errorf("tampered index: %+v, log %q", s, log)
	}
}
