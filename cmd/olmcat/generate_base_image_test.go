package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// tinyStaticBinaries builds a do-nothing static Linux program for each GOARCH (fast, unlike
// olmcat itself), as make image builds olmcat: CGO_ENABLED=0, -trimpath.
func tinyStaticBinaries(t *testing.T, arches ...string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: cannot build the binaries the image holds")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	for _, arch := range arches {
		out := filepath.Join(dir, arch, "olmcat")
		build := exec.Command("go", "build", "-trimpath", "-o", out, src)
		build.Dir = dir
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOFLAGS=", "GO111MODULE=off")
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build GOARCH=%s: %v\n%s", arch, err, b)
		}
		bins[arch] = out
	}
	return bins
}

// dockerfileConfig is the ENTRYPOINT and CMD of cmd/olmcat/Dockerfile, the olmcat image as a
// daemon builds it: generate base-image must write the same.
func dockerfileConfig(t *testing.T) (entrypoint, cmd []string) {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for prefix, into := range map[string]*[]string{"ENTRYPOINT ": &entrypoint, "CMD ": &cmd} {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				if err := json.Unmarshal([]byte(rest), into); err != nil {
					t.Fatalf("Dockerfile %s: %v", sc.Text(), err)
				}
			}
		}
	}
	if entrypoint == nil || cmd == nil {
		t.Fatal("cmd/olmcat/Dockerfile has no ENTRYPOINT or CMD")
	}
	return entrypoint, cmd
}

func readLayoutIndex(t *testing.T, dir string) v1.ImageIndex {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("the layout holds %v (%v), want the one index", m, err)
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatalf("the layout's entry is not an image index: %v", err)
	}
	return idx
}

type tarEntry struct {
	typ      byte
	mode     int64
	linkname string
	data     []byte
	modTime  time.Time
}

func layerEntries(t *testing.T, l v1.Layer) map[string]tarEntry {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	entries := map[string]tarEntry{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries[h.Name] = tarEntry{h.Typeflag, h.Mode, h.Linkname, data, h.ModTime}
	}
}

// olmcat's base image, as make image writes it: an OCI index of one image per --binary, each
// holding that binary at /bin/olmcat, the probe link and /tmp, configured as the Dockerfile
// configures it; the same binaries and SOURCE_DATE_EPOCH give the same digest.
func TestGenerateBaseImage(t *testing.T) {
	bins := tinyStaticBinaries(t, "amd64", "arm64")
	wantEntrypoint, wantCmd := dockerfileConfig(t)
	const epoch = 1700000000
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	tmp := t.TempDir()
	var digests []string
	for _, name := range []string{"one", "two"} {
		out := mustRun(t, "generate", "base-image", "--binary", "linux/amd64="+bins["amd64"], "--binary", "linux/arm64="+bins["arm64"],
			"--to-image", "oci-layout:"+filepath.Join(tmp, name))
		digests = append(digests, strings.TrimPrefix(strings.TrimSpace(out), "oci-layout:"+filepath.Join(tmp, name)+"@"))
	}
	if digests[0] != digests[1] || !strings.HasPrefix(digests[0], "sha256:") {
		t.Fatalf("two runs on the same binaries printed %q and %q, want one digest", digests[0], digests[1])
	}

	idx := readLayoutIndex(t, filepath.Join(tmp, "one"))
	if d, _ := idx.Digest(); d.String() != digests[0] {
		t.Errorf("printed %s, the layout's index is %s", digests[0], d)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != "application/vnd.oci.image.index.v1+json" {
		t.Errorf("index media type %s, want an OCI image index", m.MediaType)
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.String())
	}
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Fatalf("index platforms %v, want linux/amd64 and linux/arm64", platforms)
	}
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	for _, d := range m.Manifests {
		arch := d.Platform.Architecture
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != "linux" || cf.Architecture != arch || !slices.Equal(cf.Config.Entrypoint, wantEntrypoint) || !slices.Equal(cf.Config.Cmd, wantCmd) ||
			!slices.Equal(cf.Config.Env, []string{"PATH=/bin"}) || len(cf.Config.ExposedPorts) != 1 {
			t.Errorf("%s: config %s/%s entrypoint %q cmd %q env %q ports %v; want the Dockerfile's %q %q, PATH=/bin, 50051/tcp",
				arch, cf.OS, cf.Architecture, cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.Env, cf.Config.ExposedPorts, wantEntrypoint, wantCmd)
		}
		if _, ok := cf.Config.ExposedPorts["50051/tcp"]; !ok {
			t.Errorf("%s: exposed ports %v, want 50051/tcp", arch, cf.Config.ExposedPorts)
		}
		if !cf.Created.Time.Equal(time.Unix(epoch, 0)) {
			t.Errorf("%s: created %s, want SOURCE_DATE_EPOCH %d", arch, cf.Created.Time, epoch)
		}
		layers, err := img.Layers()
		if err != nil || len(layers) != 1 {
			t.Fatalf("%s: %d layers (%v), want one", arch, len(layers), err)
		}
		entries := layerEntries(t, layers[0])
		want, err := os.ReadFile(bins[arch])
		if err != nil {
			t.Fatal(err)
		}
		for name, e := range entries {
			if !e.modTime.Equal(time.Unix(epoch, 0)) {
				t.Errorf("%s: %s is stamped %s, want SOURCE_DATE_EPOCH %d", arch, name, e.modTime, epoch)
			}
		}
		if len(entries) != 4 {
			t.Errorf("%s: the layer holds %d entries, want bin/, bin/olmcat, bin/grpc_health_probe and tmp/", arch, len(entries))
		}
		if e := entries["bin/olmcat"]; e.typ != tar.TypeReg || e.mode != 0o755 || !bytes.Equal(e.data, want) {
			t.Errorf("%s: bin/olmcat is type %c mode %o, %d bytes; want the %d-byte binary given, 0755", arch, e.typ, e.mode, len(e.data), len(want))
		} else if f, err := elf.NewFile(bytes.NewReader(e.data)); err != nil || f.Machine != machines[arch] {
			t.Errorf("%s: bin/olmcat is not a %v executable: %v", arch, machines[arch], err)
		}
		if e := entries["bin/grpc_health_probe"]; e.typ != tar.TypeSymlink || e.linkname != "olmcat" {
			t.Errorf("%s: bin/grpc_health_probe is type %c to %q, want a link to olmcat", arch, e.typ, e.linkname)
		}
		if e := entries["tmp/"]; e.typ != tar.TypeDir || e.mode != 0o1777 {
			t.Errorf("%s: tmp/ is type %c mode %o, want a directory 1777", arch, e.typ, e.mode)
		}
	}
}

