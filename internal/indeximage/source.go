package indeximage

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/olmcat/olmcat/internal/nofollow"
)

// DefaultPlatform is the image picked from a multi-arch index when Options.Platform is empty.
// Catalog content does not depend on the architecture; this only decides which manifest to read.
const DefaultPlatform = "linux/amd64"

// Options configure how images are found and read. The zero value reads public or
// docker-login'ed registries over HTTPS (plain HTTP for localhost and loopback addresses).
type Options struct {
	// Platform selects the image of a multi-arch index: "os/arch[/variant]"; "" means linux/amd64.
	Platform string
	// Insecure allows plain HTTP and unverified TLS certificates for every registry.
	Insecure bool
	// UseHTTP allows plain HTTP for every registry (opm's --use-http); SkipTLSVerify accepts
	// any TLS certificate (opm's --skip-tls-verify). Insecure is both.
	UseHTTP, SkipTLSVerify bool
	// Keychain provides registry credentials; nil means authn.DefaultKeychain (docker/podman
	// config files and credential helpers, $DOCKER_CONFIG, $REGISTRY_AUTH_FILE).
	Keychain authn.Keychain
	// Transport overrides the HTTP transport (tests, proxies); retries are added on top.
	Transport http.RoundTripper
	// TempDir is where Fetch extracts the catalog; "" means os.TempDir().
	TempDir string
	// Limits bound what one Fetch may extract or read.
	Limits Limits
	// RegistryTimeout bounds each wait for a registry's response headers, and for more of a body
	// that stopped moving (a body that keeps moving is never cut off); 0 means
	// DefaultRegistryTimeout. ConnectTimeout and TLSTimeout bound the connection and its TLS
	// handshake (0: DefaultConnectTimeout, DefaultTLSTimeout); they are unused with Transport.
	RegistryTimeout, ConnectTimeout, TLSTimeout time.Duration
	// Untrusted, when set, is the policy of the image references a file names rather than the
	// command line (a catalog template's bundle images): CheckUntrusted applies it before a pull,
	// and every registry address the pull dials is checked against it.
	Untrusted *RefPolicy

	fastRetries bool // tests: do not wait seconds between retries of failed requests
}

// resolved is an image picked from its source, with what is known cheaply about it.
type resolved struct {
	img    v1.Image
	index  v1.ImageIndex // the multi-arch index img was picked from, nil for a single image
	digest v1.Hash       // manifest digest; zero for docker archives (computing it would recompress them)
	// blobsVerified: the source checks each layer blob against its digest (registries).
	blobsVerified bool
	where         string // how errors name the image
	// checkSize, if set, refuses a manifest or config blob too large to read into memory before
	// it is read (OCI layouts, whose files may hold anything).
	checkSize func(v1.Hash) error
}

func (o Options) platform() (v1.Platform, error) {
	spec := o.Platform
	if spec == "" {
		spec = DefaultPlatform
	}
	p, err := v1.ParsePlatform(spec)
	if err != nil || p.OS == "" || p.Architecture == "" {
		return v1.Platform{}, fmt.Errorf("platform %q: want OS/ARCH[/VARIANT], e.g. linux/amd64 or linux/arm64/v8", spec)
	}
	return *p, nil
}

// CheckUntrusted refuses ref when Untrusted is set and refuses it (see RefPolicy.Check); the
// error is a *RefusedError.
func (o Options) CheckUntrusted(ref string) error { return o.Untrusted.Check(ref) }

// plainHTTP reports whether plain HTTP is allowed for every registry, not only for localhost and
// loopback addresses.
func (o Options) plainHTTP() bool { return o.Insecure || o.UseHTTP }

func (o Options) remoteOptions(ctx context.Context) []remote.Option {
	kc := o.Keychain
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(kc), remote.WithUserAgent("olmcat")}
	base := o.Transport
	if base == nil && o.Untrusted != nil {
		base = o.Untrusted.transport(o.Insecure || o.SkipTLSVerify)
	}
	if base == nil {
		base = sharedBaseTransport(o)
	}
	opts = append(opts, remote.WithTransport(newRegistryTransport(base, o)))
	if o.fastRetries {
		opts = append(opts, remote.WithRetryBackoff(remote.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 2}))
	}
	return opts
}

