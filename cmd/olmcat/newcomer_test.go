package main

// TestNewcomer is the first hour of someone new to olmcat (issue 34, `make newcomer`), through the
// built binary as a shell runs it: every example of README.md's sh blocks (as TestReadmeExamples
// runs them in-process: the bundled fixtures/ catalogs stand for the README's catalogs, and its
// quay.io references are served by a loopback registry holding fixtures/index.db and the README's
// bundle, so no example needs the network; one that reads a git revision is skipped, saying so,
// when git is not installed), each exiting as its comment documents; then the mistakes a newcomer
// makes, each answered with a message that names what was meant and exit 2 (or 1 for a finding).
//
// OLMCAT_BIN names the binary to run (make newcomer builds it first); otherwise the test builds
// one.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestNewcomer(t *testing.T) {
	bin := newcomerBinary(t)
	run := binaryExec(bin)
	t.Run("README", func(t *testing.T) { runReadmeExamples(t, run, true) })
	t.Run("mistakes", func(t *testing.T) { newcomerMistakes(t, run) })
}

// newcomerBinary is $OLMCAT_BIN, or olmcat built into a temporary directory.
func newcomerBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("OLMCAT_BIN"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(abs); err != nil {
			t.Fatalf("OLMCAT_BIN: %v", err)
		}
		return abs
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build olmcat with, and OLMCAT_BIN is not set")
		}
	}
	bin := filepath.Join(t.TempDir(), "olmcat")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// binaryExec runs bin as a shell would: standard input empty, a reader of standard output that
// goes away (| head) closes the pipe, and a server whose context ends gets SIGTERM.
func binaryExec(bin string) readmeExec {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		c := exec.CommandContext(ctx, bin, args...)
		c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
		c.WaitDelay = time.Minute
		c.Stderr = stderr
		var pr, pw *os.File
		if f, ok := stdout.(*os.File); ok {
			c.Stdout = f
		} else {
			var err error
			if pr, pw, err = os.Pipe(); err != nil {
				fmt.Fprintln(stderr, err)
				return -1
			}
			c.Stdout = pw
		}
		if err := c.Start(); err != nil {
			fmt.Fprintln(stderr, err)
			return -1
		}
		if pr != nil {
			pw.Close()
			io.Copy(stdout, pr) // returns when the process closes it, or when the reader goes away
			pr.Close()          // then a write gets SIGPIPE, as from a shell pipe
		}
		// After a cancellation (SIGTERM to a server), Wait reports the context's error even when
		// the process exited 0: the process's own status is what counts.
		if err := c.Wait(); err != nil && c.ProcessState == nil {
			fmt.Fprintln(stderr, err)
			return -1
		}
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return c.ProcessState.ExitCode()
	}
}

