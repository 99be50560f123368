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

// mapping is the SOURCE=DESTINATION line of image, named as oc-mirror v2 names mirrored images
// (its dry-run mapping.txt, without the docker:// transports `oc image mirror` does not take): the
// source's repository path under REGISTRY/PREFIX (registry.redhat.io/ubi8/ubi ->
// REGISTRY/PREFIX/ubi8/ubi); a tag keeps its tag; a digest gets the tag sha256-HEX, so that the
// mirrored manifest (the same digest: oc image mirror copies it unchanged) has a tag no registry
// collects as garbage; a reference with a tag and a digest is pulled by its digest and gets its tag.
func (d mirrorDest) mapping(image string) (string, error) {
	ref, err := name.ParseReference(image, name.WeakValidation)
	if err != nil {
		return "", fmt.Errorf("image %q cannot be mapped to the mirror: %v", image, err)
	}
	repo := ref.Context()
	dest := d.registry + "/"
	if d.prefix != "" {
		dest += d.prefix + "/"
	}
	dest += repo.RepositoryStr()
	src := image
	if dg, ok := ref.(name.Digest); ok {
		algo, hex, _ := strings.Cut(dg.DigestStr(), ":")
		tag := algo + "-" + hex
		// repo:tag@digest: pulled by its digest, mirrored under its tag (oc-mirror's OCPBUGS-33196).
		base, digest, _ := strings.Cut(image, "@")
		if slash, colon := strings.LastIndex(base, "/"), strings.LastIndex(base, ":"); colon > slash {
			src, tag = base[:colon]+"@"+digest, base[colon+1:]
		}
		return src + "=" + dest + ":" + tag, nil
	}
	return src + "=" + dest + ":" + ref.Identifier(), nil
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
		line, err := m.dest.mapping(img)
		if err != nil {
			return usageError{err}
		}
		fmt.Fprintln(b, line)
	}
	return b.Flush()
}
