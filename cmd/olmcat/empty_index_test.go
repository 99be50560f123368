package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// An empty index is not a mistyped path: a schema-valid index.db without packages (here written by
// olmcat's own index.db writer from an empty catalog) is served by both serve commands, diffed
// (everything removed) and migrated, as opm does, with a warning on stderr; a directory with no
// catalog blob at all is still refused.
func TestEmptyIndexIsACatalog(t *testing.T) {
	dir := t.TempDir()
	nothing := filepath.Join(dir, "nothing")
	if err := os.Mkdir(nothing, 0o755); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.db")
	if code, _, stderr := runCLI(t, "migrate", nothing, empty, "--to", "sqlite", "--allow-empty"); code != exitOK {
		t.Fatalf("write an empty index.db: exit %d\n%s", code, stderr)
	}
	warning := "olmcat: warning: " + empty + ": the index.db holds no package: it is read as an empty catalog (pass --allow-empty to say that is intended)\n"

	if code, _, stderr := runCLI(t, "validate", nothing); code != exitUsage || !strings.Contains(stderr, nothing+": empty catalog: no catalog blobs found under "+nothing) {
		t.Errorf("validate of a directory without blobs: exit %d, stderr %q; want exit 2, empty catalog", code, stderr)
	}

	out := filepath.Join(dir, "migrated")
	code, _, stderr := runCLI(t, "migrate", empty, out)
	if code != exitOK || !strings.HasPrefix(stderr, warning) {
		t.Errorf("migrate: exit %d, stderr %q; want 0 and the warning", code, stderr)
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) != 0 {
		t.Errorf("migrate of an empty index.db wrote %v (%v), want an empty directory", entries, err)
	}

	old := filepath.Join("..", "..", "fixtures", "index.db")
	code, stdout, stderr := runCLI(t, "diff", old, empty, "-o", "json")
	if code != exitOK || stderr != warning {
		t.Errorf("diff: exit %d, stderr %q; want 0 and the warning", code, stderr)
	}
	var report struct {
		Packages []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"packages"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("diff -o json: %v\n%s", err, stdout)
	}
	if len(report.Packages) != 3 {
		t.Errorf("diff of an emptied index: %d packages, want the 3 of the fixture, removed", len(report.Packages))
	}
	for _, p := range report.Packages {
		if p.Status != "removed" {
			t.Errorf("diff of an emptied index: package %s %s, want removed", p.Name, p.Status)
		}
	}

	if code, _, stderr := runCLI(t, "validate", empty, "--allow-empty"); code != exitOK || stderr != "olmcat: valid: 0 errors, 0 warnings\n" {
		t.Errorf("validate --allow-empty: exit %d, stderr %q; want 0 and no warning", code, stderr)
	}

	for _, args := range [][]string{{"serve", empty, "-t", ""}, {"registry", "serve", "--database", empty, "-t", ""}} {
		t.Run(strings.Join(args[:len(args)-3], " "), func(t *testing.T) {
			addr := freeAddr(t)
			cmd := olmcatProcess(t, t.TempDir(), append(args, "-p", addr)...)
			var serveErr bytes.Buffer
			cmd.Stderr = &serveErr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			conn := waitServing(t, addr, &serveErr)
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			stream, err := api.NewRegistryClient(conn).ListPackages(ctx, &api.ListPackageRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if p, err := stream.Recv(); !errors.Is(err, io.EOF) {
				t.Errorf("ListPackages of an empty index: %v, %v; want no package", p, err)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("after SIGTERM: %v", err)
			}
			if !strings.HasPrefix(serveErr.String(), warning) {
				t.Errorf("stderr does not start with the warning:\n%s", serveErr.String())
			}
		})
	}
}
