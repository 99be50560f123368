package indeximage

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/filetree"
)

// FuzzWalkLayer feeds arbitrary bytes to the extractor as a layer, for a catalog directory and
// for a single index.db, and checks that nothing is ever written outside the destination and
// that no symlink left behind resolves outside it. Seeds: testdata/fuzz/FuzzWalkLayer.
func FuzzWalkLayer(f *testing.F) {
	f.Add(tarBytes(f, dir("configs"), file("configs/a.json", "{}"), symlink("configs/l", "a.json")))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, target := range []struct {
			root   string
			single bool
		}{{"configs", false}, {"database/index.db", true}} {
			sandbox := t.TempDir()
			dest := filepath.Join(sandbox, "out")
			limits := Limits{MaxBytes: 1 << 20, MaxFiles: 200, MaxScannedBytes: 4 << 20}
			if target.single {
				w := newFileWalker(target.root, dest, limits)
				_ = w.walkLayer(context.Background(), bytes.NewReader(data), "fuzz layer")
				checkConfined(t, sandbox, dest)
				continue
			}
			// The tree cannot reach outside itself; written out, its links must not either.
			tree, err := filetree.NewBuilder(sandbox)
			if err != nil {
				t.Fatal(err)
			}
			w := newTreeWalker(target.root, tree, limits)
			_ = w.walkLayer(context.Background(), bytes.NewReader(data), "fuzz layer")
			built, err := tree.Tree()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := built.WriteTo(dest); err != nil {
				t.Fatalf("the extracted tree cannot be written out: %v", err)
			}
			built.Close()
			checkConfined(t, sandbox, dest)
		}
	})
}

func checkConfined(t *testing.T, sandbox, dest string) {
	t.Helper()
	realDest, err := filepath.EvalSymlinks(dest)
	if err != nil {
		return // nothing was written
	}
	filepath.WalkDir(sandbox, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == sandbox {
			return nil
		}
		if p != dest && !strings.HasPrefix(p, dest+string(filepath.Separator)) {
			t.Fatalf("%s was written outside %s", p, dest)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if resolved, err := filepath.EvalSymlinks(p); err == nil &&
				resolved != realDest && !strings.HasPrefix(resolved, realDest+string(filepath.Separator)) {
				t.Fatalf("symlink %s resolves to %s, outside %s", p, resolved, dest)
			}
		}
		return nil
	})
}

// FuzzParseImageRef checks that no reference string makes the parsers panic, and that a plain
// registry reference IsImageRef accepts parses (with an explicit transport prefix the user has
// said it is an image, and a parse error is the answer).
func FuzzParseImageRef(f *testing.F) {
	for _, s := range []string{"quay.io/ns/index:v4.12", "localhost:5000/x@sha256:" + strings.Repeat("a", 64),
		"oci-layout:/tmp/x:v1", "oci-layout:dir@sha256:abc", "docker-archive:f.tar:repo:tag", "docker://a.b/c", "catalog", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := parseImageRef(s, false)
		prefixed := strings.HasPrefix(s, OCILayoutPrefix) || strings.HasPrefix(s, DockerArchivePrefix) || strings.HasPrefix(s, RegistryPrefix)
		if IsImageRef(s) && !prefixed && err != nil {
			t.Fatalf("IsImageRef(%q) but parse failed: %v", s, err)
		}
	})
}
