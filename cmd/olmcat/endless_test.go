//go:build linux

package main

// Endless and silent inputs: standard input, pipes, FIFOs and devices get the limits of files, and
// a signal ends every read.

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/indeximage"
)

// maxRSSKB bounds the peak memory of a command refusing an endless input: what it needs to start,
// far from the gigabytes of a stream read whole.
const maxRSSKB = 256 << 10

// endlessRun runs olmcat with stdin and checks what every refused endless input must show: the
// exit code 2, one sentence on stderr containing want, bounded memory, nothing left in TMPDIR.
func endlessRun(t *testing.T, stdin io.Reader, env []string, want string, args ...string) {
	t.Helper()
	endlessRunCode(t, stdin, env, exitUsage, want, maxRSSKB, args...)
}

func endlessRunCode(t *testing.T, stdin io.Reader, env []string, wantCode int, want string, rssKB int64, args ...string) {
	t.Helper()
	tmp := t.TempDir()
	cmd := olmcatProcess(t, tmp, args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	finished := runWithin(t, cmd, 2*time.Minute)
	if !finished {
		t.Fatalf("%v: still running after 2 minutes", args)
	}
	msg := stderr.String()
	if code := cmd.ProcessState.ExitCode(); code != wantCode {
		t.Errorf("%v: exit %d, want %d; stderr:\n%s", args, code, wantCode, msg)
	}
	if strings.Count(strings.TrimSpace(msg), "\n") != 0 || !strings.HasPrefix(msg, "olmcat: ") || !strings.Contains(msg, want) {
		t.Errorf("%v: stderr %q, want one line starting with olmcat: and containing %q", args, msg, want)
	}
	if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > rssKB {
		t.Errorf("%v: peak RSS %d KB, want at most %d KB", args, rss, rssKB)
	}
	if left := leftovers(t, tmp); len(left) > 0 {
		t.Errorf("%v: left in TMPDIR: %v", args, left)
	}
}

// runWithin runs cmd and kills it after limit (a hang fails the test instead of the suite).
func runWithin(t *testing.T, cmd *exec.Cmd, limit time.Duration) bool {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return false
	}
}

// endless is a stream that never ends: the same bytes over and over.
type endless struct{ chunk []byte }

func (e endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], e.chunk)
	}
	return n, nil
}

func TestEndlessInputsAreRefused(t *testing.T) {
	zeros := endless{chunk: make([]byte, 4096)}
	notCatalog := "not a catalog: not a SQLite database: it looks like binary data starting with 00 00 00 00"
	t.Run("zeros on stdin", func(t *testing.T) {
		endlessRun(t, zeros, nil, "-: "+notCatalog, "validate", "-")
	})
	devZero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero")
	}
	defer devZero.Close()
	t.Run("/dev/zero as stdin", func(t *testing.T) {
		endlessRun(t, devZero, nil, "-: "+notCatalog, "migrate", "-", filepath.Join(t.TempDir(), "out"))
	})
	for _, args := range [][]string{{"render", "/dev/zero"}, {"validate", "/dev/zero"}, {"serve", "/dev/zero", "-p", "127.0.0.1:0"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			endlessRun(t, nil, nil, "/dev/zero: "+notCatalog, args...)
		})
	}
	t.Run("/dev/urandom", func(t *testing.T) {
		endlessRun(t, nil, nil, "/dev/urandom: not a catalog: not a SQLite database: it looks like binary data", "render", "/dev/urandom")
	})
	// An endless line: the loader's limit on one blob (64 MiB) holds for a stream as for a file;
	// the rest of the stream is not read, so it is an input too large (exit 2) naming the variable
	// that raises the limit. The blob is built by doubling its buffer, hence the higher memory bound.
	t.Run("endless line", func(t *testing.T) {
		endlessRunCode(t, endless{chunk: []byte(`{"a":"aaaaaaaa`)}, nil, exitUsage,
			"-: too large: line 1: a blob goes on past 64MiB, the most olmcat reads of one JSON value or YAML document; the file is probably corrupt (a missing closing brace or an endless line), or set OLMCAT_MAX_BLOB_BYTES to a higher value, e.g. OLMCAT_MAX_BLOB_BYTES=128MiB; the rest of the file was not read",
			512<<10, "validate", "-")
	})
	// Valid blobs without end: the stream is kept in TMPDIR up to OLMCAT_MAX_INPUT_BYTES.
	t.Run("endless blobs", func(t *testing.T) {
		blob := endless{chunk: []byte(`{"schema":"olm.package","name":"x"}` + "\n")}
		endlessRun(t, blob, []string{indeximage.EnvMaxBytes + "=1MiB"},
			"-: too large: the stream goes on past 1MiB, olmcat's limit for a catalog read from standard input, a pipe or a device (if it is a catalog that large, set OLMCAT_MAX_INPUT_BYTES to a higher value, e.g. OLMCAT_MAX_INPUT_BYTES=2MiB, or save it to a file first)",
			"render", "-")
	})
}

