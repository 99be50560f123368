package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A TMPDIR that cannot hold temporary files (missing, a regular file) is a place the command could
// not write: exit 2 and one sentence naming TMPDIR and what to do, whichever command needed it.
func TestUnusableTMPDIR(t *testing.T) {
	catalog, err := os.ReadFile("../../fixtures/catalog/operator-000/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tmpdir := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		t.Setenv("TMPDIR", tmpdir)
		for _, args := range [][]string{{"validate", "-"}, {"render", "-"}} {
			code, _, stderr := runWithStdin(t, catalog, args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != exitUsage || len(lines) != 1 || !strings.Contains(stderr, tmpdir+" (TMPDIR)") || !strings.Contains(stderr, "set TMPDIR to") {
				t.Errorf("TMPDIR=%s olmcat %s: exit %d (want %d), stderr:\n%s", tmpdir, strings.Join(args, " "), code, exitUsage, stderr)
			}
		}
	}
}
