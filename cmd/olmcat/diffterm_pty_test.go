//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*m")

// openPty opens a pseudo-terminal of the given width: the controlling side to read from and the
// terminal side to give a child as its standard output.
func openPty(t *testing.T, cols uint16) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: cols}); err != nil {
		t.Fatalf("set pty size: %v", err)
	}
	// raw output: no \n -> \r\n translation, so lines read back as written
	termios, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err == nil {
		termios.Oflag &^= unix.OPOST
		unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, termios)
	}
	return ptmx, tty
}

// With its standard output on a real 80-column terminal (and no COLUMNS), olmcat diff colours the
// table (--color auto, the default) and fits it in 80 columns: main's checked writer must not hide
// the terminal.
func TestDiffOnARealTerminal(t *testing.T) {
	oldDir, newDir := pair(t, "sailoperator-v4.18-prune-channel")
	ptmx, tty := openPty(t, 80)
	defer ptmx.Close()
	cmd := olmcatProcess(t, t.TempDir(), "diff", oldDir, newDir)
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "COLUMNS=") && !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "TERM=xterm")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = tty, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds its own copy; EOF (EIO) comes when it exits
	out, err := io.ReadAll(ptmx)
	var perr *os.PathError
	if err != nil && !(errors.As(err, &perr) && errors.Is(perr.Err, syscall.EIO)) {
		t.Fatalf("read pty: %v", err)
	}
	if err := cmd.Wait(); err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("olmcat diff: %v\n%s", err, stderr.String())
	}
	text := string(out)
	if !strings.Contains(text, "\x1b[") {
		t.Errorf("--color auto on a terminal: no ANSI colour\n%s", text)
	}
	plain := ansiCodes.ReplaceAllString(text, "")
	widest := 0
	for _, line := range strings.Split(strings.TrimRight(plain, "\n"), "\n") {
		n := utf8.RuneCountInString(strings.TrimRight(line, "\r"))
		if n > 80 {
			t.Errorf("line of %d columns on an 80-column terminal: %s", n, line)
		}
		widest = max(widest, n)
	}
	if widest < 76 {
		t.Errorf("the table uses %d of the terminal's 80 columns: its width was not read\n%s", widest, plain)
	}
	if !strings.Contains(plain, "channel-removed") {
		t.Errorf("no table:\n%s", plain)
	}
}
