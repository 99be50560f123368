package indeximage

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const conformanceDir = "../../../shared/conformance"

// sqliteFixture is the real index.db the image tests put into /database.
var sqliteFixture = filepath.Join(conformanceDir, "sqlite", "real-foo-index-v0.2.0", "input.db")

func needFile(t testing.TB, p string) {
	t.Helper()
	if _, err := os.Stat(p); err != nil {
		t.Skipf("conformance data absent (%v); these tests need /work/shared beside the repo", err)
	}
}

type tarEntry struct {
	hdr  tar.Header
	body []byte
}

func file(name, body string) tarEntry {
	return tarEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body))}, body: []byte(body)}
}

func dir(name string) tarEntry {
	return tarEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755}}
}

func symlink(name, target string) tarEntry {
	return tarEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777}}
}

func hardlink(name, target string) tarEntry {
	return tarEntry{hdr: tar.Header{Typeflag: tar.TypeLink, Name: name, Linkname: target, Mode: 0o644}}
}

func special(name string, typ byte) tarEntry {
	return tarEntry{hdr: tar.Header{Typeflag: typ, Name: name, Mode: 0o600, Devmajor: 1, Devminor: 3}}
}

func tarBytes(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("write tar header %s: %v", h.Name, err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatalf("write tar body %s: %v", h.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func layerFromTar(t testing.TB, b []byte) v1.Layer {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func layerOf(t testing.TB, entries ...tarEntry) v1.Layer {
	t.Helper()
	return layerFromTar(t, tarBytes(t, entries...))
}

// layerFromDir builds a layer holding hostDir's files under the image path prefix.
func layerFromDir(t testing.TB, hostDir, prefix string) v1.Layer {
	t.Helper()
	entries := []tarEntry{dir(prefix)}
	err := filepath.WalkDir(hostDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == hostDir {
			return err
		}
		rel, _ := filepath.Rel(hostDir, p)
		name := prefix + "/" + filepath.ToSlash(rel)
		if d.IsDir() {
			entries = append(entries, dir(name))
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		entries = append(entries, file(name, string(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return layerOf(t, entries...)
}

func fileLayer(t testing.TB, name string, hostFile string) v1.Layer {
	t.Helper()
	b, err := os.ReadFile(hostFile)
	if err != nil {
		t.Fatal(err)
	}
	return layerOf(t, dir(filepath.Dir(name)), file(name, string(b)))
}

// imageWith builds an image from layers (bottom first) with the given labels and platform.
func imageWith(t testing.TB, labels map[string]string, plat v1.Platform, layers ...v1.Layer) v1.Image {
	t.Helper()
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err := mutate.AppendLayers(img, layers...)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = plat.OS, plat.Architecture, plat.Variant
	cf.Config.Labels = labels
	cf.Config.Entrypoint = []string{"/bin/opm"}
	cf.Config.Cmd = []string{"registry", "serve", "--database", "/database/index.db"}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

var amd64 = v1.Platform{OS: "linux", Architecture: "amd64"}

// baseLayer stands for the opm base image's own files.
func baseLayer(t testing.TB) v1.Layer {
	return layerOf(t, dir("bin"), file("bin/opm", "#!/bin/sh\necho opm\n"), dir("etc"), file("etc/nsswitch.conf", "hosts: files dns\n"))
}

func sqliteImage(t testing.TB, plat v1.Platform) v1.Image {
	t.Helper()
	needFile(t, sqliteFixture)
	return imageWith(t, map[string]string{DatabaseLabel: "/database/index.db"}, plat,
		baseLayer(t), fileLayer(t, "database/index.db", sqliteFixture))
}

func fbcImage(t testing.TB, catalogDir string, plat v1.Platform) v1.Image {
	t.Helper()
	needFile(t, catalogDir)
	return imageWith(t, map[string]string{ConfigsLabel: "/configs"}, plat, baseLayer(t), layerFromDir(t, catalogDir, "configs"))
}

// extractImage runs Extract and registers Cleanup.
func extractImage(t testing.TB, img v1.Image, opts Options) (*Catalog, error) {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	cat, err := Extract(context.Background(), img, opts)
	if err == nil {
		t.Cleanup(cat.Cleanup)
	}
	return cat, err
}

// treeOf lists a file system as relative path -> content ("->target" for symlinks, "/" for dirs).
func treeOf(t testing.TB, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := fs.ReadLink(fsys, p)
			if err != nil {
				return err
			}
			out[p] = "->" + target
		case d.IsDir():
			out[p] = "/"
		default:
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			out[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