// A catalog template is read as a catalog is: binary content is refused at once, and an endless
// document stops at the size of one blob. The template commands fail as opm's do (exit 1, opm's
// "Error:" line, then what to do).
func TestEndlessTemplatesAreRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		stdin io.Reader
		args  []string
		want  string
	}{
		{"/dev/zero", nil, []string{"render-template", "/dev/zero"}, `Error: unable to open "/dev/zero": /dev/zero: not a catalog: binary content, not YAML or JSON text: it looks like binary data starting with 00 00 00 00`},
		{"zeros on stdin", endless{chunk: make([]byte, 4096)}, []string{"convert-template", "basic"}, `-: not a catalog: binary content`},
		{"endless YAML", endless{chunk: []byte("a: b\n")}, []string{"render-template", "basic"}, `Error: unable to open "-": -: too large: more than 64MiB, the most olmcat reads of one document`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := olmcatProcess(t, tmp, c.args...)
			cmd.Stdin = c.stdin
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if !runWithin(t, cmd, 2*time.Minute) {
				t.Fatalf("%v: still running after 2 minutes", c.args)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitFindings || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args, code, stderr.String(), c.want)
			}
			if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > 512<<10 {
				t.Errorf("%v: peak RSS %d KB, want at most 512 MB", c.args, rss)
			}
			if left := leftovers(t, tmp); len(left) > 0 {
				t.Errorf("%v: left in TMPDIR: %v", c.args, left)
			}
		})
	}
}

// A decompression bomb (a small layer whose entry declares gigabytes) is refused before anything
// is extracted, with the limit it hit and the variable that raises it.
func TestImageBombIsRefused(t *testing.T) {
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	for _, h := range []tar.Header{
		{Typeflag: tar.TypeDir, Name: "configs", Mode: 0o755},
		{Typeflag: tar.TypeReg, Name: "configs/catalog.json", Mode: 0o644, Size: 3 << 30},
	} {
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
	}
	ref := imagetest.OCILayout(t, imagetest.TarImage(t, layer.Bytes(), map[string]string{indeximage.ConfigsLabel: "/configs"}))
	endlessRun(t, nil, nil, ref+`: bad image: `, "validate", ref)
	endlessRun(t, nil, nil, `limit exceeded: the file is larger than 2GiB (the image is a decompression bomb, or set OLMCAT_MAX_FILE_BYTES to a higher value, e.g. OLMCAT_MAX_FILE_BYTES=4GiB)`, "render", ref)
}

// The stream limit is a size; a value that is not one stops olmcat before it reads anything.
func TestInputLimitMustBeASize(t *testing.T) {
	cmd := olmcatProcess(t, t.TempDir(), "validate", "-")
	cmd.Env = append(cmd.Env, indeximage.EnvMaxBytes+"=lots")
	cmd.Stdin = strings.NewReader(`{"schema":"olm.package","name":"x"}`)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(string(out), `OLMCAT_MAX_INPUT_BYTES="lots": not a size`) {
		t.Errorf("exit %d, output %q", code, out)
	}
}

// A read that waits for data that never comes (a FIFO nobody opens for writing, a silent pipe on
// standard input) ends on SIGTERM or SIGINT with 128+N, and leaves no temporary file.
func TestSignalEndsSilentInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "catalog.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	silent := &silentPipe{}
	endlessBlobs := endless{chunk: []byte(`{"schema":"olm.package","name":"x"}` + "\n")}
	cases := []struct {
		name  string
		args  []string
		stdin io.Reader
	}{
		{"validate FIFO", []string{"validate", fifo}, nil},
		{"serve FIFO", []string{"serve", fifo, "-p", "127.0.0.1:0"}, nil},
		{"render silent stdin", []string{"render", "-"}, silent},
		{"migrate silent stdin", []string{"migrate", "-", filepath.Join(dir, "out")}, silent},
		{"validate endless blobs", []string{"validate", "-"}, endlessBlobs},
		{"render-template FIFO", []string{"render-template", fifo}, nil},
		{"convert-template silent stdin", []string{"convert-template", "basic"}, silent},
	}
	for _, c := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(fmt.Sprintf("%s %v", c.name, sig), func(t *testing.T) {
				code, stderr, left := stopWhileReading(t, c.args, c.stdin, sig)
				if code != 128+int(sig) {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, 128+int(sig), stderr)
				}
				if !strings.Contains(stderr, "stopped by a signal") {
					t.Errorf("stderr %q, want it to say the command was stopped", stderr)
				}
				if len(left) > 0 {
					t.Errorf("left in TMPDIR: %v", left)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("migrate stopped by a signal wrote its output")
	}
}

// silentPipe stands for a pipe on standard input that is held open and never written to.
type silentPipe struct{ io.Reader }

// stopWhileReading starts olmcat, waits until it is blocked reading, signals it and returns its
// exit code. A signal that arrives before olmcat has installed its handler kills it outright:
// then it is tried again, waiting longer.
func stopWhileReading(t *testing.T, args []string, stdin io.Reader, sig syscall.Signal) (int, string, []string) {
	t.Helper()
	for wait := 200 * time.Millisecond; ; wait *= 2 {
		tmp := t.TempDir()
		cmd := olmcatProcess(t, tmp, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Stdin = stdin
		if _, ok := stdin.(*silentPipe); ok {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdin = r
			defer r.Close()
			defer w.Close() // held open, never written: the read waits
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(wait)
		cmd.Process.Signal(sig)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: still running a minute after %v", args, sig)
		}
		if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() && wait < 10*time.Second {
			continue // killed before the handler was installed
		}
		return cmd.ProcessState.ExitCode(), stderr.String(), leftovers(t, tmp)
	}
}