// newcomerMistakes: what someone new types wrong, and what olmcat answers.
func newcomerMistakes(t *testing.T, run readmeExec) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog")
	copyDir(t, "../../fixtures/catalog", cat)
	db := "../../fixtures/index.db"
	bundle := "testdata/readme/bundle-dir"
	misspelled := filepath.Join(dir, "semver.yaml")
	writeFile(t, misspelled, "schema: olm.semverr\nStable:\n  Bundles:\n  - Image: quay.io/ns/b:v1\n")
	dup := filepath.Join(dir, "dup")
	copyDir(t, "../../fixtures/catalog", dup)
	pkgBlob, err := os.ReadFile(filepath.Join(dup, "operator-001", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(pkgBlob), "\n}\n") // the olm.package blob comes first
	writeFile(t, filepath.Join(dup, "operator-001", "zz-copy.json"), first+"\n}\n")

	for _, tc := range []struct {
		what   string
		args   []string
		code   int
		stderr []string // each on stderr
		stdout string   // on stdout, when not ""
	}{
		{"an argument left out", []string{"migrate", db}, exitUsage,
			[]string{"olmcat: migrate needs CATALOG OUT: OUT is missing", "usage: olmcat migrate CATALOG OUT [flags]"}, ""},
		{"unpack without arguments", []string{"unpack"}, exitUsage, []string{"CATALOG and OUTDIR are missing", "usage: olmcat unpack"}, ""},
		{"one argument too many", []string{"serve", cat, "extra"}, exitUsage, []string{`unexpected argument "extra"`, "usage: olmcat serve CATALOG"}, ""},
		{"a mistyped flag", []string{"filter", cat, filepath.Join(dir, "f"), "--packge", "operator-000"}, exitUsage,
			[]string{"olmcat: unknown flag: --packge (did you mean --package?)"}, ""},
		{"another mistyped flag", []string{"validate", cat, "--stirct"}, exitUsage, []string{"(did you mean --strict?)"}, ""},
		{"a mistyped command", []string{"valdate", cat}, exitUsage, []string{`olmcat: unknown command "valdate" for "olmcat"; did you mean validate?`}, ""},
		{"a mistyped subcommand", []string{"inspect", "pakages", cat}, exitUsage, []string{"did you mean package or packages?"}, ""},
		{"the package by flag", []string{"inspect", "package", cat, "--package", "operator-000"}, exitOK, nil, "package operator-000"},
		{"the package by position", []string{"inspect", "package", cat, "operator-000"}, exitOK, nil, "package operator-000"},
		{"-o table where text is the name", []string{"validate", cat, "-o", "table"}, exitOK, []string{"olmcat: valid: 0 errors, "}, ""},
		{"validate bundle's verdict", []string{"validate", "bundle", bundle}, exitOK, []string{"olmcat: valid: 0 errors, 0 warnings (bundle " + bundle + ")"}, ""},
		{"a package blob twice", []string{"validate", dup}, exitFindings,
			[]string{"olmcat: invalid: 1 error"}, "the first is at operator-001/catalog.json:1, this one at operator-001/zz-copy.json:1"},
		{"a misspelled template schema", []string{"render-template", misspelled}, exitFindings,
			[]string{"probably the template schema olm.semver misspelled (write schema: olm.semver)"}, ""},
		{"validate on it says the same", []string{"validate", misspelled}, exitUsage,
			[]string{"probably the template schema olm.semver misspelled"}, ""},
	} {
		t.Run(tc.what, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			code := run(ctx, tc.args, &stdout, &stderr)
			errs := stderr.String()
			if code != tc.code {
				t.Errorf("olmcat %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), code, tc.code, errs)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errs, w) {
					t.Errorf("olmcat %s: stderr lacks %q:\n%s", strings.Join(tc.args, " "), w, errs)
				}
			}
			if tc.stdout != "" && !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("olmcat %s: stdout lacks %q:\n%s", strings.Join(tc.args, " "), tc.stdout, stdout.String())
			}
			if errs != "" && !strings.HasPrefix(errs, "olmcat: ") && !strings.HasPrefix(errs, "Error: ") {
				t.Errorf("olmcat %s: stderr does not start with olmcat: (or opm's Error: for render-template):\n%s", strings.Join(tc.args, " "), errs)
			}
			for _, bad := range []string{"arg(s)", `\t`, "\t", "panic", "goroutine "} {
				if strings.Contains(errs, bad) {
					t.Errorf("olmcat %s: %q on stderr:\n%s", strings.Join(tc.args, " "), bad, errs)
				}
			}
		})
	}

	// migrate --to sqlite --report says whether the database was written.
	ctx := context.Background()
	report := filepath.Join(dir, "report.json")
	var errb bytes.Buffer
	if code := run(ctx, []string{"migrate", "--to", "sqlite", cat, filepath.Join(dir, "index.db"), "--report", report}, io.Discard, &errb); code != exitOK {
		t.Fatalf("migrate --to sqlite: exit %d\n%s", code, errb.String())
	}
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), `"committed": true`) {
		t.Errorf("migrate --to sqlite --report, database written: %v\n%s", err, data)
	}
	report = filepath.Join(dir, "strict.json")
	if code := run(ctx, []string{"migrate", "--to", "sqlite", cat, filepath.Join(dir, "strict.db"), "--report", report, "--strict"}, io.Discard, io.Discard); code != exitFindings {
		t.Errorf("migrate --to sqlite --strict: exit %d, want %d", code, exitFindings)
	}
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), `"committed": false`) {
		t.Errorf("migrate --to sqlite --report --strict, refused: %v\n%s", err, data)
	}
}
