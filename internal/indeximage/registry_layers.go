package indeximage

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// registryImage is an image of a registry whose layers are described once, from the manifest and
// config parsed once, and fetched by digest through the puller that resolved the image (its
// connections and token). go-containerregistry's own remote layers parse the whole manifest
// again for each layer's size, media type and blob request: reading n layers cost n manifest
// parses of n entries each (2,000 layers: 17 to 29 s; now under a second).
type registryImage struct {
	v1.Image
	ctx    context.Context
	puller *remote.Puller
	repo   name.Repository

	once   sync.Once
	layers []v1.Layer
	err    error

	configOnce sync.Once
	config     []byte
	configErr  error
}

// RawConfigFile reads the config (once: it is kept) within the memory budget of all pulls.
func (i *registryImage) RawConfigFile() ([]byte, error) {
	i.configOnce.Do(func() {
		m, err := i.Image.Manifest()
		if err != nil {
			i.configErr = err
			return
		}
		n, err := pullMemory.acquire(i.ctx, m.Config.Size)
		if err != nil {
			i.configErr = err
			return
		}
		defer pullMemory.release(n)
		i.config, i.configErr = i.Image.RawConfigFile()
	})
	return i.config, i.configErr
}

// ConfigFile parses RawConfigFile (go-containerregistry's would read it through the embedded
// image, around the budget).
func (i *registryImage) ConfigFile() (*v1.ConfigFile, error) {
	return partial.ConfigFile(i)
}

// ConfigName is the digest of RawConfigFile.
func (i *registryImage) ConfigName() (v1.Hash, error) {
	return partial.ConfigName(i)
}

func newRegistryImage(ctx context.Context, img v1.Image, puller *remote.Puller, repo name.Repository) *registryImage {
	return &registryImage{Image: img, ctx: ctx, puller: puller, repo: repo}
}

// Layers are the manifest's layers, bottom first, each described by its manifest entry and the
// config's diff ID.
func (i *registryImage) Layers() ([]v1.Layer, error) {
	i.once.Do(func() { i.layers, i.err = i.describe() })
	return i.layers, i.err
}

func (i *registryImage) describe() ([]v1.Layer, error) {
	m, err := i.Image.Manifest()
	if err != nil {
		return nil, err
	}
	cf, err := i.ConfigFile()
	if err != nil {
		return nil, err
	}
	if cf == nil {
		return nil, fmt.Errorf("the image has no config")
	}
	layers := make([]v1.Layer, len(m.Layers))
	for n, d := range m.Layers {
		l := &registryLayer{img: i, desc: d}
		if len(cf.RootFS.DiffIDs) == len(m.Layers) {
			l.diffID = cf.RootFS.DiffIDs[n]
		}
		if layers[n], err = partial.CompressedToLayer(l); err != nil {
			return nil, err
		}
	}
	return layers, nil
}

// LayerByDigest and LayerByDiffID look the layers up in Layers.
func (i *registryImage) LayerByDigest(h v1.Hash) (v1.Layer, error) {
	return i.layerBy(h, func(l v1.Layer) (v1.Hash, error) { return l.Digest() })
}

func (i *registryImage) LayerByDiffID(h v1.Hash) (v1.Layer, error) {
	return i.layerBy(h, func(l v1.Layer) (v1.Hash, error) { return l.DiffID() })
}

func (i *registryImage) layerBy(h v1.Hash, key func(v1.Layer) (v1.Hash, error)) (v1.Layer, error) {
	layers, err := i.Layers()
	if err != nil {
		return nil, err
	}
	for _, l := range layers {
		if k, err := key(l); err == nil && k == h {
			return l, nil
		}
	}
	return nil, fmt.Errorf("the image has no layer %s", h)
}

// registryLayer is one layer of a registryImage: its digest, size and media type are its
// manifest entry's, its diff ID the config's; its blob is fetched when read.
type registryLayer struct {
	img    *registryImage
	desc   v1.Descriptor
	diffID v1.Hash // zero when the config's diff IDs do not line up with the layers
}

func (l *registryLayer) Digest() (v1.Hash, error)            { return l.desc.Digest, nil }
func (l *registryLayer) Size() (int64, error)                { return l.desc.Size, nil }
func (l *registryLayer) MediaType() (types.MediaType, error) { return l.desc.MediaType, nil }
func (l *registryLayer) Descriptor() (*v1.Descriptor, error) { d := l.desc; return &d, nil }

// DiffID is the config's, never computed from the content (which would read the layer whole).
func (l *registryLayer) DiffID() (v1.Hash, error) {
	if l.diffID.Hex == "" {
		return v1.Hash{}, fmt.Errorf("layer %s: the config's diff IDs do not line up with the manifest's layers", l.desc.Digest)
	}
	return l.diffID, nil
}

// Compressed fetches the blob, checked against its digest by the client at its end, and cut off
// past the size the manifest declares: a registry sending more is refused after one byte more,
// not read whole before its digest is checked.
func (l *registryLayer) Compressed() (io.ReadCloser, error) {
	if l.desc.Size < 0 {
		return nil, fmt.Errorf("layer %s: the manifest declares a size of %d bytes", l.desc.Digest, l.desc.Size)
	}
	rl, err := l.img.puller.Layer(l.img.ctx, l.img.repo.Digest(l.desc.Digest.String()))
	if err != nil {
		return nil, err
	}
	rc, err := rl.Compressed()
	if err != nil {
		return nil, err
	}
	return &declaredSizeBody{ReadCloser: rc, left: l.desc.Size, digest: l.desc.Digest}, nil
}

// declaredSizeBody fails once the blob gives more bytes than its descriptor declares, or ends
// before.
type declaredSizeBody struct {
	io.ReadCloser
	left   int64
	digest v1.Hash
}

func (b *declaredSizeBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.tooLong()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	switch {
	case b.left < 0:
		return n, b.tooLong()
	case err == io.EOF && b.left > 0:
		return n, fmt.Errorf("the registry sent %d bytes fewer than the manifest declares for blob %s: %w", b.left, b.digest, io.ErrUnexpectedEOF)
	}
	return n, err
}

func (b *declaredSizeBody) tooLong() error {
	return fmt.Errorf("the registry sent more than the manifest declares for blob %s: the image is damaged or hostile", b.digest)
}

// registryIndex is a registry's image index whose images are registryImages.
type registryIndex struct {
	imageIndex
	ctx    context.Context
	puller *remote.Puller
	repo   name.Repository
}

func (x *registryIndex) Image(h v1.Hash) (v1.Image, error) {
	img, err := x.imageIndex.Image(h)
	if err != nil {
		return nil, err
	}
	return newRegistryImage(x.ctx, img, x.puller, x.repo), nil
}

// imageIndex names the embedded index without hiding its ImageIndex method.
type imageIndex = v1.ImageIndex
