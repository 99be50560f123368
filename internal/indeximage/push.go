package indeximage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// A PushSource is a local image opened to be pushed whole, as `crane push` or `skopeo copy` push
// one: an image, or an image index with every child manifest and blob (all platforms, nested
// indexes, attestation manifests), from an OCI layout; or the one image of a docker archive.
//
// Nothing is read beyond what the layout's manifests name, each file of the layout is reached as
// every layout read reaches it (layout_read.go: no link followed, no FIFO opened, metadata read
// within bounds), and before a byte is sent every manifest is checked against the digest that
// names it, every config against its manifest, and every layer blob is found with the size its
// manifest records; the layer blobs are then hashed as they stream to the registry
// (layoutverify.go), so a tampered layout is refused in olmcat's words, not the registry's.
type PushSource struct {
	Ref string // as the user gave it
	// Kind says what is pushed: "image index" or "image".
	Kind string
	// Digest is the digest of the manifest or index pushed: what the registry serves under the tag.
	Digest v1.Hash
	// Manifests counts the manifests and indexes pushed (the top one included); Blobs the distinct
	// configs and layers; Bytes their sizes and the manifests', as the registry stores them.
	Manifests, Blobs int
	Bytes            int64

	top   artifact // v1.Image or v1.ImageIndex
	close func()
}

// Close releases the layout directory.
func (s *PushSource) Close() {
	if s.close != nil {
		s.close()
		s.close = nil
	}
}

// OpenPushSource opens "oci-layout:DIR[:TAG|@DIGEST]" or "docker-archive:FILE[:REPO:TAG]" to be
// pushed. A layout holding several entries needs :TAG or @DIGEST: the error lists the entries.
// Errors start with ref.
func OpenPushSource(ref string) (*PushSource, error) {
	parsed, err := parseImageRef(ref, false)
	if err != nil {
		return nil, err
	}
	switch parsed.kind {
	case sourceOCILayout:
		return openPushLayout(parsed)
	case sourceDockerArchive:
		return openPushArchive(parsed)
	}
	return nil, fmt.Errorf("%s: a registry image is not a local image: push reads oci-layout:DIR[:TAG|@DIGEST] or docker-archive:FILE (to copy between registries use skopeo copy or crane copy)", ref)
}

func openPushLayout(ref imageRef) (*PushSource, error) {
	dir, err := openLayoutDir(ref.path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s is not an OCI image layout (no readable directory): %w", ref.raw, ref.path, err)
	}
	s, err := pushLayoutIn(ref, dir)
	if err != nil {
		dir.close()
		return nil, err
	}
	s.close = dir.close
	return s, nil
}

func pushLayoutIn(ref imageRef, dir *layoutDir) (*PushSource, error) {
	idx, err := dir.indexJSON()
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %s is not an OCI image layout (no readable index.json): %w", ref.raw, ref.path, err)
		}
		return nil, fmt.Errorf("%s: %w", ref.raw, err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("%s: read index.json: %w", ref.raw, err)
	}
	desc, err := selectLayoutEntry(ref, im.Manifests)
	if err != nil {
		return nil, err
	}
	s := &PushSource{Ref: ref.raw, Digest: desc.Digest}
	w := &pushWalk{dir: dir, where: fmt.Sprintf("%s@%s", ref.path, desc.Digest), seen: map[v1.Hash]bool{}}
	root := &pushIndex{rootedIndex: idx, walk: w}
	switch {
	case desc.MediaType.IsIndex():
		child, err := root.ImageIndex(desc.Digest)
		if err != nil {
			return nil, err
		}
		s.Kind, s.top = "image index", child
		err = w.index(child)
		if err != nil {
			return nil, err
		}
	case desc.MediaType.IsImage():
		img, err := root.Image(desc.Digest)
		if err != nil {
			return nil, err
		}
		s.Kind, s.top = "image", img
		if err := w.image(img); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: entry %s has media type %q, which is neither an image manifest nor an image index", w.where, desc.Digest, desc.MediaType)
	}
	s.Manifests, s.Blobs, s.Bytes = w.manifests, w.blobs, w.bytes
	return s, nil
}