// resolveRef parses ref (see IsImageRef) and resolves it.
func resolveRef(ctx context.Context, ref string, opts Options) (resolved, error) {
	parsed, err := parseImageRef(ref, opts.plainHTTP())
	if err != nil {
		return resolved{}, err
	}
	return resolve(ctx, parsed, opts)
}

func resolve(ctx context.Context, ref imageRef, opts Options) (resolved, error) {
	plat, err := opts.platform()
	if err != nil {
		return resolved{}, err
	}
	switch ref.kind {
	case sourceOCILayout:
		// Its files are read without following a link (layout_read.go), its layers checked
		// against its manifest as they stream (layoutverify.go), and its manifest parsed once
		// however many layers it has (rootedImage.parsedManifest).
		return resolveLayout(ref, plat)
	case sourceDockerArchive:
		return resolveArchive(ref)
	}
	return resolveRemote(ctx, ref, plat, opts)
}

func resolveRemote(ctx context.Context, ref imageRef, plat v1.Platform, opts Options) (resolved, error) {
	where := ref.named.String()
	// One puller for the manifest, the config and every layer: one token, one set of connections.
	puller, err := remote.NewPuller(opts.remoteOptions(ctx)...)
	if err != nil {
		return resolved{}, registryError(ref, err)
	}
	desc, err := puller.Get(ctx, ref.named)
	if err != nil {
		return resolved{}, registryError(ref, err)
	}
	switch desc.MediaType {
	case types.OCIImageIndex, types.DockerManifestList:
		idx, err := desc.ImageIndex()
		if err != nil {
			return resolved{}, registryError(ref, err)
		}
		idx = &describedIndex{imageIndex: idx, ctx: ctx, blob: registryBlobs(ctx, puller, ref.named.Context())}
		r, err := pickFromIndex(idx, plat, where, nil)
		if err != nil {
			return resolved{}, registryError(ref, err)
		}
		r.blobsVerified = true
		return r, nil
	case types.OCIManifestSchema1, types.DockerManifestSchema2:
		img, err := desc.Image()
		if err != nil {
			return resolved{}, registryError(ref, err)
		}
		r := resolved{img: newDescribedImage(ctx, img, registryBlobs(ctx, puller, ref.named.Context())), digest: desc.Digest, where: fmt.Sprintf("%s@%s", ref.named.Context(), desc.Digest), blobsVerified: true}
		return r, checkManifest(r)
	case types.DockerManifestSchema1, types.DockerManifestSchema1Signed:
		return resolved{}, fmt.Errorf("image %s is a Docker schema 1 manifest, which olmcat does not read: re-push it with a current docker/podman/skopeo", where)
	default:
		return resolved{}, fmt.Errorf("image %s has media type %q, which is neither an image manifest nor an image index: is the reference pointing at a signature, SBOM or other artifact?", where, desc.MediaType)
	}
}

// maxMetadataBlob bounds the index.json, image index, manifest and config of an OCI layout, each
// read whole into memory: real ones are kilobytes.
const maxMetadataBlob = 4 << 20

func resolveLayout(ref imageRef, plat v1.Platform) (resolved, error) {
	dir, err := openLayoutDir(ref.path)
	if err != nil {
		return resolved{}, fmt.Errorf("%s: %s is not an OCI image layout (no readable directory): %w", ref.raw, ref.path, err)
	}
	// The directory stays open for as long as the image is read: the os.Root's finalizer closes
	// it once nothing refers to the image any more.
	return resolveLayoutIn(ref, dir, plat)
}

