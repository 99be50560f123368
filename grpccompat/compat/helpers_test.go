package compat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const corpusDir = "../../../shared/conformance"

// corpus returns the conformance corpus directory, skipping the test when it is absent.
func corpus(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(corpusDir, "README.md")); err != nil {
		t.Skipf("conformance corpus not found at %s (it lives in /work/shared/conformance): %v", corpusDir, err)
	}
	return corpusDir
}

// sqliteCases lists the corpus index.db cases; withFBC keeps those that opm migrate converted.
func sqliteCases(t testing.TB, withFBC bool) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(corpus(t), "sqlite", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no sqlite cases in the corpus: %v", err)
	}
	var out []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "grpc-fbc")); withFBC && err != nil {
			continue
		}
		out = append(out, d)
	}
	return out
}

func recording(t testing.TB, dir string, kind Kind) Target {
	t.Helper()
	r, err := OpenRecording(dir, kind)
	if err != nil {
		t.Fatalf("open recording: %v", err)
	}
	return r
}

// openCatalogTarget serves an index.db or FBC in-process, closed at the end of the test.
func openCatalogTarget(t testing.TB, path string) Target {
	t.Helper()
	tg, err := OpenTarget(context.Background(), path, OpenOptions{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := tg.Close(); err != nil {
			t.Errorf("close %s: %v", path, err)
		}
	})
	return tg
}

// openServable is openCatalogTarget for a corpus input.db, skipping the test for the old-schema
// database olmcat's read-only SQL backend refuses (opm upgrades a copy before serving it).
func openServable(t testing.TB, path string) Target {
	t.Helper()
	tg, err := OpenTarget(context.Background(), path, OpenOptions{})
	if err != nil && strings.Contains(err.Error(), "too old to serve read-only") {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func surveyOf(t testing.TB, tg Target) *facts {
	t.Helper()
	f, err := survey(context.Background(), tg, time.Minute)
	if err != nil {
		t.Fatalf("survey: %v", err)
	}
	return f
}
