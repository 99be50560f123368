package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// A catalog image served by olmcat, built by migrate --server olmcat, runs as built: its
// entrypoint serves the catalog from the pre-built cache (opm's --cache-enforce-integrity default
// requires it), and OLM's probe, grpc_health_probe -addr=:PORT, finds it SERVING through the
// image's /bin/grpc_health_probe link to olmcat.
func TestServerImageRunsAndPassesOLMsProbe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image holds a Linux binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: cannot build the static olmcat the image holds")
	}
	tmp := t.TempDir()
	static := filepath.Join(tmp, "olmcat-static")
	build := exec.Command("go", "build", "-trimpath", "-o", static, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	layoutDir := filepath.Join(tmp, "layout")
	mustRun(t, "migrate", "../../fixtures/index.db", filepath.Join(tmp, "catalog"), "--server", "olmcat",
		"--server-binary", static, "--oci-layout", layoutDir, "--platform", "linux/"+runtime.GOARCH)

	p, err := layout.FromPath(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("layout holds %v: %v", m, err)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cf.Config.Entrypoint, []string{"/bin/olmcat"}) || !slices.Equal(cf.Config.Cmd, []string{"serve", "/configs", "--cache-dir=/tmp/cache"}) ||
		cf.Config.Labels["operators.operatorframework.io.index.configs.v1"] != "/configs" || cf.Architecture != runtime.GOARCH {
		t.Fatalf("image config: entrypoint %v, cmd %v, labels %v, arch %s", cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.Labels, cf.Architecture)
	}
	root := filepath.Join(tmp, "rootfs")
	extract(t, img, root)

	// Run the entrypoint with the image's paths under root.
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	args := []string{}
	for _, a := range cf.Config.Cmd {
		a = strings.ReplaceAll(a, "/configs", filepath.Join(root, "configs"))
		args = append(args, strings.ReplaceAll(a, "/tmp/cache", filepath.Join(root, "tmp", "cache")))
	}
	server := exec.Command(filepath.Join(root, cf.Config.Entrypoint[0]), append(args, "-p", port, "-t", "")...)
	var stderr bytes.Buffer
	server.Stderr = &stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		server.Process.Signal(syscall.SIGTERM)
		if err := server.Wait(); err != nil {
			t.Errorf("server after SIGTERM: %v\n%s", err, stderr.String())
		}
	}()
	waitServing(t, addr, &stderr).Close()
	probe := exec.Command(filepath.Join(root, "bin", "grpc_health_probe"), "-addr=:"+port)
	out, err := probe.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SERVING") {
		t.Errorf("grpc_health_probe -addr=:%s: %v\n%s", port, err, out)
	}
	if strings.Contains(stderr.String(), "cache must be (re)built") || strings.Contains(stderr.String(), "built catalog cache") {
		t.Errorf("the server built a cache instead of using the image's:\n%s", stderr.String())
	}
}

// extract writes the image's filesystem under root.
func extract(t *testing.T, img v1.Image, root string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(root, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, os.FileMode(h.Mode).Perm())
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, target)
		case tar.TypeReg:
			var f *os.File
			if f, err = os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm()); err == nil {
				_, err = io.Copy(f, tr)
				f.Close()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// cmd/olmcat/Dockerfile (the olmcat image catalog images build on) runs what an image built by
// migrate --server olmcat runs: the same entrypoint, command, PATH and probe link.
func TestDockerfileMatchesTheServerImage(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		`ENTRYPOINT ["/bin/olmcat"]`,
		`CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]`,
		"ENV PATH=/bin",
		"ln -s olmcat /out/bin/grpc_health_probe",
		"CGO_ENABLED=0",
		"FROM scratch",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
