//go:build unix

package bundledir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// A bundle directory holds regular files: a device (an endless /dev/zero) or a named pipe (which
// would wait for a writer forever) is refused by name before it is read, and so is a file larger
// than a bundle blob can be.
func TestBundleFilesMustBeRegularAndBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"device", func(t *testing.T, path string) {
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip("no /dev/zero")
			}
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file (a character device): only regular files are read"},
		{"named pipe", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "is not a regular file (a named pipe): only regular files are read"},
		{"huge", func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(fbc.DefaultMaxBlobSize + 1); err != nil { // sparse: no disk used
				t.Fatal(err)
			}
		}, "is larger than 64MiB, more than a bundle blob may hold"},
	} {
		for _, sub := range []string{"manifests", "metadata"} {
			t.Run(c.name+" in "+sub, func(t *testing.T) {
				dir := t.TempDir()
				for _, d := range []string{"manifests", "metadata"} {
					if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, "metadata", "annotations.yaml"),
					[]byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: p\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				c.make(t, filepath.Join(dir, sub, "x.yaml"))
				_, err := Parse(dir)
				if err == nil || !strings.Contains(err.Error(), sub+"/x.yaml "+c.want) {
					t.Errorf("Parse: %v, want %q", err, sub+"/x.yaml "+c.want)
				}
			})
		}
	}
}
