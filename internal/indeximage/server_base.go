package indeximage

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ServerBasePlatforms are the platforms olmcat's own base image is published for (make image),
// those of opm's image and of OpenShift's catalogs.
var ServerBasePlatforms = []string{"linux/amd64", "linux/arm64", "linux/ppc64le", "linux/s390x"}

// ServerBaseCmd is the CMD of olmcat's base image (and of cmd/olmcat/Dockerfile): serve the
// catalog a build adds at /configs, with the serve cache it adds at /tmp/cache.
var ServerBaseCmd = []string{"serve", DefaultConfigsPath, "--cache-dir=" + DefaultCachePath}

// BaseBinary is one platform's olmcat binary for the base image.
type BaseBinary struct {
	Platform v1.Platform
	Path     string
}

// ParseBaseBinary reads "linux/ARCH[/VARIANT]=PATH".
func ParseBaseBinary(spec string) (BaseBinary, error) {
	plat, path, ok := strings.Cut(spec, "=")
	if !ok || plat == "" || path == "" {
		return BaseBinary{}, fmt.Errorf("--binary %q: want linux/ARCH=PATH, e.g. linux/arm64=out/image/linux-arm64/olmcat", spec)
	}
	p, err := v1.ParsePlatform(plat)
	if err != nil || p.OS != "linux" || p.Architecture == "" || strings.Contains(plat, ":") {
		return BaseBinary{}, fmt.Errorf("--binary %q: %q is not a linux/ARCH platform: olmcat's image is a Linux image, e.g. linux/amd64", spec, plat)
	}
	if _, ok := elfArches[p.Architecture]; !ok {
		return BaseBinary{}, fmt.Errorf("--binary %q: olmcat does not know the architecture %q (known: %s)", spec, p.Architecture, strings.Join(knownArches(), ", "))
	}
	return BaseBinary{Platform: *p, Path: path}, nil
}

// elfArch is what the ELF header of a Linux binary for GOARCH holds.
type elfArch struct {
	machine elf.Machine
	class   elf.Class
	order   binary.ByteOrder
}

var elfArches = map[string]elfArch{
	"amd64":    {elf.EM_X86_64, elf.ELFCLASS64, binary.LittleEndian},
	"arm64":    {elf.EM_AARCH64, elf.ELFCLASS64, binary.LittleEndian},
	"ppc64le":  {elf.EM_PPC64, elf.ELFCLASS64, binary.LittleEndian},
	"ppc64":    {elf.EM_PPC64, elf.ELFCLASS64, binary.BigEndian},
	"s390x":    {elf.EM_S390, elf.ELFCLASS64, binary.BigEndian},
	"riscv64":  {elf.EM_RISCV, elf.ELFCLASS64, binary.LittleEndian},
	"loong64":  {elf.EM_LOONGARCH, elf.ELFCLASS64, binary.LittleEndian},
	"386":      {elf.EM_386, elf.ELFCLASS32, binary.LittleEndian},
	"arm":      {elf.EM_ARM, elf.ELFCLASS32, binary.LittleEndian},
	"mips64le": {elf.EM_MIPS, elf.ELFCLASS64, binary.LittleEndian},
}

func knownArches() []string {
	var names []string
	for _, p := range []string{"amd64", "arm64", "ppc64le", "s390x", "ppc64", "riscv64", "loong64", "386", "arm", "mips64le"} {
		if _, ok := elfArches[p]; ok {
			names = append(names, p)
		}
	}
	return names
}

// CheckServerBinary refuses a binary that would not run as /bin/olmcat in a scratch image of
// platform p: not a Linux ELF executable, built for another machine, class or byte order (ppc64
// for ppc64le), or dynamically linked.
func CheckServerBinary(path string, p v1.Platform) error {
	want, ok := elfArches[p.Architecture]
	if !ok {
		return fmt.Errorf("olmcat does not know the architecture %q (known: %s)", p.Architecture, strings.Join(knownArches(), ", "))
	}
	f, err := elf.Open(path)
	if err != nil {
		if _, serr := os.Stat(path); serr != nil {
			return fmt.Errorf("olmcat binary for %s: %w", p.String(), serr)
		}
		return fmt.Errorf("olmcat binary %s for %s is not a Linux executable (%v): build it with GOOS=linux GOARCH=%s (make image does)", path, p.String(), err, p.Architecture)
	}
	got := f.FileHeader
	f.Close()
	if got.Machine != want.machine || got.Class != want.class || got.ByteOrder != want.order {
		return fmt.Errorf("olmcat binary %s is built for %s, not for %s: give --binary %s=PATH a GOARCH=%s build", path, describeELF(got), p.String(), p.String(), p.Architecture)
	}
	if got.Type != elf.ET_EXEC && got.Type != elf.ET_DYN {
		return fmt.Errorf("olmcat binary %s is an ELF %v, not an executable: give the binary go build writes", path, got.Type)
	}
	if got.OSABI != elf.ELFOSABI_NONE && got.OSABI != elf.ELFOSABI_LINUX {
		return fmt.Errorf("olmcat binary %s is built for %v, not Linux: build it with GOOS=linux", path, got.OSABI)
	}
	return checkStaticLinux(path, p)
}