func TestGenerateBaseImageRefuses(t *testing.T) {
	bins := tinyStaticBinaries(t, "amd64", "arm64")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "image")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"wrong architecture", []string{"--binary", "linux/amd64=" + bins["arm64"]}, "is built for linux/arm64, not for linux/amd64"},
		{"duplicate platform", []string{"--binary", "linux/amd64=" + bins["amd64"], "--binary", "linux/arm64=" + bins["arm64"], "--binary", "linux/amd64=" + bins["amd64"]}, "platform linux/amd64 is given twice"},
		{"not linux", []string{"--binary", "windows/amd64=" + bins["amd64"]}, "not a linux/ARCH platform"},
		{"no platform", []string{"--binary", bins["amd64"]}, "want linux/ARCH=PATH"},
		{"not an executable", []string{"--binary", "linux/amd64=Dockerfile"}, "is not a Linux executable"},
		{"missing binary", []string{"--binary", "linux/amd64=" + filepath.Join(tmp, "nothing")}, "no such file"},
		{"no binary", nil, "no --binary given"},
		{"docker archive", []string{"--binary", "linux/amd64=" + bins["amd64"], "--to-image", "docker-archive:" + filepath.Join(tmp, "x.tar")}, "docker archive holds one image"},
		{"output holds a binary", []string{"--binary", "linux/amd64=" + bins["amd64"], "--to-image", "oci-layout:" + filepath.Dir(filepath.Dir(bins["amd64"]))}, "contains the input"},
	}
	if runtime.GOOS == "linux" {
		// A dynamically linked program of this machine: it would need a libc the image lacks.
		for _, p := range []string{"/bin/true", "/usr/bin/true"} {
			if f, err := elf.Open(p); err == nil {
				dynamic := slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
				f.Close()
				if dynamic {
					cases = append(cases, struct {
						name string
						args []string
						want string
					}{"dynamically linked", []string{"--binary", "linux/" + runtime.GOARCH + "=" + p}, "dynamically linked"})
					break
				}
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"generate", "base-image"}, c.args...)
			if !slices.Contains(c.args, "--to-image") {
				args = append(args, "--to-image", "oci-layout:"+out)
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 saying %q", code, stdout, stderr, c.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused run wrote %s", out)
			}
		})
	}
}
