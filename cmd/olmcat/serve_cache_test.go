package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// As in opm, serving with --cache-dir needs a cache built beforehand (--cache-only), unless
// --cache-enforce-integrity=false; a missing cache is refused with exit 2 and the command that
// builds it, and nothing is written.
func TestServeEnforcesCacheIntegrity(t *testing.T) {
	catalog := "../../fixtures/catalog"
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	serveArgs := []string{"serve", catalog, "-p", "127.0.0.1:0", "-t", "", "--pprof-addr="}

	code, _, stderr := runCLI(t, append(serveArgs, "--cache-dir", cache)...)
	if code != 2 || !strings.Contains(stderr, "integrity check failed: no cache has been built there") ||
		!strings.Contains(stderr, "--cache-dir "+cache+" --cache-only") {
		t.Errorf("serve with an empty --cache-dir: exit %d, %q; want 2, the integrity failure and how to build the cache", code, stderr)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("a refused start wrote %d entries into the cache directory", len(entries))
	}

	code, _, stderr = runCLI(t, append(serveArgs, "--cache-enforce-integrity")...)
	if code != 2 || !strings.Contains(stderr, "--cache-dir must be specified with --cache-enforce-integrity") {
		t.Errorf("--cache-enforce-integrity without --cache-dir: exit %d, %q; want opm's usage error", code, stderr)
	}

	if code, _, stderr = runCLI(t, "serve", catalog, "--cache-dir", cache, "--cache-only"); code != 0 {
		t.Fatalf("--cache-only: exit %d: %s", code, stderr)
	}
	if code, _, stderr = runCLI(t, "serve", catalog, "--cache-dir", cache, "--cache-only", "--cache-enforce-integrity"); code != 0 {
		t.Errorf("verifying the cache just built: exit %d: %s", code, stderr)
	}
}
