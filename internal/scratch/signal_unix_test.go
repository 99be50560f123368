//go:build unix

package scratch

import (
	"bufio"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
)

// The use this package exists for: a process killed by SIGTERM mid-write leaves no scratch.
func TestSignalHandlerRemovesScratch(t *testing.T) {
	if dir := os.Getenv("SCRATCH_SIGNAL_CHILD"); dir != "" {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() { <-sig; RemoveAll(); os.Exit(130) }()
		d, _, err := MkdirTemp(dir, ".out.tmp-")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "partial"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("ready\n")
		select {}
	}
	dir := t.TempDir()
	cmd := startChild(t, "TestSignalHandlerRemovesScratch", "SCRATCH_SIGNAL_CHILD="+dir)
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Fatalf("child made %d scratch paths, want 1", len(left))
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("child ended with %v, want exit status 130 from the handler", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("scratch left after SIGTERM: %v", left)
	}
}

// startChild runs the test binary's test run as a child, in the role env gives it, and returns
// once the child printed "ready".
func startChild(t *testing.T, run string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not get ready: %q %v", line, err)
	}
	return cmd
}
