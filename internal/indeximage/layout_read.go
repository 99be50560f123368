package indeximage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/olmcat/olmcat/internal/nofollow"
)

// An OCI image layout is read through a layoutDir: the directory is opened once (as an os.Root,
// so nothing is reached outside it), and every file under it is reached without following a
// symbolic link at any step, opened only when it is a regular file, opened non-blocking (a FIFO
// put where a blob belongs cannot hang the run, whatever it is swapped for between the check and
// the open), and read whole only when its size is under a bound checked before a byte is read (a
// link to /dev/zero, a sparse file of terabytes). The directory itself may be a link: the user
// (or the bundle cache, which opens its entries without following one) named it.
//
// go-containerregistry's layout package follows links and reads index.json whole, and a FIFO
// there blocks open(2) beyond the reach of a signal handler's exit.
type layoutDir struct {
	root *os.Root
	name string // how messages name the directory
	own  bool   // root was opened here and is closed by close
	// advice ends the message of a file that is not a regular file, for a layout the user named.
	advice string
}

// openLayoutDir opens the layout directory dir.
func openLayoutDir(dir string) (*layoutDir, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &layoutDir{root: root, name: dir, own: true,
		advice: "; the files of an OCI layout are regular files in it: copy the layout with its files (cp -rL) or write it again"}, nil
}

func (l *layoutDir) close() {
	if l.own {
		l.root.Close()
	}
}

// open opens the regular file rel (slash-separated) for reading. Its size is in the FileInfo.
func (l *layoutDir) open(rel string) (*os.File, fs.FileInfo, error) {
	f, fi, err := nofollow.Open(l.root, rel)
	if err != nil {
		return nil, nil, l.pathError(rel, err)
	}
	return f, fi, nil
}

func (l *layoutDir) pathError(rel string, err error) error {
	var nr *nofollow.NotRegularError
	if errors.As(err, &nr) {
		return fmt.Errorf("%s/%w%s", l.name, err, l.advice)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: "open", Path: l.name + "/" + rel, Err: err}
}

// readFile reads the regular file rel whole, refusing one of more than max bytes before reading.
func (l *layoutDir) readFile(rel string, max int64, what string) ([]byte, error) {
	data, err := nofollow.ReadFile(l.root, rel, max)
	var big *nofollow.TooLargeError
	switch {
	case errors.As(err, &big):
		return nil, fmt.Errorf("%s/%s has %s, more than %s holds (%s at most): the layout is damaged", l.name, rel, FormatSize(big.Size), what, FormatSize(max))
	case err != nil:
		return nil, l.pathError(rel, err)
	}
	return data, nil
}

