package indeximage

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Paths in an olmcat catalog server image.
const (
	ServerBinaryPath = "/bin/olmcat"
	// HealthProbePath is the name OLM runs to probe a catalog pod (grpc_health_probe -addr=:50051):
	// a link to olmcat, which acts as the probe when called by that name.
	HealthProbePath = "/bin/grpc_health_probe"
	// DefaultServerImage is the olmcat image `generate dockerfile --server olmcat` builds on.
	DefaultServerImage = "ghcr.io/olmcat/olmcat:latest"
)

// ServerImageOptions configure BuildServerImage.
type ServerImageOptions struct {
	// Binary is the olmcat executable to serve with: a static Linux binary for Platform.
	Binary string
	// Platform of the image (the binary's).
	Platform v1.Platform
	// CacheDir is a serve cache of the catalog built by that olmcat (serve --cache-only), added
	// at /tmp/cache; "" serves without one.
	CacheDir string
	// Created stamps the image; zero keeps the Unix epoch, so the same inputs give the same digest.
	Created time.Time
	// LayerTime is the modification time of every entry of the layers (SOURCE_DATE_EPOCH); zero
	// means the Unix epoch.
	LayerTime   time.Time
	ExtraLabels map[string]string
}

// BuildServerImage builds a catalog image served by olmcat, from scratch: /bin/olmcat (and
// /bin/grpc_health_probe linking to it), a world-writable /tmp, the catalog at /configs and the
// serve cache at /tmp/cache; the entrypoint runs `olmcat serve /configs --cache-dir=/tmp/cache`.
func BuildServerImage(configsDir string, o ServerImageOptions) (v1.Image, error) {
	if err := checkStaticLinux(o.Binary, o.Platform); err != nil {
		return nil, err
	}
	base, err := serverLayer(o.Binary, o.LayerTime)
	if err != nil {
		return nil, err
	}
	stamp := v1.Time{Time: o.Created.UTC()}
	adds := []mutate.Addendum{{Layer: base, MediaType: types.OCILayer,
		History: v1.History{Created: stamp, CreatedBy: "olmcat: ADD olmcat " + ServerBinaryPath, Comment: "catalog server"}}}
	configs, err := newDirLayer(configsDir, DefaultConfigsPath, nil, types.OCILayer, o.LayerTime)
	if err != nil {
		return nil, err
	}
	adds = append(adds, mutate.Addendum{Layer: configs, MediaType: types.OCILayer,
		History: v1.History{Created: stamp, CreatedBy: "olmcat: ADD catalog " + DefaultConfigsPath, Comment: "File-Based Catalog"}})
	cmd := []string{"serve", DefaultConfigsPath}
	if o.CacheDir != "" {
		cache, err := newDirLayer(o.CacheDir, DefaultCachePath, nil, types.OCILayer, o.LayerTime)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.Addendum{Layer: cache, MediaType: types.OCILayer,
			History: v1.History{Created: stamp, CreatedBy: "olmcat: ADD serve cache " + DefaultCachePath}})
		cmd = append(cmd, "--cache-dir="+DefaultCachePath)
	}
	img, err := mutate.Append(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON), adds...)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = stamp
	cf.OS, cf.Architecture, cf.Variant = o.Platform.OS, o.Platform.Architecture, o.Platform.Variant
	cf.Config.Entrypoint = []string{ServerBinaryPath}
	cf.Config.Cmd = cmd
	cf.Config.Env = []string{"PATH=/bin"}
	cf.Config.ExposedPorts = map[string]struct{}{"50051/tcp": {}}
	cf.Config.Labels = indexLabels(nil, cleanImagePath(DefaultConfigsPath, DefaultConfigsPath), o.ExtraLabels)
	return mutate.ConfigFile(img, cf)
}

// serverLayer holds /bin/olmcat, the probe link and /tmp.
func serverLayer(binary string, modTime time.Time) (v1.Layer, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, fmt.Errorf("olmcat binary for the image: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	if !modTime.IsZero() {
		epoch = modTime.UTC()
	}
	for _, h := range []*tar.Header{
		{Typeflag: tar.TypeDir, Name: "bin/", Mode: 0o755, ModTime: epoch},
		{Typeflag: tar.TypeReg, Name: "bin/olmcat", Mode: 0o755, Size: int64(len(data)), ModTime: epoch},
		{Typeflag: tar.TypeSymlink, Name: "bin/grpc_health_probe", Linkname: "olmcat", Mode: 0o777, ModTime: epoch},
		{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: epoch},
	} {
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layer)), nil },
		tarball.WithMediaType(types.OCILayer))
}

var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390}

// checkStaticLinux refuses a binary that cannot run in a scratch image of the platform: not a
// Linux ELF of that architecture, or dynamically linked (it would need a libc the image lacks).
func checkStaticLinux(binary string, p v1.Platform) error {
	f, err := elf.Open(binary)
	if err != nil {
		return fmt.Errorf("olmcat binary %s is not a Linux executable (%v): the image needs a linux/%s build of olmcat", binary, err, p.Architecture)
	}
	defer f.Close()
	if m, ok := elfMachines[p.Architecture]; ok && f.Machine != m {
		return fmt.Errorf("olmcat binary %s is built for %v, not %s: give --server-binary a linux/%s build", binary, f.Machine, p.Architecture, p.Architecture)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return errors.New("olmcat binary " + binary + " is dynamically linked and would not run in a scratch image: build it with CGO_ENABLED=0 (make build does)")
		}
	}
	return nil
}