// pushWalk checks and counts what a layout entry pushes.
type pushWalk struct {
	dir       *layoutDir
	where     string
	seen      map[v1.Hash]bool
	manifests int
	blobs     int
	bytes     int64
}

func (w *pushWalk) index(idx v1.ImageIndex) error {
	raw, err := idx.RawManifest()
	if err != nil {
		return err
	}
	w.manifests++
	w.bytes += int64(len(raw))
	m, err := idx.IndexManifest()
	if err != nil {
		return fmt.Errorf("%s: parse image index: %w", w.where, err)
	}
	for _, d := range m.Manifests {
		switch {
		case d.MediaType.IsIndex():
			child, err := idx.ImageIndex(d.Digest)
			if err != nil {
				return err
			}
			if err := w.index(child); err != nil {
				return err
			}
		case d.MediaType.IsImage():
			img, err := idx.Image(d.Digest)
			if err != nil {
				return err
			}
			if err := w.image(img); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: the image index lists %s with media type %q, which is neither an image manifest nor an image index: olmcat push does not copy it", w.where, d.Digest, d.MediaType)
		}
	}
	return nil
}

func (w *pushWalk) image(img v1.Image) error {
	raw, err := img.RawManifest()
	if err != nil {
		return err
	}
	w.manifests++
	w.bytes += int64(len(raw))
	m, err := img.Manifest()
	if err != nil {
		return fmt.Errorf("%s: parse manifest: %w", w.where, err)
	}
	blobs := append([]v1.Descriptor{m.Config}, m.Layers...)
	for i, d := range blobs {
		if w.seen[d.Digest] {
			continue
		}
		w.seen[d.Digest] = true
		if i > 0 && !d.MediaType.IsDistributable() {
			continue // a foreign layer: not pushed, as registries expect
		}
		what := "the config"
		if i > 0 {
			what = fmt.Sprintf("layer %d of %d", i, len(m.Layers))
		}
		fi, err := w.dir.stat(blobPath(d.Digest))
		if err != nil {
			return fmt.Errorf("%s: %s (%s) cannot be pushed: %w", w.where, what, d.Digest, err)
		}
		if fi.Size() != d.Size {
			return fmt.Errorf("%s: %s (%s) has %d bytes in the layout, the manifest records %d: the layout is damaged", w.where, what, d.Digest, fi.Size(), d.Size)
		}
		w.blobs++
		w.bytes += d.Size
	}
	return nil
}

// pushIndex is an image index of a layout whose children are checked against the digests that
// name them when they are first asked for, and then kept: the walk and the push see the same bytes.
type pushIndex struct {
	*rootedIndex
	walk *pushWalk

	mu      sync.Mutex
	images  map[v1.Hash]v1.Image
	indexes map[v1.Hash]v1.ImageIndex
}

func (i *pushIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if c, ok := i.indexes[h]; ok {
		return c, nil
	}
	if err := i.checkSize(h); err != nil {
		return nil, err
	}
	c, err := i.rootedIndex.ImageIndex(h)
	if err != nil {
		return nil, fmt.Errorf("%s: image index %s: %w", i.walk.where, h, err)
	}
	raw, err := c.RawManifest()
	if err != nil {
		return nil, err
	}
	if got, _, _ := v1.SHA256(bytes.NewReader(raw)); got != h {
		return nil, fmt.Errorf("%s: the image index %s hashes to %s, not to the digest that names it: the blob is corrupt or was tampered with", i.walk.where, h, got)
	}
	child := &pushIndex{rootedIndex: c.(*rootedIndex), walk: i.walk}
	if i.indexes == nil {
		i.indexes = map[v1.Hash]v1.ImageIndex{}
	}
	i.indexes[h] = child
	return child, nil
}

