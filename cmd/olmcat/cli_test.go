package main

import (
	"bytes"
	"encoding/json"
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

// olmcat version and olmcat --version say the same, from the build info.
func TestVersion(t *testing.T) {
	text := mustRun(t, "version")
	if code, out, _ := runCLI(t, "--version"); code != 0 || out != text {
		t.Errorf("--version: exit %d, %q; version: %q", code, out, text)
	}
	if !strings.HasPrefix(text, "olmcat ") || strings.Contains(text, "olmcat dev") || !strings.Contains(text, "go1.") {
		t.Errorf("version line %q", text)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(mustRun(t, "version", "-o", "json")), &v); err != nil || v.Version == "" || v.GoVersion == "" || v.Platform == "" {
		t.Errorf("version -o json: %+v, %v", v, err)
	}
}
