package fbcbackend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every catalog of the corpus that opm serve refused to start on is refused here too, with every
// problem located, and nothing is left behind in the cache directory.
func TestRefusesWhatOpmServeRefuses(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(corpus, "invalid", "*"))
	if len(dirs) == 0 {
		t.Skipf("conformance corpus not found at %s", corpus)
	}
	for _, dir := range dirs {
		verdict, err := os.ReadFile(filepath.Join(dir, "grpc", "serve.error.txt"))
		if err != nil || !strings.Contains(string(verdict), "exit code: 1") {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cache := t.TempDir()
			b, err := Open(context.Background(), Dir(filepath.Join(dir, "catalog")), Options{CacheDir: cache})
			if err == nil {
				b.Close()
				t.Fatalf("opm serve refused this catalog (%s) but it was accepted", lastLine(string(verdict)))
			}
			var invalid *InvalidCatalogError
			if !errors.As(err, &invalid) || len(invalid.Problems) == 0 {
				t.Fatalf("want *InvalidCatalogError listing problems, got %T: %v", err, err)
			}
			for _, p := range invalid.Problems {
				if !strings.Contains(p, ":") {
					t.Errorf("problem is not located: %q", p)
				}
			}
			if entries, _ := os.ReadDir(cache); len(entries) != 0 {
				t.Errorf("a refused catalog left %d entries in the cache directory", len(entries))
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "msg=") {
			return lines[i]
		}
	}
	return ""
}
