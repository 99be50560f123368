package scratch

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRemoveAllRemovesTrackedOnly(t *testing.T) {
	dir := t.TempDir()
	file, tree, kept := filepath.Join(dir, "f"), filepath.Join(dir, "d"), filepath.Join(dir, "kept")
	write(t, file)
	write(t, filepath.Join(tree, "sub", "g"))
	write(t, kept)
	Track(file)
	Track(tree)
	release := Track(kept)
	release()
	release() // twice is harmless
	RemoveAll()
	if exists(t, file) || exists(t, tree) {
		t.Error("a tracked path survived RemoveAll")
	}
	if !exists(t, kept) {
		t.Error("a released path was removed")
	}

	write(t, file) // the registry is empty now: the same path made again is not scratch
	RemoveAll()
	if !exists(t, file) {
		t.Error("RemoveAll removed a path it had already forgotten")
	}
}

func TestReleaseIsPerRegistration(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p")
	write(t, p)
	first := Track(p)
	RemoveAll()
	write(t, p)
	Track(p)
	first() // belongs to a registration RemoveAll already dropped
	RemoveAll()
	if exists(t, p) {
		t.Error("releasing an old registration released the new one")
	}

	write(t, p)
	a, b := Track(p), Track(p)
	a()
	RemoveAll()
	if exists(t, p) {
		t.Error("a path tracked twice was dropped by one release")
	}
	b()
}

func TestTrackSurvivesChdir(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	write(t, filepath.Join(dir, "rel"))
	t.Chdir(dir)
	Track("rel")
	write(t, filepath.Join(elsewhere, "rel"))
	t.Chdir(elsewhere)
	RemoveAll()
	if exists(t, filepath.Join(dir, "rel")) {
		t.Error("tracked relative path not removed after a chdir")
	}
	if !exists(t, filepath.Join(elsewhere, "rel")) {
		t.Error("removal followed the new working directory")
	}
}

func TestConcurrentTrackAndRelease(t *testing.T) {
	dir := t.TempDir()
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := filepath.Join(dir, fmt.Sprint(i))
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Error(err)
				return
			}
			release := Track(p)
			if i%2 == 0 {
				release()
			}
		}()
	}
	wg.Wait()
	RemoveAll()
	for i := range n {
		if got, want := exists(t, filepath.Join(dir, fmt.Sprint(i))), i%2 == 0; got != want {
			t.Errorf("path %d exists=%v, want %v", i, got, want)
		}
	}
}

func TestConcurrentRemoveAll(t *testing.T) {
	dir := t.TempDir()
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			p := filepath.Join(dir, fmt.Sprint(i))
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Error(err)
				return
			}
			Track(p)
		}()
		go func() { defer wg.Done(); RemoveAll() }()
	}
	wg.Wait()
	RemoveAll()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d tracked paths survived", len(left))
	}
}

func TestMkdirTempAndCreateTemp(t *testing.T) {
	dir := t.TempDir()
	d, removeDir, err := MkdirTemp(dir, "d-")
	if err != nil {
		t.Fatal(err)
	}
	f, removeFile, err := CreateTemp(dir, "f-")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d, "inner"))
	RemoveAll()
	if exists(t, d) || exists(t, f.Name()) {
		t.Fatal("MkdirTemp/CreateTemp paths are not tracked")
	}

	d, removeDir, err = MkdirTemp(dir, "d-")
	if err != nil {
		t.Fatal(err)
	}
	f, removeFile, err = CreateTemp(dir, "f-")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	write(t, filepath.Join(d, "inner"))
	if err := removeDir(); err != nil {
		t.Fatal(err)
	}
	if err := removeFile(); err != nil {
		t.Fatal(err)
	}
	if exists(t, d) || exists(t, f.Name()) {
		t.Fatal("remove did not delete")
	}
	write(t, filepath.Join(d, "inner"))
	write(t, f.Name())
	RemoveAll()
	if !exists(t, d) || !exists(t, f.Name()) {
		t.Error("remove did not release: RemoveAll deleted a path made again afterwards")
	}
}
