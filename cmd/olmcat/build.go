package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/scratch"
	"github.com/olmcat/olmcat/internal/source"
)

func init() { register(newBuildCmd) }

const buildLong = `Build the catalog image of CATALOG for one or several platforms, in one run, without a container
daemon and without emulation, and write it to --to-image: a registry reference (pushed; credentials
from the docker/podman config), oci-layout:DIR[:TAG] or docker-archive:FILE (one platform only).

CATALOG is any catalog reference (below). A File-Based Catalog directory goes into the image as it
is; anything else (an index.db, an index image, a template, a file, git:REV:PATH...) is converted
to a File-Based Catalog first, as 'olmcat migrate' writes it.

For every platform asked (--platform linux/amd64,linux/arm64; all: every platform of the base),
the base's image of that platform gets, as 'opm generate dockerfile' and a docker build of its
Dockerfile would give it:
  - a layer holding the catalog at /configs,
  - a layer holding the serve cache at /tmp/cache, built once, natively, in the format the
    base's server reads: opm's cache for opm's image (as 'opm serve --cache-only' writes it),
    olmcat's for olmcat's image (as 'olmcat serve --cache-only' writes it),
  - the label operators.operatorframework.io.index.configs.v1=/configs,
  - ENTRYPOINT the base's server (/bin/opm or /bin/olmcat) and
    CMD ["serve", "/configs", "--cache-dir=/tmp/cache"].
The two new layers are the same blobs in every platform's image (one digest each).

--base is a multi-arch image (default ` + indeximage.DefaultBinaryImage + `, as 'opm generate dockerfile'):
opm's image (entrypoint opm), or olmcat's own base (entrypoint /bin/olmcat, as 'make image' or
'olmcat generate base-image' build it). What serves the catalog is read from the base's
entrypoint; --server opm|olmcat, when given, must agree with it. --server olmcat without --base
builds one platform's image from scratch holding this olmcat (--server-binary another build);
several platforms need an olmcat base (--base, e.g. built with 'make image').

The result is reproducible: the same inputs give the same digest. The new layers' file times and
the images' created time are SOURCE_DATE_EPOCH when it is set; otherwise the file times are the
Unix epoch and each image keeps its base's created time (an image from scratch: the epoch).

The index digest is printed on stdout (for a docker archive, which keeps no manifest, the image
ID that docker load and podman load print); -o json prints the reference, the digest and each
platform's image digest. A platform the base lacks, a base that is neither opm's nor olmcat's and
several platforms into a docker archive are usage errors (exit 2), before anything is written.`

// buildFlags are the flags of `olmcat build` (and what migrate/filter --to-image pass to it).
type buildFlags struct {
	in           inputFlags
	toImage      string
	platforms    string
	base         string
	server       string // "", opm or olmcat
	serverBinary string
	output       string
	force        bool
}

func newBuildCmd() *cobra.Command {
	var b buildFlags
	cmd := &cobra.Command{
		Use:   "build CATALOG --to-image REF",
		Short: "Build a multi-arch catalog image on opm's or olmcat's base, without a daemon",
		Long:  buildLong + "\n\n" + referenceHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBuild(cmd, args[0], b)
		},
	}
	f := cmd.Flags()
	f.StringVar(&b.toImage, "to-image", "", "where the image goes: a registry reference, oci-layout:DIR[:TAG] or docker-archive:FILE[:REPO:TAG] (required)")
	f.StringVar(&b.platforms, "platform", indeximage.DefaultPlatform, "platforms to build, OS/ARCH[/VARIANT] separated by commas, or all (every platform of the base)")
	f.StringVar(&b.base, "base", "", "the base image, a multi-arch index: opm's (default "+indeximage.DefaultBinaryImage+") or olmcat's (make image)")
	f.StringVar(&b.server, "server", "", "what serves the catalog: opm or olmcat (default: what the base's entrypoint runs)")
	f.StringVar(&b.serverBinary, "server-binary", "", "with --server olmcat and no --base: the olmcat binary to put in the image (a static linux build for --platform; default: this olmcat)")
	f.StringVarP(&b.output, "output", "o", "text", "output format: text (the index digest) or json (reference, digest, each platform's digest)")
	f.BoolVar(&b.force, "force", false, "replace an existing oci-layout directory or docker archive (never an input)")
	f.BoolVar(&b.in.images.Insecure, "insecure", false, "allow plain HTTP and unverified TLS for image registries (localhost and loopback registries always allow HTTP)")
	addRegistryFlags(f, &b.in.images)
	f.BoolVar(&b.in.allowEmpty, "allow-empty", false, "accept a catalog without any blob (by default an input error, so that a wrong path fails)")
	b.in.templates = &templateInputs{}
	addTemplateFlags(f, b.in.templates)
	return cmd
}

