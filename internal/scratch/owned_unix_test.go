//go:build unix && !aix && !solaris

package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// A process killed with SIGKILL runs no handler: its temporary files stay. RemoveStale removes
// them once the process is gone, and never while it lives (issue 19, leftovers after SIGKILL).
func TestRemoveStaleAfterKill9(t *testing.T) {
	if dir := os.Getenv("SCRATCH_KILL_CHILD"); dir != "" {
		if _, _, err := MkdirTemp(dir, "olmcat-serve-cache-"); err != nil {
			t.Fatal(err)
		}
		f, _, err := CreateTemp(dir, "olmcat-http-*.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("{}\n")
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Hour) // until killed (select{} alone would be a deadlock the runtime ends)
	}
	dir := t.TempDir()
	// Entries that are not olmcat's, or that are a previous output moved aside, stay whatever.
	for _, keep := range []string{"notes.txt", "olmcat-http-1.jsonl.old"} {
		if err := os.WriteFile(filepath.Join(dir, keep), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := func() *exec.Cmd { return startChild(t, "TestRemoveStaleAfterKill9", "SCRATCH_KILL_CHILD="+dir) }
	dead, alive := start(), start()
	defer func() { alive.Process.Kill(); alive.Wait() }()
	names := func() []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	before := names()
	if len(before) != 6 {
		t.Fatalf("two children made %v, want 2 entries each beside the 2 kept ones", before)
	}
	if removed := RemoveStale(dir, StalePrefixes...); len(removed) != 0 {
		t.Fatalf("removed the entries of live processes: %v", removed)
	}
	dead.Process.Kill() // SIGKILL
	dead.Wait()
	removed := RemoveStale(dir, StalePrefixes...)
	if len(removed) != 2 {
		t.Fatalf("after SIGKILL removed %v, want the dead child's 2 entries", removed)
	}
	after := names()
	for _, keep := range []string{"notes.txt", "olmcat-http-1.jsonl.old"} {
		if !slices.Contains(after, keep) {
			t.Errorf("%s was removed", keep)
		}
	}
	if len(after) != 4 {
		t.Errorf("left %v, want the live child's 2 entries and the 2 kept ones", after)
	}
}

// A cleaner may remove an entry between its creation and its lock: not locked yet, it looks
// abandoned. The creator's lock then finds the path gone, or naming another file, and
// MkdirTempLocked and CreateTempLocked make another; so no entry needs an age before it counts as
// abandoned, and what they return stays there for as long as it is held.
func TestCleanerFirstMakesCreatorRetry(t *testing.T) {
	dir := t.TempDir()
	path, err := os.MkdirTemp(dir, "olmcat-spool-")
	if err != nil {
		t.Fatal(err)
	}
	if removed := RemoveStale(dir, "olmcat-spool-"); len(removed) != 1 {
		t.Fatalf("the cleaner removed %v, want the unlocked directory", removed)
	}
	if _, ok := lockAndCheck(path, nil); ok {
		t.Error("the creator locked a directory the cleaner had removed")
	}

	f, err := os.CreateTemp(dir, "olmcat-spool-")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	created, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if removed := RemoveStale(dir, "olmcat-spool-"); len(removed) != 1 {
		t.Fatalf("the cleaner removed %v, want the unlocked file", removed)
	}
	if err := os.WriteFile(f.Name(), nil, 0o600); err != nil { // another creator's file by that name
		t.Fatal(err)
	}
	if _, ok := lockAndCheck(f.Name(), created); ok {
		t.Error("the creator took another file by the name of the one the cleaner had removed")
	}

	dirPath, unlockDir, err := MkdirTempLocked(dir, "olmcat-spool-")
	if err != nil {
		t.Fatal(err)
	}
	defer unlockDir()
	g, unlockFile, err := CreateTempLocked(dir, "olmcat-spool-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { unlockFile(); g.Close() }()
	RemoveStale(dir, "olmcat-spool-")
	for _, p := range []string{dirPath, g.Name()} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed while its creator held it: %v", p, err)
		}
	}
}

// Entries with olmcat's names that are links, FIFOs or sockets (a shared cache directory) are
// never followed, opened or removed by RemoveStale; what a link names stays whole.
func TestRemoveStaleLeavesLinksAndFIFOs(t *testing.T) {
	dir, victim := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(victim, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, ".olmcat-serve-build-1")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".olmcat-serve-build-2"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan []string, 1)
	go func() { done <- RemoveStale(dir, ".olmcat-serve-build-") }()
	select {
	case removed := <-done:
		if len(removed) != 0 {
			t.Errorf("removed %v, want nothing", removed)
		}
	case <-time.After(time.Minute):
		t.Fatal("RemoveStale blocked on a FIFO")
	}
	if data, err := os.ReadFile(filepath.Join(victim, "keep")); err != nil || string(data) != "x" {
		t.Errorf("the linked directory's file: %q, %v", data, err)
	}
}

// A locked temporary database's SQLite journal carries no lock of its own; removing it while the
// database is written fails the writer's commit with "disk I/O error" (seen when one olmcat
// started while another served an old index from its upgraded copy).
func TestRemoveStaleKeepsALiveDatabasesJournal(t *testing.T) {
	dir := t.TempDir()
	f, unlock, err := CreateTempLocked(dir, "olmcat-serve-index-*.db")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	journal := f.Name() + "-journal"
	if err := os.WriteFile(journal, []byte("rollback"), 0o600); err != nil {
		t.Fatal(err)
	}
	if removed := RemoveStale(dir, StalePrefixes...); len(removed) != 0 {
		t.Fatalf("removed %v while its database is in use", removed)
	}
	unlock()
	if err := os.Remove(f.Name()); err != nil {
		t.Fatal(err)
	}
	if removed := RemoveStale(dir, StalePrefixes...); !slices.Equal(removed, []string{journal}) {
		t.Fatalf("with its database gone, removed %v, want the journal %s", removed, journal)
	}
}
