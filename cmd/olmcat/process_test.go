package main

// Tests that need a real process: signals, broken pipes, full disks. The test binary runs as
// olmcat itself when OLMCAT_TEST_MAIN is set (see TestMain).

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
)

func TestMain(m *testing.M) {
	// The tests' registries are on loopback: templates may name them (TestTemplateMayNotReachTheRunner
	// clears this).
	templateRegistriesAllowedInTests = []string{"localhost"}
	if os.Getenv("OLMCAT_TEST_MAIN") == "1" && filepath.Base(os.Args[0]) == healthProbeName {
		os.Exit(healthProbe(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv("OLMCAT_TEST_MAIN") == "1" {
		os.Args = append([]string{"olmcat"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// olmcatProcess prepares olmcat as a child process whose temporary files go to tmp.
func olmcatProcess(t *testing.T, tmp string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OLMCAT_TEST_MAIN=1", "TMPDIR="+tmp)
	return cmd
}

// leftovers lists what a finished olmcat left in dir (its TMPDIR, or an output's parent).
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
next:
	for _, e := range entries {
		for _, k := range keep {
			if e.Name() == k {
				continue next
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// A reader that goes away (olmcat compat ... | head) ends olmcat quietly, and the serve caches of
// both in-process sides are removed.
func TestBrokenPipeRemovesTemporaryCaches(t *testing.T) {
	cat := filepath.Join(corpus(t, "sqlite/kube-green-replaces"), "migrate")
	tmp := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before olmcat writes
	cmd := olmcatProcess(t, tmp, "compat", cat, cat)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	code := cmd.ProcessState.ExitCode()
	if code != exitBrokenPipe || stderr.Len() != 0 {
		t.Errorf("exit %d (%v), want %d and nothing on stderr; stderr:\n%s", code, err, exitBrokenPipe, stderr.String())
	}
	if left := leftovers(t, tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// SIGTERM to a serving olmcat drains and removes its temporary cache; SIGINT during a long
// migration leaves no partial output and no hidden temporary file.
func TestSignalsRemoveTemporaryFiles(t *testing.T) {
	tmp := t.TempDir()
	catalog := filepath.Join(tmp, "catalog.json")
	big := generate.Catalog(generate.Options{Packages: 40, BundlesPerPackage: 40, CRDsPerBundle: 2, SkipEvery: 2, DescriptionBytes: 2000, Seed: 3})
	var b bytes.Buffer
	if err := fbc.Write(&b, big, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(catalog, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	temp := t.TempDir()

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		serve := olmcatProcess(t, temp, "serve", catalog, "-p", freeAddr(t), "-t", "")
		var serveErr bytes.Buffer
		serve.Stderr = &serveErr
		if err := serve.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, &serveErr, "serving registry", 60*time.Second)
		if len(leftovers(t, temp)) == 0 {
			t.Fatal("serve without --cache-dir made no temporary cache: the test would prove nothing")
		}
		serve.Process.Signal(sig)
		if err := serve.Wait(); err != nil {
			t.Errorf("serve after %v: %v\n%s", sig, err, serveErr.String())
		}
		if left := leftovers(t, temp); len(left) > 0 {
			t.Errorf("serve left in TMPDIR after %v: %v", sig, left)
		}
	}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		// On a loaded machine a signal may come before olmcat installed its handlers (150 ms after
		// the start is no promise; the test binary starts slower than olmcat): it then kills olmcat
		// before it made anything, which is right too, nothing may be left, and the signal is sent
		// again to a new run, later, until one is stopped by its handler (or finishes first).
		for wait := 150 * time.Millisecond; ; wait *= 2 {
			outDir := t.TempDir()
			migrate := olmcatProcess(t, temp, "migrate", catalog, filepath.Join(outDir, "index.db"), "--to", "sqlite")
			if err := migrate.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(wait)
			migrate.Process.Signal(sig)
			migrate.Wait()
			left := leftovers(t, outDir)
			finished := migrate.ProcessState.ExitCode() == 0 && len(left) == 1 && left[0] == "index.db"
			ws, _ := migrate.ProcessState.Sys().(syscall.WaitStatus)
			killed := ws.Signaled() && ws.Signal() == sig
			t.Logf("%v %v after the start of migrate: exit %d, finished before the signal: %v, killed before its handlers: %v",
				sig, wait, migrate.ProcessState.ExitCode(), finished, killed)
			if killed {
				if len(left) > 0 {
					t.Errorf("%v killed migrate before its handlers, and it left %v", sig, left)
				}
				if wait < 10*time.Second {
					continue
				}
				break
			}
			if !finished && (len(left) > 0 || migrate.ProcessState.ExitCode() != 128+int(sig)) {
				t.Errorf("%v during migrate: exit %d (want %d), left %v", sig, migrate.ProcessState.ExitCode(), 128+int(sig), left)
			}
			break
		}
	}
	if left := leftovers(t, temp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// waitFor waits until the text appears in what the process wrote.
func waitFor(t *testing.T, buf *bytes.Buffer, text string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); !strings.Contains(buf.String(), text); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q after %v:\n%s", text, limit, buf.String())
		}
	}
}

// Output that cannot be written fails the command; a report that cannot be written keeps the
// output from appearing at all.
func TestWriteErrorsFail(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	cat := filepath.Join(corpus(t, "sqlite/real-foo-index-v0.2.0"), "migrate")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	for _, args := range [][]string{{"inspect", "packages", cat}, {"render", cat}, {"validate", cat, "-o", "json"}, {"version"}} {
		cmd := olmcatProcess(t, t.TempDir(), args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v > /dev/full: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, "migrate", filepath.Join(filepath.Dir(cat), "input.db"), out, "--report", "/dev/full")
	if code != exitUsage || !strings.Contains(stderr, "write report /dev/full") {
		t.Errorf("--report /dev/full: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output appeared although its report could not be written")
	}
	code, _, stderr = runCLI(t, "migrate", cat, filepath.Join(t.TempDir(), "x.db"), "--to", "sqlite", "--report", "/dev/full")
	if code != exitUsage || !strings.Contains(stderr, "write report /dev/full") {
		t.Errorf("--to sqlite --report /dev/full: exit %d, stderr %q", code, stderr)
	}
}