// builtImage is what build answers with -o json.
type builtImage struct {
	Reference string          `json:"reference"`
	Digest    string          `json:"digest"`
	MediaType string          `json:"mediaType"`
	Base      string          `json:"base,omitempty"`
	Server    string          `json:"server"`
	Platforms []builtPlatform `json:"platforms"`
}

type builtPlatform struct {
	Platform string `json:"platform"`
	Digest   string `json:"digest"`
}

func runBuild(cmd *cobra.Command, ref string, b buildFlags) error {
	if b.output == "table" {
		b.output = "text" // as every command spells it too
	}
	if b.output != "text" && b.output != "json" {
		return usageError{fmt.Errorf("-o must be text or json, not %q", b.output)}
	}
	if b.toImage == "" {
		return usageError{errors.New("give --to-image REF: a registry reference, oci-layout:DIR or docker-archive:FILE")}
	}
	if b.server != "" && b.server != "opm" && b.server != "olmcat" {
		return usageError{fmt.Errorf("--server must be opm or olmcat, not %q", b.server)}
	}
	if b.serverBinary != "" && (b.server != "olmcat" || b.base != "") {
		return usageError{errors.New("--server-binary applies with --server olmcat and no --base (an olmcat base brings its own binaries)")}
	}
	stamp, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	all, asked, err := parseBuildPlatforms(b.platforms)
	if err != nil {
		return err
	}
	toArchive := indeximage.IsDockerArchive(b.toImage)
	if toArchive && (all || len(asked) > 1) {
		return usageError{fmt.Errorf("--to-image %s: a docker archive holds one platform's image, and %s asks for several: write to a registry or oci-layout:DIR, or give one --platform", b.toImage, b.platforms)}
	}
	prog := startProgress(cmd)
	prog.Phase("reading the base")

	// The base first: a refusal (platform, kind) comes before the catalog is read.
	plan := buildPlan{dest: b.toImage, force: b.force, stamp: stamp, images: b.in.images}
	switch {
	case b.base == "" && b.server == "olmcat":
		if all || len(asked) > 1 {
			return usageError{fmt.Errorf("--server olmcat for several platforms (%s) needs --base, an olmcat base image holding a binary for each (e.g. built with 'make image'); without --base olmcat builds one platform's image holding this binary", b.platforms)}
		}
		plan.server, plan.scratch, plan.binary = "olmcat", &asked[0], b.serverBinary
	default:
		baseRef := b.base
		if baseRef == "" {
			baseRef = indeximage.DefaultBinaryImage
		}
		if err := plan.openBase(cmd, baseRef, b, all, asked); err != nil {
			return err
		}
	}

	prog.Phase("reading")
	// A catalog image is the same catalog on every platform: read the first one built.
	switch {
	case len(plan.platforms) > 0:
		b.in.images.Platform = plan.platforms[0].Platform.String()
	case len(asked) > 0:
		b.in.images.Platform = asked[0].String()
	}
	src, err := b.in.open(cmd, ref)
	if err != nil && indeximage.IsImageRef(ref) && b.in.images.Platform != indeximage.DefaultPlatform {
		// A catalog image without that platform: its linux/amd64 image holds the same catalog.
		b.in.images.Platform = indeximage.DefaultPlatform
		if again, aerr := b.in.open(cmd, ref); aerr == nil {
			src, err = again, nil
		}
	}
	if err != nil {
		return err
	}
	defer src.Close()
	if p, ok := indeximage.LocalImagePath(b.toImage); ok {
		if err := source.CheckOutput(p, src); err != nil {
			return err
		}
	}
	configs, cleanup, err := catalogConfigsDir(cmd, src)
	if err != nil {
		return err
	}
	defer cleanup()
	res, err := plan.build(cmd, configs)
	if err != nil {
		return err
	}
	activeProgress(cmd).Close()
	if b.output == "json" {
		return writeJSONDoc(cmd.OutOrStdout(), res)
	}
	fmt.Fprintln(cmd.OutOrStdout(), res.Digest)
	fmt.Fprintf(summaryOut(cmd), "olmcat: wrote catalog image %s served by %s for %s (%s)\n", res.Reference, res.Server,
		strings.Join(platformList(res.Platforms), ", "), res.Digest)
	return nil
}

