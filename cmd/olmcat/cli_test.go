package main

import (
	"bytes"
	"strings"
	"testing"
)

// conformance is the shared corpus (see /work/shared/conformance/README.md).
const conformance = "../../../shared/conformance"

// runCLI runs olmcat in-process as main does: exit code, stdout, stderr (with main's error line).
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runCommand runs olmcat in-process with stdout and stderr in one stream, in the order written.
func runCommand(t *testing.T, args ...string) (output string, code int) {
	t.Helper()
	var both bytes.Buffer
	code = run(args, &both, &both)
	return both.String(), code
}

// mustRun runs olmcat and fails the test unless it exits 0; it returns stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("olmcat %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}