// resolveLayoutIn resolves the image ref names in the layout dir.
func resolveLayoutIn(ref imageRef, dir *layoutDir, plat v1.Platform) (resolved, error) {
	idx, err := dir.indexJSON()
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return resolved{}, fmt.Errorf("%s: %s is not an OCI image layout (no readable index.json): %w", ref.raw, ref.path, err)
		}
		return resolved{}, fmt.Errorf("%s: %w", ref.raw, err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return resolved{}, fmt.Errorf("%s: read index.json: %w", ref.raw, err)
	}
	desc, err := selectLayoutEntry(ref, im.Manifests)
	if err != nil {
		return resolved{}, err
	}
	where := fmt.Sprintf("%s@%s", ref.path, desc.Digest)
	checkSize := func(h v1.Hash) error {
		fi, err := dir.stat(blobPath(h))
		if err == nil && fi.Size() > maxMetadataBlob {
			return fmt.Errorf("%s: blob %s has %s, more than a manifest or config holds (%s at most): the layout is damaged", where, h, FormatSize(fi.Size()), FormatSize(maxMetadataBlob))
		}
		var nr *nofollow.NotRegularError
		if errors.As(err, &nr) {
			return fmt.Errorf("%s: blob %s: %w", where, h, err)
		}
		return nil // a missing blob is reported when it is read
	}
	switch desc.MediaType {
	case types.OCIImageIndex, types.DockerManifestList:
		if err := checkSize(desc.Digest); err != nil {
			return resolved{}, err
		}
		child, err := idx.ImageIndex(desc.Digest)
		if err != nil {
			return resolved{}, fmt.Errorf("%s: %w", where, err)
		}
		raw, err := child.RawManifest()
		if err != nil {
			return resolved{}, fmt.Errorf("%s: %w", where, err)
		}
		if got, _, _ := v1.SHA256(bytes.NewReader(raw)); got != desc.Digest {
			return resolved{}, fmt.Errorf("image %s: the image index hashes to %s, not to the digest that names it: the blob is corrupt or was tampered with", where, got)
		}
		return withVerifiedLayers(pickFromIndex(child, plat, where, checkSize))
	case types.OCIManifestSchema1, types.DockerManifestSchema2:
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return resolved{}, fmt.Errorf("%s: %w", where, err)
		}
		r := resolved{img: img, digest: desc.Digest, where: where, checkSize: checkSize}
		return withVerifiedLayers(r, checkManifest(r))
	default:
		return resolved{}, fmt.Errorf("%s: entry has media type %q, which is neither an image manifest nor an image index", where, desc.MediaType)
	}
}

const refNameAnnotation = "org.opencontainers.image.ref.name"

