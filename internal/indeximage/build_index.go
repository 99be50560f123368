package indeximage

import (
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BuildFBCIndex is BuildFBCImage for a multi-arch index image: every platform's image is rebuilt
// on its own layers, all sharing one /configs layer, so that clusters of every architecture the
// index served keep a catalog image. Attestation and other non-image entries are left out: they
// describe the old images.
func BuildFBCIndex(base v1.ImageIndex, configsDir string, opts BuildOptions) (v1.ImageIndex, error) {
	mt, err := base.MediaType()
	if err != nil {
		return nil, fmt.Errorf("base index: %w", err)
	}
	im, err := base.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("base index: %w", err)
	}
	b := newBuilder(configsDir, opts)
	var adds []mutate.IndexAddendum
	for _, d := range im.Manifests {
		if (d.MediaType != types.OCIManifestSchema1 && d.MediaType != types.DockerManifestSchema2) || isAttestation(d) {
			continue
		}
		child, err := base.Image(d.Digest)
		if err != nil {
			return nil, fmt.Errorf("base index: image %s: %w", d.Digest, err)
		}
		img, err := b.image(child)
		if err != nil {
			return nil, fmt.Errorf("base index: image %s (%s): %w", d.Digest, platformName(d.Platform), err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: d.Platform}})
	}
	if len(adds) == 0 {
		return nil, fmt.Errorf("base index has no platform image to build on")
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, mt), adds...), nil
}

// isAttestation recognizes buildx's provenance/SBOM manifests ("unknown/unknown" platform,
// vnd.docker.reference.type annotation).
func isAttestation(d v1.Descriptor) bool {
	return d.Annotations["vnd.docker.reference.type"] != "" || (d.Platform != nil && d.Platform.OS == "unknown")
}

func platformName(p *v1.Platform) string {
	if p == nil {
		return "no platform"
	}
	return p.String()
}
