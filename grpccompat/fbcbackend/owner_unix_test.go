//go:build unix && !aix && !solaris

package fbcbackend

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"github.com/olmcat/olmcat/fixtures/generate"
)

// With OWNER_CHILD_CATALOG set, the test binary is a server in the middle of its work: it holds
// a temporary cache (in $TMPDIR) and a cache being built in $OWNER_CHILD_CACHE, says "ready",
// and waits until its stdin closes or it is killed.
func TestMain(m *testing.M) {
	if root := os.Getenv("OWNER_CHILD_CATALOG"); root != "" {
		b, err := Open(context.Background(), Dir(root), Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w, err := newCacheWriter(os.Getenv("OWNER_CHILD_CACHE"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		runtime.KeepAlive(b) // their lock files would be closed by the garbage collector
		runtime.KeepAlive(w)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startOwner starts a child server and returns it with the directories it made.
func startOwner(t *testing.T, root, tmp, cache string) (*exec.Cmd, []string) {
	t.Helper()
	before := ownedDirs(t, tmp, cache)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OWNER_CHILD_CATALOG="+root, "OWNER_CHILD_CACHE="+cache, "TMPDIR="+tmp)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child did not get ready: %q %v", line, err)
	}
	var made []string
	for _, d := range ownedDirs(t, tmp, cache) {
		if !slices.Contains(before, d) {
			made = append(made, d)
		}
	}
	if len(made) != 2 {
		t.Fatalf("child made %v, want a temporary cache and a build directory", made)
	}
	return cmd, made
}

func ownedDirs(t *testing.T, tmp, cache string) []string {
	t.Helper()
	a, err := filepath.Glob(filepath.Join(tmp, tempCachePrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := filepath.Glob(filepath.Join(cache, buildDirPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return append(a, b...)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// A server killed with SIGKILL leaves its temporary cache and its half-built cache behind; the
// next start removes them, but not those of a server that is still running. (A directory so new
// that its server has not locked it yet may be removed: its server sees that and makes another,
// see scratch's TestCleanerFirstMakesCreatorRetry.)
func TestDirsOfKilledServersAreRemoved(t *testing.T) {
	root, tmp, cache := writeCatalog(t, generate.Small), t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)

	_, liveDirs := startOwner(t, root, tmp, cache)
	dead, deadDirs := startOwner(t, root, tmp, cache)
	if err := dead.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	dead.Wait()
	for _, d := range deadDirs {
		if !exists(d) {
			t.Fatalf("test setup: %s is already gone after SIGKILL", d)
		}
	}

	openCached(t, root, cache)
	for _, d := range deadDirs {
		if exists(d) {
			t.Errorf("%s of the killed server is still there", d)
		}
	}
	for _, d := range liveDirs {
		if !exists(d) {
			t.Errorf("%s of a running server was removed", d)
		}
	}
	if left := ownedDirs(t, tmp, cache); len(left) != 2 {
		t.Errorf("left %v, want only the running server's two directories", left)
	}
}