func platformList(ps []builtPlatform) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Platform)
	}
	return out
}

// parseBuildPlatforms reads --platform: all, or a comma-separated list of OS/ARCH[/VARIANT].
func parseBuildPlatforms(spec string) (all bool, ps []v1.Platform, err error) {
	if strings.TrimSpace(spec) == "all" {
		return true, nil, nil
	}
	seen := map[string]bool{}
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimSpace(s)
		p, perr := v1.ParsePlatform(s)
		if s == "" || perr != nil || p.OS == "" || p.Architecture == "" || strings.Count(s, "/") > 2 {
			return false, nil, usageError{fmt.Errorf("--platform %q: want OS/ARCH[/VARIANT] separated by commas (linux/amd64,linux/arm64), or all", spec)}
		}
		if seen[p.String()] {
			return false, nil, usageError{fmt.Errorf("--platform %q names %s twice", spec, p)}
		}
		seen[p.String()] = true
		ps = append(ps, *p)
	}
	return false, ps, nil
}

// sourceDateEpoch is SOURCE_DATE_EPOCH (reproducible-builds.org), zero when unset.
func sourceDateEpoch() (time.Time, error) {
	v, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok || v == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, usageError{fmt.Errorf("SOURCE_DATE_EPOCH=%q: want a number of seconds since 1970-01-01 UTC (date +%%s)", v)}
	}
	return time.Unix(n, 0).UTC(), nil
}

// buildPlan is what build does once the base is read.
type buildPlan struct {
	dest  string
	force bool
	stamp time.Time // SOURCE_DATE_EPOCH, zero if unset
	// images are the registry options of the destination (credentials, --insecure).
	images indeximage.Options

	server string // opm or olmcat
	// With a base: its ref, media type and each platform's image.
	base      *indeximage.Base
	platforms []indeximage.PlatformImage
	binary    string // the server's path in the base (its entrypoint)
	// Without a base (--server olmcat, one platform): the platform, the binary ("" = this olmcat).
	scratch *v1.Platform
}

// openBase reads the base, tells its kind from its entrypoint, and picks the platforms asked.
func (p *buildPlan) openBase(cmd *cobra.Command, ref string, b buildFlags, all bool, asked []v1.Platform) error {
	base, err := indeximage.OpenBase(cmd.Context(), ref, b.in.images)
	if err != nil && b.base == "" {
		return usageError{fmt.Errorf("the default base %s (opm's image, as 'opm generate dockerfile' uses it): %w; give --base, a multi-arch opm or olmcat image you can reach (a registry reference or oci-layout:DIR)", ref, err)}
	}
	if err != nil {
		return usageError{fmt.Errorf("--base %s: %w", ref, err)}
	}
	have, err := base.Platforms()
	if err != nil {
		return usageError{fmt.Errorf("--base %s: %w", ref, err)}
	}
	if all {
		asked = have
	}
	p.base = base
	for _, want := range asked {
		pi, err := base.Image(want)
		if err != nil {
			return usageError{fmt.Errorf("--base %s: %w", ref, err)}
		}
		if pi == nil {
			return usageError{fmt.Errorf("--base %s has no %s image; its platforms: %s", ref, want.String(), indeximage.PlatformNames(have))}
		}
		if slices.ContainsFunc(p.platforms, func(q indeximage.PlatformImage) bool { return q.Platform.String() == pi.Platform.String() }) {
			return usageError{fmt.Errorf("--platform names the base's %s twice", pi.Platform.String())}
		}
		cf, err := pi.Image.ConfigFile()
		if err != nil {
			return usageError{fmt.Errorf("--base %s: the %s image's config: %w", ref, want.String(), err)}
		}
		server, binary := baseServer(cf.Config)
		if server == "" {
			return usageError{fmt.Errorf("--base %s: its %s image's entrypoint is %s: build knows opm's base (entrypoint /bin/opm, as %s) and olmcat's (entrypoint /bin/olmcat, as 'make image' builds it)",
				ref, want.String(), describeCommand(cf.Config), indeximage.DefaultBinaryImage)}
		}
		if p.server != "" && (server != p.server || binary != p.binary) {
			return usageError{fmt.Errorf("--base %s: its images do not run the same server (%s in one, %s in %s): build on a base whose every platform runs one server", ref, p.binary, binary, want.String())}
		}
		p.server, p.binary = server, binary
		p.platforms = append(p.platforms, *pi)
	}
	if b.server != "" && b.server != p.server {
		return usageError{fmt.Errorf("--server %s, but --base %s is %s's base (its entrypoint is %s): drop --server, or give a base that runs %s", b.server, ref, p.server, p.binary, b.server)}
	}
	return nil
}

