package indeximage

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one mentioning %q", parts)
	}
	t.Logf("error: %v", err)
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not mention %q", err, p)
		}
	}
}

func TestFetchRefusesImagesThatAreNotIndexes(t *testing.T) {
	host := startRegistry(t, nil)
	push(t, host+"/ns/nolabel:1", imageWith(t, nil, amd64, baseLayer(t)))
	_, err := fetch(t, host+"/ns/nolabel:1", Options{})
	wantErr(t, err, "not an OLM index image", DatabaseLabel, ConfigsLabel, host+"/ns/nolabel@sha256:")

	push(t, host+"/ns/bundle:1", imageWith(t, map[string]string{bundlePackageLabel: "etcd"}, amd64, baseLayer(t)))
	_, err = fetch(t, host+"/ns/bundle:1", Options{})
	wantErr(t, err, "bundle image", `"etcd"`)

	push(t, host+"/ns/empty:1", imageWith(t, map[string]string{DatabaseLabel: "/database/index.db"}, amd64, baseLayer(t)))
	_, err = fetch(t, host+"/ns/empty:1", Options{})
	wantErr(t, err, "/database/index.db", "no layer holds it", "1 of 1 layers")

	push(t, host+"/ns/emptydir:1", imageWith(t, fbcLabels, amd64, baseLayer(t), layerOf(t, dir("configs"))))
	_, err = fetch(t, host+"/ns/emptydir:1", Options{})
	wantErr(t, err, "/configs is empty")
}

func TestFetchRefusesWrongMediaTypes(t *testing.T) {
	host := startRegistry(t, nil)
	helm := mutate.ConfigMediaType(sqliteImage(t, amd64), "application/vnd.cncf.helm.config.v1+json")
	push(t, host+"/ns/chart:1", helm)
	_, err := fetch(t, host+"/ns/chart:1", Options{})
	wantErr(t, err, "not a container image", "application/vnd.cncf.helm.config.v1+json")

	odd, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1),
		mutate.Addendum{Layer: baseLayer(t), MediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip"})
	if err != nil {
		t.Fatal(err)
	}
	odd = mutate.ConfigMediaType(odd, types.OCIConfigJSON)
	push(t, host+"/ns/oddlayer:1", odd)
	_, err = fetch(t, host+"/ns/oddlayer:1", Options{})
	wantErr(t, err, "layer 1 of 1", "not a tar layer")

	// The same manifest bytes stored under an artifact media type.
	raw, err := sqliteImage(t, amd64).RawManifest()
	if err != nil {
		t.Fatal(err)
	}
	push(t, host+"/ns/artifact:base", sqliteImage(t, amd64))
	req, _ := http.NewRequest(http.MethodPut, "http://"+host+"/v2/ns/artifact/manifests/odd", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/vnd.example.thing.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, err = fetch(t, host+"/ns/artifact:odd", Options{})
	wantErr(t, err, "application/vnd.example.thing.v1+json", "neither an image manifest nor an image index")
}

func TestFetchRegistryErrors(t *testing.T) {
	denied := startRegistry(t, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Basic realm="olmcat-test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
		})
	})
	_, err := fetch(t, denied+"/ns/private:1", Options{Keychain: authn.NewMultiKeychain()})
	wantErr(t, err, "refused access", "401", "docker login "+denied)

	host := startRegistry(t, nil)
	_, err = fetch(t, host+"/ns/missing:1", Options{})
	wantErr(t, err, "not found", host+"/ns/missing:1")
}

// tamperBlob serves blob digest with its bytes changed by edit.
func tamperBlob(digest v1.Hash, edit func([]byte) []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/blobs/"+digest.String()) {
				next.ServeHTTP(w, r)
				return
			}
			rec := &bufferedResponse{header: http.Header{}}
			next.ServeHTTP(rec, r)
			body := edit(rec.body.Bytes())
			w.Header().Set("Content-Type", "application/octet-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush() // chunked: no Content-Length for the client to check first
			w.Write(body)
		})
	}
}

type bufferedResponse struct {
	header http.Header
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferedResponse) WriteHeader(int)             {}

