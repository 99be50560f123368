package indeximage

import (
	"bytes"
	"crypto/sha256"
	"io"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
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