// baseServer tells what a base image runs from its entrypoint (or its command when it has
// none), as generate kube tells it: "opm" or "olmcat" and the binary's path; "" for anything else.
func baseServer(cfg v1.Config) (server, binary string) {
	program, path := imageProgram(cfg)
	if program == "opm" || program == "olmcat" {
		return program, path
	}
	return "", ""
}

// catalogConfigsDir is the File-Based Catalog directory of src that goes into the image: a local
// FBC directory as it is (as opm's Dockerfile adds it), anything else converted into a temporary
// directory, in opm's layout as 'olmcat migrate' writes it.
func catalogConfigsDir(cmd *cobra.Command, src *source.Source) (string, func(), error) {
	if src.Ref().Form == source.FormDir && src.Format() == source.FormatFBC && src.Image() == nil && src.Template() == "" && !isUnpackedCatalog(src.Path()) {
		return src.Path(), func() {}, nil
	}
	dir, remove, err := scratch.MkdirTemp("", "olmcat-build-")
	if err != nil {
		return "", nil, err
	}
	activeProgress(cmd).Phase("converting")
	expectPackages(cmd, src)
	out := filepath.Join(dir, "configs")
	if _, err := convert.Migrate(cmd.Context(), src, out, convert.MigrateOptions{Format: fbc.JSON}); err != nil {
		remove()
		return "", nil, loadFailure(src.String(), err)
	}
	return out, func() { remove() }, nil
}

// isUnpackedCatalog reports whether dir is an 'olmcat unpack' directory, whose objects/ are not
// a catalog opm reads: it is converted like any other input.
func isUnpackedCatalog(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "objects"))
	return err == nil && fi.IsDir()
}

// build writes the serve cache of configs, builds the image(s) and writes them to the destination.
func (p *buildPlan) build(cmd *cobra.Command, configs string) (builtImage, error) {
	ctx := cmd.Context()
	cache, remove, err := scratch.MkdirTemp("", "olmcat-build-cache-")
	if err != nil {
		return builtImage{}, err
	}
	defer remove()
	activeProgress(cmd).Phase("building the serve cache")
	if p.server == "opm" {
		// opm verifies its cache against a digest of /configs and the cache, permission bits
		// included: the catalog it is computed over must have the modes the layer gives it.
		var done func()
		if configs, done, err = normalizedConfigs(configs); err != nil {
			return builtImage{}, err
		}
		defer done()
		if err = os.Chmod(cache, 0o750); err == nil { // as opm makes its cache directory
			err = writeOPMCache(ctx, configs, cache)
		}
	} else {
		err = writeOlmcatCache(ctx, configs, cache)
	}
	if err != nil {
		return builtImage{}, fmt.Errorf("build the %s serve cache of %s: %w", p.server, configs, err)
	}
	activeProgress(cmd).Phase("building the layers")
	var idx v1.ImageIndex
	if p.scratch != nil {
		img, err := olmcatImageFromScratch(configs, cache, p.binary, *p.scratch, p.stamp)
		if err != nil {
			return builtImage{}, err
		}
		idx = indeximage.SinglePlatformIndex(img, *p.scratch)
	} else {
		spool, removeSpool, err := scratch.MkdirTemp("", "olmcat-build-layers-")
		if err != nil {
			return builtImage{}, err
		}
		defer removeSpool()
		opts := indeximage.BuildOptions{CacheDir: cache, Created: p.stamp, LayerTime: p.stamp, OPMBinary: p.binary, CacheAsRun: p.server == "opm", SpoolDir: spool}
		if idx, err = indeximage.BuildCatalogIndex(p.platforms, configs, opts, p.base.IndexType()); err != nil {
			return builtImage{}, fmt.Errorf("build on --base %s: %w", p.base.Ref, err)
		}
	}
	activeProgress(cmd).Phase("writing the image")
	return writeBuiltIndex(cmd, idx, p.dest, p.force, p.images, p.server, p.baseRef())
}