func (i *pushIndex) Image(h v1.Hash) (v1.Image, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if c, ok := i.images[h]; ok {
		return c, nil
	}
	if err := i.checkSize(h); err != nil {
		return nil, err
	}
	img, err := i.rootedIndex.Image(h)
	if err != nil {
		return nil, fmt.Errorf("%s: image %s: %w", i.walk.where, h, err)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, fmt.Errorf("%s: image %s: %w", i.walk.where, h, err)
	}
	if got, _, _ := v1.SHA256(bytes.NewReader(raw)); got != h {
		return nil, fmt.Errorf("%s: the manifest %s hashes to %s, not to the digest that names it: the blob is corrupt or was tampered with", i.walk.where, h, got)
	}
	m, err := v1.ParseManifest(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: image %s: parse manifest: %w", i.walk.where, h, err)
	}
	if err := i.checkSize(m.Config.Digest); err != nil {
		return nil, err
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s: image %s: read config %s: %w", i.walk.where, h, m.Config.Digest, err)
	}
	if got, _, _ := v1.SHA256(bytes.NewReader(config)); got != m.Config.Digest {
		return nil, fmt.Errorf("%s: image %s: the config blob hashes to %s, not to %s as the manifest says: the blob is corrupt or was tampered with", i.walk.where, h, got, m.Config.Digest)
	}
	c := &verifiedLayoutImage{Image: img}
	if i.images == nil {
		i.images = map[v1.Hash]v1.Image{}
	}
	i.images[h] = c
	return c, nil
}

// checkSize refuses a manifest, index or config blob too large to be one before it is read.
func (i *pushIndex) checkSize(h v1.Hash) error {
	fi, err := i.dir.stat(blobPath(h))
	if err != nil {
		return fmt.Errorf("%s: blob %s: %w", i.walk.where, h, err)
	}
	if fi.Size() > maxMetadataBlob {
		return fmt.Errorf("%s: blob %s has %s, more than a manifest or config holds (%s at most): the layout is damaged", i.walk.where, h, FormatSize(fi.Size()), FormatSize(maxMetadataBlob))
	}
	return nil
}

func openPushArchive(ref imageRef) (*PushSource, error) {
	if fi, err := os.Stat(ref.path); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("%s: %s is not a readable file (expected a `docker save` archive)", ref.raw, ref.path)
	}
	var tag *name.Tag
	if t, ok := ref.named.(name.Tag); ok {
		tag = &t
	}
	opener := func() (io.ReadCloser, error) { return os.Open(ref.path) }
	if tag == nil {
		if m, err := tarball.LoadManifest(opener); err == nil && len(m) > 1 {
			var names []string
			for _, d := range m {
				names = append(names, orNone(strings.Join(d.RepoTags, " ")))
			}
			sort.Strings(names)
			return nil, fmt.Errorf("%s: the archive holds %d images (%s): name one with docker-archive:FILE:REPO:TAG", ref.raw, len(m), strings.Join(names, ", "))
		}
	}
	img, err := tarball.Image(opener, tag)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable docker-save archive: %w", ref.raw, err)
	}
	digest, err := img.Digest() // compresses the layers a docker archive keeps uncompressed
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref.raw, err)
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref.raw, err)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref.raw, err)
	}
	s := &PushSource{Ref: ref.raw, Kind: "image", Digest: digest, Manifests: 1, top: img, Bytes: int64(len(raw))}
	seen := map[v1.Hash]bool{}
	for _, d := range append([]v1.Descriptor{m.Config}, m.Layers...) {
		if !seen[d.Digest] {
			seen[d.Digest] = true
			s.Blobs++
			s.Bytes += d.Size
		}
	}
	return s, nil
}

// ParsePushDestination parses the registry reference an image is pushed to: REGISTRY/REPO[:TAG]
// or REGISTRY/REPO@DIGEST, or docker://NAME (the only way to name Docker Hub's short names: a
// bare "index" could as well be a mistyped directory). It is not an OCI layout or docker archive.
func ParsePushDestination(dest string, opts Options) (name.Reference, error) {
	hint := "write REGISTRY/REPOSITORY[:TAG|@DIGEST], e.g. quay.io/ns/index:v4.18; docker://NAME for Docker Hub"
	switch {
	case strings.HasPrefix(dest, OCILayoutPrefix), strings.HasPrefix(dest, DockerArchivePrefix):
		return nil, fmt.Errorf("push destination %q: push writes to a registry, not to a local image (%s)", dest, hint)
	case !strings.HasPrefix(dest, RegistryPrefix) && !looksLikeRegistryRef(dest):
		why := "it does not start with a registry host"
		if _, err := name.ParseReference(dest); err != nil {
			why = err.Error()
		}
		return nil, fmt.Errorf("push destination %q is not a registry reference: %s (%s)", dest, why, hint)
	}
	ref, err := parseImageRef(dest, opts.plainHTTP())
	if err != nil {
		return nil, fmt.Errorf("push destination %q is not a registry reference: %v (%s)", dest, errors.Unwrap(err), hint)
	}
	return ref.named, nil
}