func selectLayoutEntry(ref imageRef, entries []v1.Descriptor) (v1.Descriptor, error) {
	var names []string
	for _, d := range entries {
		n := d.Annotations[refNameAnnotation]
		names = append(names, fmt.Sprintf("%s (%s)", orNone(n), d.Digest))
		switch {
		case ref.digest != "" && d.Digest.String() == ref.digest:
			return d, nil
		case ref.tag != "" && (n == ref.tag || strings.HasSuffix(n, ":"+ref.tag)):
			return d, nil
		}
	}
	if ref.digest == "" && ref.tag == "" && len(entries) == 1 {
		return entries[0], nil
	}
	want := "an image"
	switch {
	case ref.digest != "":
		want = "digest " + ref.digest
	case ref.tag != "":
		want = "tag " + ref.tag
	case len(entries) > 1:
		want = "a single image (it holds several: add :TAG or @DIGEST)"
	}
	return v1.Descriptor{}, fmt.Errorf("%s: the OCI layout %s has no entry for %s; its entries: %s", ref.raw, ref.path, want, orNone(strings.Join(names, ", ")))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func resolveArchive(ref imageRef) (resolved, error) {
	if fi, err := os.Stat(ref.path); err != nil || fi.IsDir() {
		return resolved{}, fmt.Errorf("%s: %s is not a readable file (expected a `docker save` archive)", ref.raw, ref.path)
	}
	var tag *name.Tag
	if t, ok := ref.named.(name.Tag); ok {
		tag = &t
	}
	img, err := tarball.ImageFromPath(ref.path, tag)
	if err != nil {
		hint := ""
		if tag == nil {
			hint = " (an archive holding several images needs docker-archive:FILE:REPO:TAG)"
		}
		return resolved{}, fmt.Errorf("%s: not a readable docker-save archive: %w%s", ref.raw, err, hint)
	}
	return resolved{img: img, where: ref.path}, nil
}

// pickFromIndex chooses the manifest for plat from a multi-arch index. An index whose only image
// has no platform recorded is accepted whatever plat says.
func pickFromIndex(idx v1.ImageIndex, plat v1.Platform, where string, checkSize func(v1.Hash) error) (resolved, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return resolved{}, fmt.Errorf("%s: read image index: %w", where, err)
	}
	var images []v1.Descriptor
	var available []string
	for _, d := range im.Manifests {
		if d.MediaType != types.OCIManifestSchema1 && d.MediaType != types.DockerManifestSchema2 {
			continue
		}
		images = append(images, d)
		if d.Platform == nil {
			available = append(available, "(no platform)")
			continue
		}
		available = append(available, d.Platform.String())
		if d.Platform.Satisfies(plat) {
			return imageFromIndex(idx, d, where, checkSize)
		}
	}
	if len(images) == 1 && images[0].Platform == nil {
		return imageFromIndex(idx, images[0], where, checkSize)
	}
	sort.Strings(available)
	return resolved{}, fmt.Errorf("%s: the image index has no %s image (it has: %s); choose one with --platform", where, plat.String(), orNone(strings.Join(available, ", ")))
}

func imageFromIndex(idx v1.ImageIndex, d v1.Descriptor, where string, checkSize func(v1.Hash) error) (resolved, error) {
	img, err := idx.Image(d.Digest)
	if err != nil {
		return resolved{}, fmt.Errorf("%s: image %s: %w", where, d.Digest, err)
	}
	r := resolved{img: img, index: idx, digest: d.Digest, where: fmt.Sprintf("%s -> %s", where, d.Digest), checkSize: checkSize}
	return r, checkManifest(r)
}

// checkManifest refuses manifests that are not container images (Helm charts, signatures, other
// OCI artifacts) before any layer is read.
func checkManifest(r resolved) error {
	if r.checkSize != nil {
		if err := r.checkSize(r.digest); err != nil {
			return err
		}
	}
	raw, err := r.img.RawManifest()
	if err != nil {
		return fmt.Errorf("image %s: read manifest: %w", r.where, err)
	}
	if got, _, _ := v1.SHA256(bytes.NewReader(raw)); r.digest.Hex != "" && got != r.digest {
		return fmt.Errorf("image %s: the manifest hashes to %s, not to the digest that names it: the blob is corrupt or was tampered with", r.where, got)
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("image %s: parse manifest: %w", r.where, err)
	}
	if r.checkSize != nil {
		if err := r.checkSize(m.Config.Digest); err != nil {
			return err
		}
	}
	// A config is read whole before its digest can be checked: refuse one declared larger than a
	// config is, before a byte of it is read (the reader stops at the declared size).
	if limit := (Limits{}).WithDefaults().MaxManifestBytes; m.Config.Size > limit || m.Config.Size < 0 {
		return fmt.Errorf("image %s: the manifest declares a config of %d bytes, more than a config holds: %w (the image is damaged or hostile, or set %s to a higher value, e.g. %s=%s)",
			r.where, m.Config.Size, ErrLimitExceeded, EnvMaxManifestBytes, EnvMaxManifestBytes, FormatSize(2*limit))
	}
	rawConfig, err := r.img.RawConfigFile()
	if err != nil {
		return fmt.Errorf("image %s: read config %s: %w", r.where, m.Config.Digest, err)
	}
	if got, _, _ := v1.SHA256(bytes.NewReader(rawConfig)); got != m.Config.Digest {
		return fmt.Errorf("image %s: the config blob hashes to %s, not to %s as the manifest says: the blob is corrupt or was tampered with", r.where, got, m.Config.Digest)
	}
	switch m.Config.MediaType {
	case types.DockerConfigJSON, types.OCIConfigJSON:
	default:
		return fmt.Errorf("image %s is not a container image: its config has media type %q (an OCI artifact such as a Helm chart or signature?); give the reference of an index image", r.where, m.Config.MediaType)
	}
	for i, l := range m.Layers {
		if !tarLayerMediaType(l.MediaType) {
			return fmt.Errorf("image %s: layer %d of %d (%s) has media type %q, which is not a tar layer olmcat can read", r.where, i+1, len(m.Layers), l.Digest, l.MediaType)
		}
	}
	return nil
}

