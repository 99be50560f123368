package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/olmcat/olmcat/fbc/filter"
)

// mirrorDest is the value of filter's --images-mapping: REGISTRY[/PREFIX], where the images are
// mirrored to.
type mirrorDest struct{ registry, prefix string }

// parseMirrorDest reads REGISTRY[/PREFIX] (docker:// accepted, as oc-mirror writes it): a
// registry host, then a repository path prefix; no tag, no digest.
func parseMirrorDest(s string) (mirrorDest, error) {
	t := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "docker://"), "/")
	host, prefix, _ := strings.Cut(t, "/")
	if host == "" {
		return mirrorDest{}, fmt.Errorf("--images-mapping %q: give the mirror registry, REGISTRY[/PREFIX], e.g. mirror.example.com:5000/olm", s)
	}
	if _, err := name.NewRegistry(host, name.WeakValidation); err != nil || strings.ContainsAny(host, "@ ") {
		return mirrorDest{}, fmt.Errorf("--images-mapping %q: %q is not a registry host (HOST or HOST:PORT)", s, host)
	}
	if prefix != "" {
		if strings.ContainsAny(prefix, "@: ") {
			return mirrorDest{}, fmt.Errorf("--images-mapping %q: the prefix %q is a repository path, without tag or digest", s, prefix)
		}
		if _, err := name.NewRepository(host+"/"+prefix+"/x", name.WeakValidation); err != nil {
			return mirrorDest{}, fmt.Errorf("--images-mapping %q: %q is not a repository path: %v", s, prefix, err)
		}
	}
	return mirrorDest{registry: host, prefix: prefix}, nil
}

// destination is where image is mirrored: its repository path under REGISTRY/PREFIX, as oc-mirror
// names mirrored images (registry.redhat.io/ubi8/ubi -> REGISTRY/PREFIX/ubi8/ubi). A tag
// reference keeps its tag; a digest reference gets the repository alone, which `oc image mirror`
// reads as "push by digest" (it takes no digest in a destination), so the digest is kept.
func (d mirrorDest) destination(image string) (string, error) {
	ref, err := name.ParseReference(image, name.WeakValidation)
	if err != nil {
		return "", fmt.Errorf("image %q cannot be mapped to the mirror: %v", image, err)
	}
	repo := ref.Context().RepositoryStr()
	dest := d.registry + "/"
	if d.prefix != "" {
		dest += d.prefix + "/"
	}
	dest += repo
	if strings.Contains(image, "@") {
		return dest, nil
	}
	return dest + ":" + ref.Identifier(), nil
}

// imageMapping writes the --images file as a mapping, one SOURCE=DESTINATION line per image, the
// file `oc image mirror -f FILE` reads.
type imageMapping struct {
	r    *filter.Report
	dest mirrorDest
}

func (m imageMapping) WriteJSON(w io.Writer) error {
	b := bufio.NewWriter(w)
	for _, img := range m.r.Images {
		dst, err := m.dest.destination(img)
		if err != nil {
			return usageError{err}
		}
		fmt.Fprintf(b, "%s=%s\n", img, dst)
	}
	return b.Flush()
}
