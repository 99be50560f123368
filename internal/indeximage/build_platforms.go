package indeximage

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Base is the base image of `olmcat build`: a multi-arch index (or a single image, a one-platform
// base), its platforms listed without reading any image.
type Base struct {
	Ref   string
	index v1.ImageIndex // nil for a single image
	image v1.Image      // the single image
	// entries are the index's platform images (attestations and unknown platforms left out).
	entries []v1.Descriptor
	// indexType is the media type of the base's index ("" for a single image).
	indexType types.MediaType
}

// OpenBase reads the base image ref names (a registry reference, oci-layout:DIR[:TAG|@DIGEST] or
// docker-archive:FILE): its index manifest, or its one image's manifest and config.
func OpenBase(ctx context.Context, ref string, opts Options) (*Base, error) {
	parsed, err := parseImageRef(ref, opts.plainHTTP())
	if err != nil {
		return nil, err
	}
	b := &Base{Ref: ref}
	switch parsed.kind {
	case sourceDockerArchive:
		r, err := resolveArchive(parsed)
		if err != nil {
			return nil, err
		}
		b.image = r.img
	case sourceOCILayout:
		dir, err := openLayoutDir(parsed.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %s is not an OCI image layout (no readable directory): %w", ref, parsed.path, err)
		}
		root, err := dir.indexJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %s is not an OCI image layout (no readable index.json): %w", ref, parsed.path, err)
		}
		im, err := root.IndexManifest()
		if err != nil {
			return nil, fmt.Errorf("%s: read index.json: %w", ref, err)
		}
		desc, err := selectLayoutEntry(parsed, im.Manifests)
		if err != nil {
			return nil, err
		}
		switch desc.MediaType {
		case types.OCIImageIndex, types.DockerManifestList:
			child, err := root.ImageIndex(desc.Digest)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			raw, err := child.RawManifest()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			if got, _, _ := v1.SHA256(bytes.NewReader(raw)); got != desc.Digest {
				return nil, fmt.Errorf("%s: the image index hashes to %s, not to the digest that names it: the blob is corrupt or was tampered with", ref, got)
			}
			b.index, b.indexType = child, desc.MediaType
		default:
			r, err := resolveLayoutIn(parsed, dir, v1.Platform{})
			if err != nil {
				return nil, err
			}
			b.image = r.img
		}
	default:
		idx, mt, err := remoteIndex(ctx, parsed, opts)
		if err != nil {
			return nil, err
		}
		if idx != nil {
			b.index, b.indexType = idx, mt
			break
		}
		r, err := resolveRemote(ctx, parsed, v1.Platform{}, opts)
		if err != nil {
			return nil, err
		}
		b.image = r.img
	}
	if b.index != nil {
		im, err := b.index.IndexManifest()
		if err != nil {
			return nil, fmt.Errorf("%s: read image index: %w", ref, err)
		}
		for _, d := range im.Manifests {
			if (d.MediaType == types.OCIManifestSchema1 || d.MediaType == types.DockerManifestSchema2) && d.Platform != nil && !isAttestation(d) {
				b.entries = append(b.entries, d)
			}
		}
		if len(b.entries) == 0 {
			return nil, fmt.Errorf("%s: the image index lists no image of a known platform to build on", ref)
		}
	}
	return b, nil
}

// remoteIndex reads the image index a registry reference names; nil when it names an image.
func remoteIndex(ctx context.Context, ref imageRef, opts Options) (v1.ImageIndex, types.MediaType, error) {
	puller, err := remote.NewPuller(opts.remoteOptions(ctx)...)
	if err != nil {
		return nil, "", registryError(ref, err)
	}
	desc, err := puller.Get(ctx, ref.named)
	if err != nil {
		return nil, "", registryError(ref, err)
	}
	if desc.MediaType != types.OCIImageIndex && desc.MediaType != types.DockerManifestList {
		return nil, "", nil
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, "", registryError(ref, err)
	}
	return &describedIndex{imageIndex: idx, ctx: ctx, blob: registryBlobs(ctx, puller, ref.named.Context())}, desc.MediaType, nil
}

// Platforms are the base's platforms, sorted.
func (b *Base) Platforms() ([]v1.Platform, error) {
	if b.index == nil {
		cf, err := b.image.ConfigFile()
		if err != nil {
			return nil, fmt.Errorf("%s: read config: %w", b.Ref, err)
		}
		p := cf.Platform()
		if p == nil || p.OS == "" || p.Architecture == "" {
			return nil, fmt.Errorf("%s: the image's config records no OS/architecture: it cannot be the base of a platform's catalog image", b.Ref)
		}
		return []v1.Platform{*p}, nil
	}
	var ps []v1.Platform
	for _, d := range b.entries {
		ps = append(ps, *d.Platform)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].String() < ps[j].String() })
	return ps, nil
}

// PlatformNames lists platforms as "linux/amd64, linux/arm64".
func PlatformNames(ps []v1.Platform) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.String())
	}
	return strings.Join(names, ", ")
}

// Image is the base's image for p: the entry of the same OS and architecture, and of the same
// variant when p names one (linux/arm64 finds linux/arm64/v8), with the platform the base records
// for it; nil when the base has none.
func (b *Base) Image(p v1.Platform) (*PlatformImage, error) {
	if b.index == nil {
		ps, err := b.Platforms()
		if err != nil {
			return nil, err
		}
		if !platformMatches(ps[0], p) {
			return nil, nil
		}
		return &PlatformImage{Platform: ps[0], Image: b.image}, nil
	}
	for _, d := range b.entries {
		if platformMatches(*d.Platform, p) {
			img, err := b.index.Image(d.Digest)
			if err != nil {
				return nil, fmt.Errorf("%s: image %s (%s): %w", b.Ref, d.Digest, d.Platform, err)
			}
			r := resolved{img: img, digest: d.Digest, where: fmt.Sprintf("%s -> %s", b.Ref, d.Digest)}
			if err := checkManifest(r); err != nil {
				return nil, err
			}
			return &PlatformImage{Platform: *d.Platform, Image: img}, nil
		}
	}
	return nil, nil
}

// platformMatches: same OS and architecture, and the same variant when want names one.
func platformMatches(have, want v1.Platform) bool {
	return have.OS == want.OS && have.Architecture == want.Architecture && (want.Variant == "" || have.Variant == want.Variant)
}

// PlatformImage is one platform's base image.
type PlatformImage struct {
	Platform v1.Platform
	Image    v1.Image
}

// BuildCatalogIndex builds a catalog image on each platform's base image (BuildFBCImage's work:
// the /configs layer, the serve cache layer, labels, entrypoint and command) and gathers them in
// one image index. The new layers are made once and shared by every platform's image: they have
// one digest. indexType is the index's media type ("" for OCI).
func BuildCatalogIndex(bases []PlatformImage, configsDir string, opts BuildOptions, indexType types.MediaType) (v1.ImageIndex, error) {
	if indexType == "" {
		indexType = types.OCIImageIndex
	}
	b := newBuilder(configsDir, opts)
	var adds []mutate.IndexAddendum
	for _, base := range bases {
		img, err := b.image(base.Image)
		if err != nil {
			return nil, fmt.Errorf("base image of %s: %w", base.Platform.String(), err)
		}
		p := base.Platform
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, indexType), adds...), nil
}

// IndexType is the media type of the base's index, "" for a single image.
func (b *Base) IndexType() types.MediaType { return b.indexType }

// SinglePlatformIndex is an OCI image index holding img alone, for platform.
func SinglePlatformIndex(img v1.Image, platform v1.Platform) v1.ImageIndex {
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &platform}})
}
