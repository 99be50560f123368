package indeximage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"
	"sync/atomic"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// FetchBundleKeeping is FetchBundle that also keeps, in a new OCI image layout at dir, what a
// later read needs to extract the same bundle and what proves it: the manifest the reference
// resolves to (and the multi-arch index it was picked from, the entry of the layout's index.json),
// the config, and the layer blobs the extraction read, each written as it streams through, so that
// nothing is downloaded twice. FetchBundle(OCILayoutPrefix + dir + "@" + DIGEST), DIGEST the
// digest the reference resolved to, then reads the same bundle back, every blob checked against
// the digest that names it: the index or manifest against DIGEST, the platform's manifest against
// the index, the config against the manifest, each layer blob against the manifest.
//
// keepErr says why dir does not hold all of it (a write failed, e.g. the disk is full): the bundle
// is still right, but dir is not to be kept.
func FetchBundleKeeping(ctx context.Context, ref string, opts Options, dir string) (b *Bundle, keepErr error, err error) {
	res, err := resolveRef(ctx, ref, opts)
	if err != nil {
		return nil, nil, err
	}
	// Everything is written through the directory opened here: a link put in the cache meanwhile
	// (in place of the directory holding dir, say) cannot send a write elsewhere.
	k := &keeper{dir: dir}
	img := res.img
	root, err := os.OpenRoot(dir)
	if err == nil {
		defer root.Close()
		k.root = root
		err = k.writeMetadata(res)
	}
	if err != nil {
		k.fail(err)
	} else {
		img = &keptImage{Image: res.img, k: k}
	}
	b, err = bundleOf(ctx, img, res.where, opts, res.blobsVerified)
	if err != nil {
		return nil, nil, err
	}
	b.Ref, b.Digest = ref, res.digest
	return b, k.failed(), nil
}

// keeper writes an image's blobs into an OCI layout and remembers the first write that failed.
type keeper struct {
	dir  string   // for messages
	root *os.Root // dir, opened
	seq  atomic.Int64
	mu   sync.Mutex
	err  error
}

func (k *keeper) fail(err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err == nil {
		k.err = err
	}
}

func (k *keeper) failed() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// writeMetadata writes the index (if any), the manifest and the config, and lists the top one in
// index.json under the digest its bytes hash to.
func (k *keeper) writeMetadata(res resolved) error {
	if err := k.root.WriteFile("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		return err
	}
	var top v1.Descriptor
	if res.index != nil {
		raw, err := res.index.RawManifest()
		if err != nil {
			return err
		}
		mt, err := res.index.MediaType()
		if err != nil {
			return err
		}
		if top, err = k.writeBlob(raw, mt); err != nil {
			return err
		}
	}
	raw, err := res.img.RawManifest()
	if err != nil {
		return err
	}
	mt, err := res.img.MediaType()
	if err != nil {
		return err
	}
	manifest, err := k.writeBlob(raw, mt)
	if err != nil {
		return err
	}
	if res.index == nil {
		top = manifest
	}
	config, err := res.img.RawConfigFile()
	if err != nil {
		return err
	}
	if _, err := k.writeBlob(config, ""); err != nil {
		return err
	}
	index, err := json.Marshal(v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, Manifests: []v1.Descriptor{top}})
	if err != nil {
		return err
	}
	return k.root.WriteFile("index.json", index, 0o644)
}

const keptBlobs = "blobs/sha256"

func (k *keeper) writeBlob(data []byte, mt types.MediaType) (v1.Descriptor, error) {
	h, n, err := v1.SHA256(bytes.NewReader(data))
	if err != nil {
		return v1.Descriptor{}, err
	}
	if err := k.root.MkdirAll(keptBlobs, 0o755); err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{MediaType: mt, Size: n, Digest: h}, k.root.WriteFile(keptBlobs+"/"+h.Hex, data, 0o644)
}

// keptImage is an image whose layers are kept as they are read.
type keptImage struct {
	v1.Image
	k *keeper
}

func (i *keptImage) Layers() ([]v1.Layer, error) {
	layers, err := i.Image.Layers()
	if err != nil {
		return nil, err
	}
	kept := make([]v1.Layer, len(layers))
	for n, l := range layers {
		if kept[n], err = partial.CompressedToLayer(&keptLayer{l: l, k: i.k}); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

// keptLayer is a layer whose compressed blob is written to the layout while it is read.
type keptLayer struct {
	l v1.Layer
	k *keeper
}

func (l *keptLayer) Digest() (v1.Hash, error)            { return l.l.Digest() }
func (l *keptLayer) Size() (int64, error)                { return l.l.Size() }
func (l *keptLayer) MediaType() (types.MediaType, error) { return l.l.MediaType() }

func (l *keptLayer) Compressed() (io.ReadCloser, error) {
	rc, err := l.l.Compressed()
	if err != nil || l.k.failed() != nil {
		return rc, err
	}
	digest, err := l.l.Digest()
	if err == nil && digest.Algorithm != "sha256" {
		err = fmt.Errorf("layer digest %s is not sha256", digest)
	}
	var f *os.File
	tmp := fmt.Sprintf("%s/.tmp-%s-%d", keptBlobs, digest.Hex, l.k.seq.Add(1))
	if err == nil {
		if err = l.k.root.MkdirAll(keptBlobs, 0o755); err == nil {
			f, err = l.k.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
	}
	if err != nil {
		l.k.fail(err)
		return rc, nil
	}
	return &keepingReader{rc: rc, f: f, h: sha256.New(), want: digest, tmp: tmp, final: keptBlobs + "/" + digest.Hex, k: l.k}, nil
}

// keepingReader copies what is read into f, and keeps f as the blob when the whole blob was read
// and hashes to its digest.
type keepingReader struct {
	rc    io.ReadCloser
	f     *os.File
	h     hash.Hash
	want  v1.Hash
	tmp   string // f's name under k.root
	final string
	k     *keeper
	eof   bool
	werr  error

	closed bool
}

func (r *keepingReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	if n > 0 && r.werr == nil {
		r.h.Write(p[:n])
		_, r.werr = r.f.Write(p[:n])
	}
	if err == io.EOF {
		r.eof = true
	}
	return n, err
}

// Close may be called more than once (by the decompressor, then by its reader).
func (r *keepingReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if !r.eof && r.werr == nil {
		// A decompressor may stop at the end of its stream before the blob's end: what is left
		// is padding, read so that the blob is kept whole (and checked), or not kept.
		_, _ = io.Copy(io.Discard, io.LimitReader(r, 1<<20))
	}
	err := r.rc.Close()
	keepErr := r.werr
	if cerr := r.f.Close(); keepErr == nil {
		keepErr = cerr
	}
	if keepErr == nil && !r.eof {
		keepErr = fmt.Errorf("layer %s was not read to its end", r.want)
	}
	if got := hex.EncodeToString(r.h.Sum(nil)); keepErr == nil && got != r.want.Hex {
		keepErr = fmt.Errorf("layer %s hashes to sha256:%s", r.want, got)
	}
	if keepErr == nil {
		keepErr = r.k.root.Rename(r.tmp, r.final)
	}
	if keepErr != nil {
		_ = r.k.root.Remove(r.tmp)
		r.k.fail(keepErr)
	}
	return err
}
