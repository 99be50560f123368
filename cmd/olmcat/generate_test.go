package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerateDockerfile(t *testing.T) {
	parent := t.TempDir()
	catalog := filepath.Join(parent, "prod")
	if err := os.Mkdir(catalog, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "generate", "dockerfile", catalog); code != exitUsage || !strings.Contains(stderr, "empty catalog") {
		t.Errorf("an empty directory: exit %d, %q; want %d (a mistyped path must not get a Dockerfile)", code, stderr, exitUsage)
	}
	if err := os.WriteFile(filepath.Join(catalog, "catalog.json"), []byte(`{"schema":"olm.package","name":"p"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "generate", "dockerfile", catalog, "-i", "quay.io/x/opm:v1", "-l", "team=olm"); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	b, err := os.ReadFile(filepath.Join(parent, "prod.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FROM quay.io/x/opm:v1\n", "ADD prod /configs\n", "EXPOSE 50051\n", `LABEL "team"="olm"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("Dockerfile lacks %q:\n%s", want, b)
		}
	}
	if code, _, _ := runCLI(t, "generate", "dockerfile", catalog); code != exitUsage {
		t.Errorf("overwrite without --force: exit code %d, want %d", code, exitUsage)
	}
	if code, _, _ := runCLI(t, "generate", "dockerfile", catalog, "--force"); code != 0 {
		t.Errorf("overwrite with --force: exit code %d", code)
	}
	if b, _ := os.ReadFile(filepath.Join(parent, "prod.Dockerfile")); !strings.Contains(string(b), "FROM quay.io/operator-framework/opm:latest\n") {
		t.Errorf("--force did not rewrite with the default base image:\n%s", b)
	}
	if code, _, _ := runCLI(t, "generate", "dockerfile", filepath.Join(parent, "prod.Dockerfile")); code != exitUsage {
		t.Errorf("a file instead of a directory: exit code %d, want %d", code, exitUsage)
	}
	if code, _, _ := runCLI(t, "generate", "dockerfile", catalog, "-l", "novalue", "--force"); code != exitUsage {
		t.Errorf("bad label: exit code %d, want %d", code, exitUsage)
	}
}

// --server olmcat writes a Dockerfile for an image served by olmcat, built on the olmcat image.
func TestGenerateDockerfileForOlmcat(t *testing.T) {
	catalog := filepath.Join(t.TempDir(), "prod")
	if err := os.Mkdir(catalog, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(catalog, "catalog.json"), []byte(`{"schema":"olm.package","name":"p"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "generate", "dockerfile", catalog, "--server", "olmcat")
	b, err := os.ReadFile(filepath.Join(filepath.Dir(catalog), "prod.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FROM ghcr.io/olmcat/olmcat:latest\n", `ENTRYPOINT ["/bin/olmcat"]`, "ADD prod /configs\n",
		`RUN ["/bin/olmcat", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]`,
		"LABEL operators.operatorframework.io.index.configs.v1=/configs"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("Dockerfile lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "opm") {
		t.Errorf("an olmcat Dockerfile mentions opm:\n%s", b)
	}
}

// --quiet leaves out the success summary of generate (as of migrate, build and push), never the file.
func TestGenerateDockerfileQuiet(t *testing.T) {
	catalog := copyTree(t, "../../fixtures/catalog")
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{nil, "olmcat: wrote " + catalog + ".Dockerfile\n"},
		{[]string{"-q"}, ""},
	} {
		os.Remove(catalog + ".Dockerfile")
		code, _, stderr := runCLI(t, append([]string{"generate", "dockerfile", catalog}, c.args...)...)
		if code != 0 || stderr != c.stderr {
			t.Errorf("generate dockerfile %v: exit %d, stderr %q, want %q", c.args, code, stderr, c.stderr)
		}
		if _, err := os.Stat(catalog + ".Dockerfile"); err != nil {
			t.Errorf("generate dockerfile %v: %v", c.args, err)
		}
	}
}