func topLayerDigest(t testing.TB, img v1.Image) v1.Hash {
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	d, err := layers[len(layers)-1].Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFetchCorruptLayersFromRegistry(t *testing.T) {
	img := sqliteImage(t, amd64)
	top := topLayerDigest(t, img)
	flip := func(b []byte) []byte {
		c := append([]byte(nil), b...)
		c[len(c)/2] ^= 0xff
		return c
	}
	half := func(b []byte) []byte { return b[:len(b)/2] }
	for what, edit := range map[string]func([]byte) []byte{"changed": flip, "truncated": half} {
		t.Run(what, func(t *testing.T) {
			host := startRegistry(t, tamperBlob(top, edit))
			push(t, host+"/ns/index:1", img)
			_, err := fetch(t, host+"/ns/index:1", Options{})
			wantErr(t, err, "layer 2 of 2", "corrupt")
		})
	}
}

// An uncompressed layer whose file content changes keeps its size and tar structure: only the
// digest can tell.
func TestFetchDigestMismatchFromRegistry(t *testing.T) {
	layer := static.NewLayer(tarBytes(t, dir("database"), file("database/index.db", "SQLite format 3\x00 the real one")), types.OCIUncompressedLayer)
	img := imageWith(t, map[string]string{DatabaseLabel: "/database/index.db"}, amd64, baseLayer(t), layer)
	host := startRegistry(t, tamperBlob(topLayerDigest(t, img), func(b []byte) []byte {
		return bytes.Replace(b, []byte("the real one"), []byte("a forged one"), 1)
	}))
	push(t, host+"/ns/index:1", img)
	_, err := fetch(t, host+"/ns/index:1", Options{})
	wantErr(t, err, "layer 2 of 2", "sha256")
}

func TestFetchCorruptLayersFromOCILayout(t *testing.T) {
	img := sqliteImage(t, amd64)
	blob := func(dir string) string {
		d := topLayerDigest(t, img)
		return filepath.Join(dir, "blobs", d.Algorithm, d.Hex)
	}
	write := func() string {
		dir := t.TempDir()
		lp, err := layout.Write(dir, empty.Index)
		if err != nil {
			t.Fatal(err)
		}
		if err := lp.AppendImage(img); err != nil {
			t.Fatal(err)
		}
		return dir
	}

	// Replace the layer by a well-formed layer with other content: only the digest check sees it.
	swapped := write()
	other := layerOf(t, dir("database"), file("database/index.db", "not the real database"))
	if err := os.WriteFile(blob(swapped), compressedBytes(t, other), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := fetch(t, "oci-layout:"+swapped, Options{})
	wantErr(t, err, "layer 2 of 2", "content digest mismatch", "tampered")

	truncated := write()
	full, err := os.ReadFile(blob(truncated))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob(truncated), full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = fetch(t, "oci-layout:"+truncated, Options{})
	wantErr(t, err, "layer 2 of 2", "truncated or corrupt")
}

func compressedBytes(t testing.TB, l v1.Layer) []byte {
	rc, err := l.Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFetchInsecureTLSRegistry(t *testing.T) {
	srv := httptest.NewUnstartedServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	ref, _ := name.ParseReference(host + "/ns/index:v1")
	if err := remote.Write(ref, sqliteImage(t, amd64), remote.WithTransport(srv.Client().Transport)); err != nil {
		t.Fatal(err)
	}
	_, err := fetch(t, ref.String(), Options{})
	wantErr(t, err, host, "not trusted", "--insecure")
	cat, err := fetch(t, ref.String(), Options{Insecure: true})
	if err != nil {
		t.Fatalf("--insecure against a self-signed registry: %v", err)
	}
	sameFile(t, cat.Path, sqliteFixture)
}

// An oci-layout: reference's files are read only as regular files, never through a link, never
// blocking, and bounded before they are read: a FIFO index.json (which hung the run, deaf to
// SIGTERM), a link to /dev/zero (read whole: gigabytes), a blob linked out of the layout. The
// layout directory itself may be a link: the user named it.
func TestFetchOCILayoutFilesAreRegularFilesOnly(t *testing.T) {
	img := sqliteImage(t, amd64)
	write := func() string {
		dir := t.TempDir()
		lp, err := layout.Write(dir, empty.Index)
		if err != nil {
			t.Fatal(err)
		}
		if err := lp.AppendImage(img); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	linked := filepath.Join(t.TempDir(), "layout-link")
	if err := os.Symlink(write(), linked); err != nil {
		t.Fatal(err)
	}
	if _, err := fetch(t, "oci-layout:"+linked, Options{}); err != nil {
		t.Errorf("a layout named through a link: %v", err)
	}

	outside := t.TempDir()
	for name, tc := range map[string]struct {
		change func(dir string) error
		says   string
	}{
		"FIFO index.json": {func(dir string) error {
			os.Remove(filepath.Join(dir, "index.json"))
			return syscall.Mkfifo(filepath.Join(dir, "index.json"), 0o644)
		}, "index.json is a named pipe (FIFO), not a regular file"},
		"index.json linked to /dev/zero": {func(dir string) error {
			os.Remove(filepath.Join(dir, "index.json"))
			return os.Symlink("/dev/zero", filepath.Join(dir, "index.json"))
		}, "index.json is a symbolic link, not a regular file"},
		"index.json of 5 MiB": {func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "index.json"), bytes.Repeat([]byte(" "), 5<<20), 0o644)
		}, "more than an OCI layout's index holds"},
		"blob linked out of the layout": {func(dir string) error {
			d := topLayerDigest(t, img)
			p := filepath.Join(dir, "blobs", d.Algorithm, d.Hex)
			if err := os.Rename(p, filepath.Join(outside, d.Hex)); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, d.Hex), p)
		}, "is a symbolic link, not a regular file"},
		"blobs linked out of the layout": {func(dir string) error {
			if err := os.Rename(filepath.Join(dir, "blobs"), filepath.Join(outside, "blobs")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "blobs"), filepath.Join(dir, "blobs"))
		}, "blobs is a symbolic link, not a directory"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := write()
			if err := tc.change(dir); err != nil {
				t.Skip(err)
			}
			_, err := fetch(t, "oci-layout:"+dir, Options{})
			wantErr(t, err, tc.says)
		})
	}
}
