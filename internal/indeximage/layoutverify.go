package indeximage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// An OCI layout's layer blobs are files whoever writes the layout may have changed (a bundle cache
// restored by a CI job is one). Each is checked against the digest its manifest records for it,
// as a registry client checks a pulled blob, on the compressed bytes as they are read: the
// manifest is checked against the digest the image was asked by (checkManifest), so a layer that
// hashes to what the manifest says is the layer. Checking the content against the config's diff
// ID instead, as an image of unknown origin is checked, proves the same but hashes the
// uncompressed content, several times larger (on a machine without SHA instructions it was the
// largest CPU cost of reading a warm cache).

// withVerifiedLayers makes the layers of a layout image r check their blobs against the manifest
// (blobsVerified: the diff IDs need not be checked again).
func withVerifiedLayers(r resolved, err error) (resolved, error) {
	if err != nil {
		return r, err
	}
	r.img = &verifiedLayoutImage{Image: r.img}
	r.blobsVerified = true
	return r, nil
}

type verifiedLayoutImage struct{ v1.Image }

func (i *verifiedLayoutImage) Layers() ([]v1.Layer, error) {
	layers, err := i.Image.Layers()
	if err != nil {
		return nil, err
	}
	m, err := i.Image.Manifest() // the bytes checkManifest checked (the layout keeps them once read)
	if err != nil {
		return nil, err
	}
	if len(m.Layers) != len(layers) {
		return nil, fmt.Errorf("the manifest lists %d layers but the image has %d", len(m.Layers), len(layers))
	}
	var diffIDs []v1.Hash
	if cf, err := i.Image.ConfigFile(); err == nil && cf != nil && len(cf.RootFS.DiffIDs) == len(layers) {
		diffIDs = cf.RootFS.DiffIDs
	}
	out := make([]v1.Layer, len(layers))
	for n, l := range layers {
		vl := &verifiedLayoutLayer{l: l, desc: m.Layers[n]}
		if diffIDs != nil {
			vl.diffID = diffIDs[n]
		}
		if out[n], err = partial.CompressedToLayer(vl); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// verifiedLayoutLayer is a layer whose blob is checked against its descriptor as it is read.
type verifiedLayoutLayer struct {
	l      v1.Layer
	desc   v1.Descriptor
	diffID v1.Hash // from the config, when it lists one per layer
}

func (l *verifiedLayoutLayer) Digest() (v1.Hash, error)            { return l.desc.Digest, nil }
func (l *verifiedLayoutLayer) Size() (int64, error)                { return l.desc.Size, nil }
func (l *verifiedLayoutLayer) MediaType() (types.MediaType, error) { return l.desc.MediaType, nil }

// DiffID is the one the config (checked against the manifest) lists for the layer: without it
// go-containerregistry hashes the whole uncompressed layer to answer (an index image built on a
// layout base asks it of each).
func (l *verifiedLayoutLayer) DiffID() (v1.Hash, error) {
	if l.diffID.Hex != "" {
		return l.diffID, nil
	}
	return l.l.DiffID()
}

func (l *verifiedLayoutLayer) Compressed() (io.ReadCloser, error) {
	if l.desc.Digest.Algorithm != "sha256" {
		return nil, fmt.Errorf("layer digest %s is not sha256", l.desc.Digest)
	}
	if l.desc.Size < 0 {
		return nil, fmt.Errorf("layer %s: the manifest records a negative size", l.desc.Digest)
	}
	rc, err := l.l.Compressed()
	if err != nil {
		return nil, err
	}
	return &verifyingReader{rc: rc, want: l.desc, h: sha256.New()}, nil
}

// verifyingReader hashes a blob as it is read and fails the read that reaches its end, or goes
// past its recorded size, when it is not the blob its descriptor names. Close reads what was left
// unread and fails the same way, so that a blob is checked however much of it its reader needed.
type verifyingReader struct {
	rc     io.ReadCloser
	want   v1.Descriptor
	h      hash.Hash
	n      int64
	err    error // the verdict once reached: io.EOF when the blob verified
	closed bool
}

func (r *verifyingReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if room := r.want.Size + 1 - r.n; int64(len(p)) > room {
		p = p[:room] // one byte past the size is enough to tell a blob too long
	}
	n, err := r.rc.Read(p)
	r.n += int64(n)
	r.h.Write(p[:n])
	switch {
	case r.n > r.want.Size:
		r.err = r.mismatch(fmt.Sprintf("the layer blob is longer than the %d bytes the manifest records", r.want.Size))
		return 0, r.err
	case errors.Is(err, io.EOF):
		r.err = r.verdict()
		if r.err != io.EOF {
			return 0, r.err
		}
	case err != nil:
		r.err = err
	}
	return n, err
}

// verdict is io.EOF when the whole blob read is the one its descriptor names.
func (r *verifyingReader) verdict() error {
	if got := hex.EncodeToString(r.h.Sum(nil)); got != r.want.Digest.Hex {
		return r.mismatch("the layer blob hashes to sha256:" + got)
	}
	if r.n != r.want.Size {
		return r.mismatch(fmt.Sprintf("the layer blob has %d bytes", r.n))
	}
	return io.EOF
}

func (r *verifyingReader) mismatch(what string) error {
	return fmt.Errorf("content digest mismatch: %s but the manifest records %s (%d bytes); the blob is corrupt or was tampered with: pull again or rebuild the image", what, r.want.Digest, r.want.Size)
}

func (r *verifyingReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.err == nil {
		buf := make([]byte, 32<<10)
		for r.err == nil {
			if _, err := r.Read(buf); err != nil && r.err == nil {
				r.err = err
			}
		}
	}
	cerr := r.rc.Close()
	if r.err != io.EOF {
		return r.err
	}
	return cerr
}
