package indeximage

import (
	"fmt"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// Transport prefixes accepted in image references (the same spellings as skopeo's).
const (
	OCILayoutPrefix     = "oci-layout:"
	DockerArchivePrefix = "docker-archive:"
	RegistryPrefix      = "docker://"
)

type sourceKind int

const (
	sourceRegistry sourceKind = iota
	sourceOCILayout
	sourceDockerArchive
)

// imageRef is a parsed image reference.
type imageRef struct {
	raw    string
	kind   sourceKind
	path   string         // OCI layout directory or docker archive file
	tag    string         // OCI layout: org.opencontainers.image.ref.name to select ("" = the only image)
	digest string         // OCI layout: manifest digest to select
	named  name.Reference // registry reference; docker archive: optional image inside the archive
}

// IsImageRef reports whether s names an image rather than a local catalog file or directory:
// "oci-layout:DIR[:TAG|@DIGEST]", "docker-archive:FILE[:REPO:TAG]", "docker://REF", or a registry
// reference whose first component is a registry host ("quay.io/ns/index:v4.12",
// "localhost:5000/index@sha256:..."). Anything that exists on the local filesystem is not an
// image reference, so a directory that happens to be called "quay.io/x" is still read as one.
func IsImageRef(s string) bool {
	for _, p := range []string{OCILayoutPrefix, DockerArchivePrefix, RegistryPrefix} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if _, err := os.Lstat(s); err == nil {
		return false
	}
	return looksLikeRegistryRef(s)
}

func looksLikeRegistryRef(s string) bool {
	host, rest, ok := strings.Cut(s, "/")
	if !ok || rest == "" {
		return false
	}
	if strings.HasPrefix(host, ".") || (host != "localhost" && !strings.ContainsAny(host, ".:")) {
		return false
	}
	_, err := name.ParseReference(s)
	return err == nil
}

func parseImageRef(s string, insecure bool) (imageRef, error) {
	ref := imageRef{raw: s}
	switch {
	case strings.HasPrefix(s, OCILayoutPrefix):
		ref.kind = sourceOCILayout
		return ref, ref.parseLayout(strings.TrimPrefix(s, OCILayoutPrefix))
	case strings.HasPrefix(s, DockerArchivePrefix):
		ref.kind = sourceDockerArchive
		return ref, ref.parseArchive(strings.TrimPrefix(s, DockerArchivePrefix))
	}
	ref.kind = sourceRegistry
	var opts []name.Option
	if insecure {
		opts = append(opts, name.Insecure)
	}
	named, err := name.ParseReference(strings.TrimPrefix(s, RegistryPrefix), opts...)
	if err != nil {
		return ref, fmt.Errorf("image reference %q: %w (expected REGISTRY/REPOSITORY[:TAG|@DIGEST], oci-layout:DIR[:TAG|@DIGEST] or docker-archive:FILE)", s, err)
	}
	ref.named = named
	return ref, nil
}

// parseLayout splits "DIR", "DIR:TAG" or "DIR@sha256:...". A DIR that exists as given wins; else
// the split is at the first colon after an existing directory, or at the last colon.
func (r *imageRef) parseLayout(spec string) error {
	if spec == "" {
		return fmt.Errorf("image reference %q: missing directory after %s", r.raw, OCILayoutPrefix)
	}
	if i := strings.LastIndex(spec, "@"); i >= 0 && strings.Contains(spec[i:], ":") {
		r.path, r.digest = spec[:i], spec[i+1:]
		return nil
	}
	r.path = spec
	if fi, err := os.Stat(spec); err == nil && fi.IsDir() {
		return nil
	}
	split := -1
	for i := 0; i < len(spec); i++ {
		if spec[i] != ':' {
			continue
		}
		if fi, err := os.Stat(spec[:i]); err == nil && fi.IsDir() {
			split = i // the tag may itself hold colons: "DIR:quay.io/ns/index:v1"
			break
		}
	}
	if i := strings.LastIndex(spec, ":"); split < 0 && i > 0 && !strings.Contains(spec[i+1:], "/") {
		split = i
	}
	if split >= 0 {
		r.path, r.tag = spec[:split], spec[split+1:]
		if r.tag == "" {
			return fmt.Errorf("image reference %q: empty tag after the directory", r.raw)
		}
	}
	return nil
}

// parseArchive splits "FILE" or "FILE:REPO:TAG" at the first colon where FILE exists.
func (r *imageRef) parseArchive(spec string) error {
	if spec == "" {
		return fmt.Errorf("image reference %q: missing file after %s", r.raw, DockerArchivePrefix)
	}
	r.path = spec
	if _, err := os.Stat(spec); err == nil {
		return nil
	}
	for i := 0; i < len(spec); i++ {
		if spec[i] != ':' {
			continue
		}
		if fi, err := os.Stat(spec[:i]); err == nil && !fi.IsDir() {
			tag, err := name.NewTag(spec[i+1:])
			if err != nil {
				return fmt.Errorf("image reference %q: %q after the archive name is not a REPO:TAG: %w", r.raw, spec[i+1:], err)
			}
			r.path, r.named = spec[:i], tag
			return nil
		}
	}
	return nil // the missing file is reported when it is opened
}
