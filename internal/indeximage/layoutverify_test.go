package indeximage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/random"
)

// A layout's layer blob is accepted only when it is, byte for byte, the blob its descriptor
// names: read whole, or closed half read.
func TestVerifyingReader(t *testing.T) {
	blob := bytes.Repeat([]byte("a layer blob of some length; "), 5000)
	h, _, err := v1.SHA256(bytes.NewReader(blob))
	if err != nil {
		t.Fatal(err)
	}
	desc := v1.Descriptor{Digest: h, Size: int64(len(blob))}
	altered := bytes.Clone(blob)
	altered[len(altered)/2] ^= 1
	for _, c := range []struct {
		name string
		data []byte
		want string // "" when it verifies
	}{
		{"the blob", blob, ""},
		{"one byte changed", altered, "hashes to sha256:"},
		{"truncated", blob[:len(blob)-1], "hashes to sha256:"},
		{"one byte more", append(bytes.Clone(blob), 'x'), "longer than the"},
		{"empty", nil, "hashes to sha256:"},
	} {
		for _, whole := range []bool{true, false} {
			r := &verifyingReader{rc: io.NopCloser(bytes.NewReader(c.data)), want: desc, h: sha256.New()}
			var err error
			if whole {
				_, err = io.Copy(io.Discard, r)
				if cerr := r.Close(); (cerr == nil) != (err == nil) {
					t.Errorf("%s: read gave %v, close %v", c.name, err, cerr)
				}
			} else {
				_, _ = io.ReadFull(r, make([]byte, 100))
				err = r.Close()
			}
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s (read whole %v): %v", c.name, whole, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "tampered with")):
				t.Errorf("%s (read whole %v): %v, want an error saying %q", c.name, whole, err, c.want)
			}
		}
	}
}

// A layout image's layers answer their diff ID from the config, not by hashing their content, and
// stream their blob checked against the manifest: a blob changed in place fails the read.
func TestLayoutLayersAreVerified(t *testing.T) {
	img, err := random.Image(4096, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	digest, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	blobDigest, err := layers[0].Digest()
	if err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join(dir, "blobs", blobDigest.Algorithm, blobDigest.Hex)
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1 // the gzip trailer: the stream still decompresses, only the digest can tell
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := resolveRef(context.Background(), OCILayoutPrefix+dir+"@"+digest.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.blobsVerified {
		t.Error("a layout image's blobs are not marked verified")
	}
	got, err := r.img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if d, err := got[0].DiffID(); err != nil || d != cf.RootFS.DiffIDs[0] {
		t.Errorf("DiffID: %v, %v; want the config's %v", d, err, cf.RootFS.DiffIDs[0])
	}
	rc, err := got[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, rc)
	rc.Close()
	if err == nil || !strings.Contains(err.Error(), "content digest mismatch") {
		t.Errorf("reading a changed blob: %v, want a digest mismatch", err)
	}
}
