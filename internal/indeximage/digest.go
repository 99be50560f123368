package indeximage

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Resolution is what a registry reference names, learnt without pulling the image.
type Resolution struct {
	// Registry is the registry host the reference names ("index.docker.io" for docker.io).
	Registry string
	// Digest is the digest of the manifest (or multi-arch index) the reference names.
	Digest v1.Hash
	// Pinned: the reference is a digest, so no request was made.
	Pinned bool
	// DigestRef is REGISTRY/REPOSITORY@DIGEST: the same image, whatever happens to the tag.
	DigestRef string
}

// IsRegistryRef reports whether ref names an image in a registry (not oci-layout: or
// docker-archive:, not a local path).
func IsRegistryRef(ref string) bool {
	parsed, err := parseImageRef(ref, false)
	return err == nil && parsed.kind == sourceRegistry && IsImageRef(ref)
}

// RegistryHost is the registry a registry reference names, "" when ref is not one.
func RegistryHost(ref string) string {
	parsed, err := parseImageRef(ref, false)
	if err != nil || parsed.kind != sourceRegistry {
		return ""
	}
	return parsed.named.Context().RegistryStr()
}

// ResolveDigest finds the digest a registry reference names: a digest reference as it is, without
// a request; a tag with one HEAD request for its manifest (a GET when the registry does not
// answer HEAD). Nothing else is read.
func ResolveDigest(ctx context.Context, ref string, opts Options) (Resolution, error) {
	parsed, err := parseImageRef(ref, opts.plainHTTP())
	if err != nil {
		return Resolution{}, err
	}
	if parsed.kind != sourceRegistry {
		return Resolution{}, errors.New(ref + " is not a registry reference")
	}
	res := Resolution{Registry: parsed.named.Context().RegistryStr()}
	if d, ok := parsed.named.(name.Digest); ok {
		h, err := v1.NewHash(d.DigestStr())
		if err != nil {
			return Resolution{}, registryError(parsed, err)
		}
		res.Digest, res.Pinned, res.DigestRef = h, true, d.String()
		return res, nil
	}
	desc, err := remote.Head(parsed.named, opts.remoteOptions(ctx)...)
	var terr *transport.Error
	if err != nil && errors.As(err, &terr) && terr.StatusCode == http.StatusMethodNotAllowed {
		var full *remote.Descriptor
		if full, err = remote.Get(parsed.named, opts.remoteOptions(ctx)...); err == nil {
			desc = &full.Descriptor
		}
	}
	if err != nil {
		return Resolution{}, registryError(parsed, err)
	}
	res.Digest = desc.Digest
	res.DigestRef = parsed.named.Context().Digest(desc.Digest.String()).String()
	return res, nil
}
