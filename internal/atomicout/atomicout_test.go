package atomicout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

func TestDirAppearsOnlyOnCommit(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "catalog")
	target, err := Dir(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target.Path(), "a.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("output visible before Commit: %v", err)
	}
	if err := target.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, parent); len(got) != 1 || got[0] != "catalog" {
		t.Errorf("parent holds %v, want only the output", got)
	}
	if _, err := os.Stat(filepath.Join(out, "a.json")); err != nil {
		t.Error(err)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	target, err := Dir(filepath.Join(parent, "out"), false)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target.Path(), "partial"), []byte("x"), 0o644)
	target.Abort()
	target.Abort() // safe twice, and after Commit
	if got := entries(t, parent); len(got) != 0 {
		t.Errorf("abort left %v", got)
	}
}

func TestNonEmptyOutputNeedsForce(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "old"), []byte("old"), 0o644)
	if _, err := Dir(out, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("non-empty dir accepted without force: %v", err)
	}
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target.Path(), "new"), []byte("new"), 0o644)
	if err := target.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, out); len(got) != 1 || got[0] != "new" {
		t.Errorf("forced output holds %v, want [new]", got)
	}
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("parent holds %v after replacing", got)
	}
	empty := filepath.Join(parent, "empty")
	os.MkdirAll(empty, 0o755)
	if _, err := Dir(empty, false); err != nil {
		t.Errorf("an empty directory is a valid output: %v", err)
	}
}

func TestFile(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "index.db")
	target, err := File(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target.Path(), []byte("db"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := target.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := File(out, false); err == nil {
		t.Fatal("existing file accepted without force")
	}
	again, err := File(out, true)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(again.Path(), []byte("db2"), 0o644)
	if err := again.Commit(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(out); string(data) != "db2" {
		t.Errorf("file holds %q, want db2", data)
	}
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("parent holds %v", got)
	}
}