func tarLayerMediaType(mt types.MediaType) bool {
	switch mt {
	case types.DockerLayer, types.DockerUncompressedLayer, types.OCILayer, types.OCILayerZStd,
		types.OCIUncompressedLayer, types.OCIRestrictedLayer, types.OCIUncompressedRestrictedLayer:
		return true
	}
	return false
}

// registryError turns go-containerregistry's transport errors into advice.
func registryError(ref imageRef, err error) error {
	if msg := err.Error(); strings.Contains(msg, "x509:") || strings.Contains(msg, "failed to verify certificate") {
		return fmt.Errorf("image %s: the registry's TLS certificate is not trusted: add its CA to the system trust store, or pass --skip-tls-verify (or --insecure) to skip verification: %w", ref.raw, err)
	}
	var timeout *RegistryTimeoutError
	if errors.As(err, &timeout) {
		return fmt.Errorf("image %s: %w", ref.raw, timeout)
	}
	if errors.Is(err, ErrTooManyRedirects) {
		return fmt.Errorf("image %s: %w", ref.raw, err)
	}
	var terr *transport.Error
	if errors.As(err, &terr) {
		host := ref.named.Context().RegistryStr()
		switch terr.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("image %s: the registry %s refused access (HTTP %d): log in with `docker login %s` or `podman login %s` (credentials are read from the docker/podman config and credential helpers), and check that the repository exists and you may pull it: %w", ref.raw, host, terr.StatusCode, host, host, err)
		case http.StatusNotFound:
			return fmt.Errorf("image %s not found in %s (HTTP 404): check the repository, tag or digest: %w", ref.raw, host, err)
		}
		return fmt.Errorf("image %s: registry %s answered HTTP %d: %w", ref.raw, host, terr.StatusCode, err)
	}
	if strings.Contains(err.Error(), "http: server gave HTTP response to HTTPS client") {
		return fmt.Errorf("image %s: the registry speaks plain HTTP; pass --use-http (or --insecure) to allow it: %w", ref.raw, err)
	}
	return fmt.Errorf("image %s: %w", ref.raw, err)
}

// baseTransports are the HTTP transports registry requests share, one per kind of settings: a
// transport made for each pull keeps its own pool of idle connections, with their buffers and
// goroutines, for as long as the command runs (a template of 1,500 images held 70 MB more).
var baseTransports sync.Map // baseTransportKey -> *http.Transport

type baseTransportKey struct {
	connect, tls time.Duration
	skipVerify   bool
}

// sharedBaseTransport is the transport of o's connect and TLS timeouts and certificate checking.
func sharedBaseTransport(o Options) *http.Transport {
	key := baseTransportKey{connect: firstPositiveDuration(o.ConnectTimeout, DefaultConnectTimeout),
		tls: firstPositiveDuration(o.TLSTimeout, DefaultTLSTimeout), skipVerify: o.Insecure || o.SkipTLSVerify}
	if t, ok := baseTransports.Load(key); ok {
		return t.(*http.Transport)
	}
	t := newRegistryTransport(nil, o).base.(*http.Transport)
	if key.skipVerify {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure asked for it
	}
	actual, _ := baseTransports.LoadOrStore(key, t)
	return actual.(*http.Transport)
}