func (p *buildPlan) baseRef() string {
	if p.base == nil {
		return ""
	}
	return p.base.Ref
}

// writeBuiltIndex writes a built catalog image index to dest (its one image for a docker
// archive) and says what it wrote.
func writeBuiltIndex(cmd *cobra.Command, idx v1.ImageIndex, dest string, force bool, opts indeximage.Options, server, base string) (builtImage, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return builtImage{}, err
	}
	res := builtImage{Reference: dest, Server: server, Base: base}
	for _, d := range im.Manifests {
		res.Platforms = append(res.Platforms, builtPlatform{Platform: d.Platform.String(), Digest: d.Digest.String()})
	}
	var digest v1.Hash
	if indeximage.IsDockerArchive(dest) {
		if len(im.Manifests) != 1 {
			return builtImage{}, usageError{fmt.Errorf("--to-image %s: a docker archive holds one platform's image, not %d", dest, len(im.Manifests))}
		}
		img, err := idx.Image(im.Manifests[0].Digest)
		if err != nil {
			return builtImage{}, err
		}
		res.MediaType = "application/x-tar" // docker save's
		if _, err = indeximage.WriteImage(cmd.Context(), img, dest, force, opts); err != nil {
			return builtImage{}, outputError{fmt.Errorf("write the catalog image to %s: %w", dest, err)}
		}
		// A docker archive keeps no manifest ('docker load' makes its own): the image is known by
		// its ID, the digest of its config, as docker load and podman load print it.
		if digest, err = img.ConfigName(); err != nil {
			return builtImage{}, err
		}
		res.Platforms[0].Digest = digest.String()
	} else {
		mt, err := idx.MediaType()
		if err != nil {
			return builtImage{}, err
		}
		res.MediaType = string(mt)
		digest, err = indeximage.WriteIndex(cmd.Context(), idx, dest, force, opts)
		if err != nil {
			return builtImage{}, outputError{fmt.Errorf("write the catalog image to %s: %w", dest, err)}
		}
	}
	res.Digest = digest.String()
	return res, nil
}

// writeOlmcatCache writes olmcat's serve cache of configs into cache, as 'olmcat serve
// --cache-only' builds it.
func writeOlmcatCache(ctx context.Context, configs, cache string) error {
	catalog, err := source.Open(ctx, configs, source.Options{})
	if err != nil {
		return err
	}
	defer catalog.Close()
	backend, err := catalog.Backend(ctx, source.BackendOptions{CacheDir: cache, Reproducible: true})
	if err != nil {
		return err
	}
	return backend.Close()
}

// olmcatImageFromScratch is one platform's catalog image from scratch holding an olmcat binary
// (binary, or this olmcat when ""), the catalog and its serve cache.
func olmcatImageFromScratch(configs, cache, binary string, platform v1.Platform, stamp time.Time) (v1.Image, error) {
	if binary == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find this olmcat's binary for the image: %w (give --server-binary)", err)
		}
		binary = self
	}
	if platform.OS != "linux" {
		return nil, usageError{fmt.Errorf("--platform %s: an olmcat server image is linux/ARCH", platform.String())}
	}
	img, err := indeximage.BuildServerImage(configs, indeximage.ServerImageOptions{Binary: binary, Platform: platform, CacheDir: cache, Created: stamp, LayerTime: stamp})
	if err != nil {
		return nil, usageError{err}
	}
	return img, nil
}

// normalizedConfigs is a copy of the catalog directory configs whose directories are 0755 and
// files 0644, the modes its image layer gives them, symbolic links kept as they are: opm's cache
// digest is computed over it, and must be what opm computes over /configs in the image.
func normalizedConfigs(configs string) (string, func(), error) {
	dir, remove, err := scratch.MkdirTemp("", "olmcat-build-configs-")
	if err != nil {
		return "", nil, err
	}
	out := filepath.Join(dir, "configs")
	err = filepath.WalkDir(configs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(configs, p)
		if err != nil {
			return err
		}
		target := filepath.Join(out, rel)
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, 0o755); err != nil {
				return err
			}
			return os.Chmod(target, 0o755) // whatever the umask
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFileMode(p, target, 0o644)
		}
		return fmt.Errorf("%s: only regular files, directories and symlinks can go into an image layer (found %s)", p, d.Type())
	})
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("copy the catalog %s for the image: %w", configs, err)
	}
	return out, func() { remove() }, nil
}

func copyFileMode(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(to, mode)
}
