package atomicout

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func writeEntry(t *testing.T, out, content string) *Target {
	t.Helper()
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(target.Abort)
	if err := os.WriteFile(filepath.Join(target.Path(), "content"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return target
}

// Runs committing the same content-addressed output at once: one places it, the others keep it
// and discard theirs, none fails, and nothing is left beside it (no temporary directory, no
// ".old" copy of an output moved aside).
func TestCommitNewConcurrentlyPlacesOneAndLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "sha256-abc")
	const n = 16
	targets := make([]*Target, n)
	for i := range targets {
		targets[i] = writeEntry(t, out, "same")
	}
	var wg sync.WaitGroup
	placed := make([]bool, n)
	errs := make([]error, n)
	for i, target := range targets {
		wg.Go(func() { placed[i], errs[i] = target.CommitNew(nil) })
	}
	wg.Wait()
	count := 0
	for i := range targets {
		if errs[i] != nil {
			t.Errorf("commit %d: %v", i, errs[i])
		}
		if placed[i] {
			count++
		}
	}
	if count != 1 {
		t.Errorf("%d commits placed the output, want 1", count)
	}
	if got := entries(t, parent); len(got) != 1 || got[0] != "sha256-abc" {
		t.Errorf("the directory holds %v, want the output alone", got)
	}
	if got, err := os.ReadFile(filepath.Join(out, "content")); err != nil || string(got) != "same" {
		t.Errorf("output: %q, %v", got, err)
	}
}

// What replace says to replace (an entry found damaged) is replaced; an output placed since (not
// the one found damaged) is kept.
func TestCommitNewReplacesOnlyWhatItWasToldTo(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "sha256-abc")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "content"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	damaged, err := os.Lstat(out)
	if err != nil {
		t.Fatal(err)
	}
	isDamaged := func(fi fs.FileInfo) bool { return os.SameFile(fi, damaged) }

	placed, err := writeEntry(t, out, "good").CommitNew(isDamaged)
	if err != nil || !placed {
		t.Fatalf("the damaged output was not replaced: %v, %v", placed, err)
	}
	placed, err = writeEntry(t, out, "another").CommitNew(isDamaged)
	if err != nil || placed {
		t.Fatalf("an output placed since was replaced: %v, %v", placed, err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "content")); string(got) != "good" {
		t.Errorf("output holds %q, want the first good one", got)
	}
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("the directory holds %v, want the output alone", got)
	}
}