// Push pushes s to dest (see ParsePushDestination) with opts' credentials and --insecure
// settings, and returns the pushed digest as REPOSITORY@DIGEST. Blobs and manifests the registry
// already has are not sent again. A dest naming a digest must name s's. progress, if not nil, is
// called as bytes are sent, with the bytes sent and the bytes to send (those the registry lacks),
// from one goroutine, and no more once Push returns.
func (s *PushSource) Push(ctx context.Context, dest name.Reference, opts Options, progress func(sent, total int64)) (name.Digest, error) {
	if d, ok := dest.(name.Digest); ok && d.DigestStr() != s.Digest.String() {
		return name.Digest{}, fmt.Errorf("push destination %s names digest %s, but %s is %s: give a tag, or the digest of what is pushed", dest, d.DigestStr(), s.Ref, s.Digest)
	}
	ropts := opts.remoteOptions(ctx)
	if progress != nil {
		updates := make(chan v1.Update, 64)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for u := range updates { // closed by go-containerregistry when the push ends
				if u.Error == nil {
					progress(u.Complete, u.Total)
				}
			}
		}()
		defer func() { <-done }()
		ropts = append(ropts, remote.WithProgress(updates))
	}
	var err error
	switch top := s.top.(type) {
	case v1.ImageIndex:
		err = remote.WriteIndex(dest, top, ropts...)
	case v1.Image:
		err = remote.Write(dest, top, ropts...)
	}
	if err != nil {
		return name.Digest{}, pushError(dest, err)
	}
	return dest.Context().Digest(s.Digest.String()), nil
}

// pushError words a failed push: what the registry said, and what to do.
func pushError(dest name.Reference, err error) error {
	host := dest.Context().RegistryStr()
	if errors.Is(err, context.Canceled) {
		return err
	}
	msg := err.Error()
	var terr *transport.Error
	if i := strings.Index(msg, "content digest mismatch: "); i >= 0 {
		// A layer of the source failed its check as it streamed (layoutverify.go).
		detail := strings.TrimSuffix(msg[i:], ": pull again or rebuild the image")
		return fmt.Errorf("push to %s stopped and the tag was not written: a layer blob of the source is not the one its manifest names: %s; write the source again", dest, detail)
	}
	switch {
	case strings.Contains(msg, "x509:") || strings.Contains(msg, "failed to verify certificate"):
		return fmt.Errorf("push to %s: the registry's TLS certificate is not trusted: add its CA to the system trust store, or pass --skip-tls-verify (or --insecure) to skip verification: %w", dest, err)
	case strings.Contains(msg, "http: server gave HTTP response to HTTPS client"):
		return fmt.Errorf("push to %s: the registry speaks plain HTTP; pass --use-http (or --insecure) to allow it: %w", dest, err)
	case errors.As(err, &terr):
		switch terr.StatusCode {
		case 401, 403:
			return fmt.Errorf("push to %s: the registry %s refused the push (HTTP %d): log in with `docker login %s` or `podman login %s` (credentials are read from the docker/podman config and credential helpers), and check that you may push to %s: %w", dest, host, terr.StatusCode, host, host, dest.Context(), err)
		}
		return fmt.Errorf("push to %s: the registry %s answered HTTP %d: %w", dest, host, terr.StatusCode, err)
	case strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host") || strings.Contains(msg, "network is unreachable") || strings.Contains(msg, "i/o timeout"):
		return fmt.Errorf("push to %s: cannot reach the registry %s (check the address and that the registry is up): %w", dest, host, err)
	}
	return fmt.Errorf("push to %s: %w", dest, err)
}