func blobPath(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

// stat is the FileInfo of the regular file rel, reached as open reaches it.
func (l *layoutDir) stat(rel string) (fs.FileInfo, error) {
	f, fi, err := l.open(rel)
	if err != nil {
		return nil, err
	}
	f.Close()
	return fi, nil
}

// indexJSON is the layout's index.json as an image index.
func (l *layoutDir) indexJSON() (*rootedIndex, error) {
	raw, err := l.readFile("index.json", maxMetadataBlob, "an OCI layout's index")
	if err != nil {
		return nil, err
	}
	return &rootedIndex{dir: l, mediaType: types.OCIImageIndex, raw: raw}, nil
}

// rootedIndex is an image index of a layoutDir (index.json, or a blob it lists).
type rootedIndex struct {
	dir       *layoutDir
	mediaType types.MediaType
	raw       []byte
}

var _ v1.ImageIndex = (*rootedIndex)(nil)

func (i *rootedIndex) MediaType() (types.MediaType, error) { return i.mediaType, nil }
func (i *rootedIndex) Digest() (v1.Hash, error)            { return partial.Digest(i) }
func (i *rootedIndex) Size() (int64, error)                { return partial.Size(i) }
func (i *rootedIndex) RawManifest() ([]byte, error)        { return i.raw, nil }

func (i *rootedIndex) IndexManifest() (*v1.IndexManifest, error) {
	var m v1.IndexManifest
	err := json.Unmarshal(i.raw, &m)
	return &m, err
}

func (i *rootedIndex) find(h v1.Hash, want ...types.MediaType) (v1.Descriptor, error) {
	m, err := i.IndexManifest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	for _, d := range m.Manifests {
		if d.Digest == h {
			for _, mt := range want {
				if d.MediaType == mt {
					return d, nil
				}
			}
			return v1.Descriptor{}, fmt.Errorf("unexpected media type for %v: %s", h, d.MediaType)
		}
	}
	return v1.Descriptor{}, fmt.Errorf("could not find descriptor in index: %s", h)
}

func (i *rootedIndex) Image(h v1.Hash) (v1.Image, error) {
	d, err := i.find(h, types.OCIManifestSchema1, types.DockerManifestSchema2)
	if err != nil {
		return nil, err
	}
	return partial.CompressedToImage(&rootedImage{dir: i.dir, desc: d})
}

func (i *rootedIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) {
	d, err := i.find(h, types.OCIImageIndex, types.DockerManifestList)
	if err != nil {
		return nil, err
	}
	raw, err := i.dir.readFile(blobPath(h), maxMetadataBlob, "an image index")
	if err != nil {
		return nil, err
	}
	return &rootedIndex{dir: i.dir, mediaType: d.MediaType, raw: raw}, nil
}

// rootedImage is an image of a layoutDir.
type rootedImage struct {
	dir  *layoutDir
	desc v1.Descriptor

	once     sync.Once
	manifest []byte
	err      error

	// parsed is the manifest parsed once, for LayerByDigest: go-containerregistry asks for each
	// layer by digest, and parsing the manifest at each ask made n layers cost n parses (2,000
	// layers: 15 s).
	parseOnce sync.Once
	parsed    *v1.Manifest
	parseErr  error

	// The config is read once too: checkManifest checks the bytes read first against the
	// manifest, and every later use must see those bytes, not a file rewritten meanwhile.
	configOnce sync.Once
	config     []byte
	configErr  error
}

var _ partial.CompressedImageCore = (*rootedImage)(nil)

func (i *rootedImage) MediaType() (types.MediaType, error) { return i.desc.MediaType, nil }

// rawManifestAsked is a test hook, called each time a layout image's manifest is asked for (each
// parse of it asks).
var rawManifestAsked = func() {}

func (i *rootedImage) RawManifest() ([]byte, error) {
	rawManifestAsked()
	i.once.Do(func() {
		i.manifest, i.err = i.dir.readFile(blobPath(i.desc.Digest), maxMetadataBlob, "a manifest")
	})
	return i.manifest, i.err
}

func (i *rootedImage) Manifest() (*v1.Manifest, error) { return partial.Manifest(i) }

func (i *rootedImage) RawConfigFile() ([]byte, error) {
	m, err := i.parsedManifest()
	if err != nil {
		return nil, err
	}
	i.configOnce.Do(func() {
		i.config, i.configErr = i.dir.readFile(blobPath(m.Config.Digest), maxMetadataBlob, "a config")
	})
	return i.config, i.configErr
}

// parsedManifest is the manifest parsed once; callers must not change it.
func (i *rootedImage) parsedManifest() (*v1.Manifest, error) {
	i.parseOnce.Do(func() { i.parsed, i.parseErr = partial.Manifest(i) })
	return i.parsed, i.parseErr
}

func (i *rootedImage) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	m, err := i.parsedManifest()
	if err != nil {
		return nil, err
	}
	if h == m.Config.Digest {
		return &rootedBlob{dir: i.dir, desc: m.Config}, nil
	}
	for _, d := range m.Layers {
		if h == d.Digest {
			return &rootedBlob{dir: i.dir, desc: d}, nil
		}
	}
	return nil, fmt.Errorf("could not find layer in image: %s", h)
}

// rootedBlob is a layer (or config) blob of a layoutDir, opened when it is read.
type rootedBlob struct {
	dir  *layoutDir
	desc v1.Descriptor
}

func (b *rootedBlob) Digest() (v1.Hash, error)            { return b.desc.Digest, nil }
func (b *rootedBlob) Size() (int64, error)                { return b.desc.Size, nil }
func (b *rootedBlob) MediaType() (types.MediaType, error) { return b.desc.MediaType, nil }
func (b *rootedBlob) Descriptor() (*v1.Descriptor, error) { return &b.desc, nil }
func (b *rootedBlob) Compressed() (io.ReadCloser, error) {
	f, _, err := b.dir.open(blobPath(b.desc.Digest))
	if err != nil {
		return nil, err
	}
	return f, nil
}