func describeELF(h elf.FileHeader) string {
	order := "little-endian"
	if h.ByteOrder == binary.BigEndian {
		order = "big-endian"
	}
	for name, a := range elfArches {
		if a.machine == h.Machine && a.class == h.Class && a.order == h.ByteOrder {
			return "linux/" + name
		}
	}
	return fmt.Sprintf("%v (%v, %s)", h.Machine, h.Class, order)
}

// ServerBaseOptions configure BuildServerBaseIndex.
type ServerBaseOptions struct {
	// Binaries are the static olmcat binaries, one per platform.
	Binaries []BaseBinary
	// Created stamps every image and every file of its layer (SOURCE_DATE_EPOCH); zero keeps the
	// Unix epoch, so the same binaries give the same digest.
	Created time.Time
	Labels  map[string]string
}

// CheckServerBaseBinaries checks every binary (CheckServerBinary) and that no platform is given
// twice, before anything is built.
func CheckServerBaseBinaries(bins []BaseBinary) error {
	if len(bins) == 0 {
		return fmt.Errorf("no --binary given: give one linux/ARCH=PATH per platform of the image")
	}
	seen := map[string]string{}
	for _, b := range bins {
		key := b.Platform.String()
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("platform %s is given twice (--binary %s=%s and --binary %s=%s): an image index holds one image per platform", key, key, prev, key, b.Path)
		}
		seen[key] = b.Path
		if err := CheckServerBinary(b.Path, b.Platform); err != nil {
			return err
		}
	}
	return nil
}

// BuildServerBaseIndex builds olmcat's multi-arch base image: per platform, an image from scratch
// holding /bin/olmcat, /bin/grpc_health_probe linking to it and a world-writable /tmp (the layer
// BuildServerImage starts with), entrypoint /bin/olmcat, cmd `serve /configs
// --cache-dir=/tmp/cache`, as cmd/olmcat/Dockerfile builds it. Catalog images are built on it by
// adding /configs and /tmp/cache (olmcat build --base). The binaries are checked first
// (CheckServerBaseBinaries); the index lists the platforms in the order given.
func BuildServerBaseIndex(o ServerBaseOptions) (v1.ImageIndex, error) {
	if err := CheckServerBaseBinaries(o.Binaries); err != nil {
		return nil, err
	}
	var adds []mutate.IndexAddendum
	for _, b := range o.Binaries {
		img, err := serverBaseImage(b, o)
		if err != nil {
			return nil, fmt.Errorf("olmcat's image for %s: %w", b.Platform.String(), err)
		}
		p := b.Platform
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{MediaType: types.OCIManifestSchema1, Platform: &p}})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), nil
}

func serverBaseImage(b BaseBinary, o ServerBaseOptions) (v1.Image, error) {
	created := o.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	layer, err := serverLayer(b.Path, created)
	if err != nil {
		return nil, err
	}
	stamp := v1.Time{Time: created.UTC()}
	img, err := mutate.Append(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON),
		mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
			History: v1.History{Created: stamp, CreatedBy: "olmcat: ADD olmcat " + ServerBinaryPath, Comment: "olmcat base image"}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = stamp
	cf.OS, cf.Architecture, cf.Variant, cf.OSVersion = b.Platform.OS, b.Platform.Architecture, b.Platform.Variant, b.Platform.OSVersion
	cf.Config.Entrypoint = []string{ServerBinaryPath}
	cf.Config.Cmd = append([]string(nil), ServerBaseCmd...)
	cf.Config.Env = []string{"PATH=/bin"}
	cf.Config.ExposedPorts = map[string]struct{}{"50051/tcp": {}}
	if len(o.Labels) > 0 {
		cf.Config.Labels = map[string]string{}
		for k, v := range o.Labels {
			cf.Config.Labels[k] = v
		}
	}
	return mutate.ConfigFile(img, cf)
}
