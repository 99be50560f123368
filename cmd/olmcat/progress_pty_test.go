//go:build linux

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runWithStderrOnPty runs olmcat with its standard error on a pseudo-terminal and returns what the
// terminal received and the exit code.
func runWithStderrOnPty(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	ptmx, tty := openPty(t, 200)
	defer ptmx.Close()
	cmd := olmcatProcess(t, t.TempDir(), args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = io.Discard, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds its own copy; EOF (EIO) comes when it exits
	out, err := io.ReadAll(ptmx)
	var perr *os.PathError
	if err != nil && !(errors.As(err, &perr) && errors.Is(perr.Err, syscall.EIO)) {
		t.Fatalf("read pty: %v", err)
	}
	cmd.Wait()
	return string(out), cmd.ProcessState.ExitCode()
}

// screen is what a terminal shows once it has processed s: a carriage return goes back to the
// start of the line, ESC [ K clears the rest of it.
func screen(s string) string {
	var lines []string
	var line []rune
	col := 0
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "\x1b[K"):
			line = line[:col]
			i += 3
			continue
		case s[i] == '\r':
			col = 0
		case s[i] == '\n':
			lines = append(lines, string(line))
			line, col = nil, 0
		default:
			r := []rune(s[i:])[0]
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col++
			i += len(string(r))
			continue
		}
		i++
	}
	return strings.Join(append(lines, string(line)), "\n")
}

// On a terminal, a long command shows what it is doing on one line of stderr, replaced in place
// and cleared at the end: the terminal then shows only the summary. (OLMCAT_PROGRESS_DELAY=0
// shows the line at once: the test cannot rely on the command taking a second.)
func TestProgressOnATerminal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	shown, code := runWithStderrOnPty(t, []string{"OLMCAT_PROGRESS_DELAY=0"}, "migrate", "../../fixtures/index.db", out, "--progress=always")
	if code != 0 {
		t.Fatalf("exit %d:\n%q", code, shown)
	}
	if !strings.Contains(shown, "\rolmcat migrate: converting: ") || !strings.Contains(shown, "bundles (") {
		t.Errorf("no progress line with the phase and the bundles read:\n%q", shown)
	}
	last := strings.LastIndex(shown, "\rolmcat migrate: ")
	if cleared := strings.Index(shown[max(last, 0):], "\r\x1b[K"); last < 0 || cleared < 0 {
		t.Errorf("the progress line is not cleared after its last draw:\n%q", shown)
	}
	if got := screen(shown); !strings.HasPrefix(got, "olmcat: migrated ../../fixtures/index.db") || strings.Contains(got, "olmcat migrate:") {
		t.Errorf("the terminal shows\n%s\nwant the summary alone, no progress line left", got)
	}

	// --quiet: neither the line (unless --progress always) nor the summary.
	quietOut := filepath.Join(t.TempDir(), "out")
	shown, code = runWithStderrOnPty(t, []string{"OLMCAT_PROGRESS_DELAY=0"}, "migrate", "../../fixtures/index.db", quietOut, "--quiet")
	if code != 0 || shown != "" {
		t.Errorf("--quiet on a terminal: exit %d, stderr %q, want nothing", code, shown)
	}
	shown, code = runWithStderrOnPty(t, []string{"OLMCAT_PROGRESS_DELAY=0"}, "validate", "../../fixtures/index.db", "-q", "--progress=always")
	if code != 0 || !strings.Contains(shown, "\rolmcat validate: validating") || screen(shown) != "" {
		t.Errorf("validate -q --progress=always: exit %d, stderr %q, want a progress line, cleared, and no summary", code, shown)
	}
}

// A standard error that is not a terminal (a CI log, a pipe) gets no progress at all with the
// default --progress auto, only the summary; --progress=never is the same on a terminal.
func TestNoProgressElsewhere(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	cmd := olmcatProcess(t, t.TempDir(), "migrate", "../../fixtures/index.db", out)
	cmd.Env = append(cmd.Env, "OLMCAT_PROGRESS_DELAY=0")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if s := stderr.String(); strings.ContainsAny(s, "\r\x1b") || !strings.HasPrefix(s, "olmcat: migrated ") || strings.Count(s, "\n") != 1 {
		t.Errorf("stderr not a terminal: %q, want the summary line alone", s)
	}
	shown, code := runWithStderrOnPty(t, []string{"OLMCAT_PROGRESS_DELAY=0"}, "migrate", "../../fixtures/index.db", filepath.Join(t.TempDir(), "out"), "--progress=never")
	if code != 0 || strings.ContainsAny(shown, "\r\x1b") || !strings.HasPrefix(shown, "olmcat: migrated ") {
		t.Errorf("--progress=never on a terminal: exit %d, stderr %q, want the summary alone", code, shown)
	}
	if code := run([]string{"validate", "../../fixtures/index.db", "--progress=sometimes"}, io.Discard, &stderr); code != exitUsage {
		t.Errorf("--progress=sometimes: exit %d, want %d", code, exitUsage)
	}
}
