package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/plural"
)

// pushTestRegistry serves an empty in-memory registry on loopback and returns its host.
func pushTestRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// projectLayout writes, with olmcat itself, the FBC index image of fixtures/index.db as an OCI
// layout (migrate IMAGE OUT --oci-layout DIR) and returns the layout directory and the rendered
// FBC of the catalog it holds.
func projectLayout(t *testing.T, host string) (dir, catalog string) {
	t.Helper()
	src := host + "/source/index:v1"
	imagetest.Push(t, src, imagetest.DBImage(t, "../../fixtures/index.db"))
	tmp := t.TempDir()
	dir = filepath.Join(tmp, "layout")
	mustRun(t, "migrate", src, filepath.Join(tmp, "fbc"), "--oci-layout", dir)
	return dir, mustRun(t, "render", filepath.Join(tmp, "fbc"))
}

// registryGet fetches /v2/REPO/KIND/REF from the test registry: KIND is manifests or blobs.
func registryGet(t *testing.T, host, repo, kind, ref string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/v2/"+repo+"/"+kind+"/"+ref, nil)
	req.Header.Set("Accept", "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s %s of %s: HTTP %d", kind, ref, repo, resp.StatusCode)
	}
	return body
}

func sha256Of(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkServed asserts that the registry serves, in repo, the manifest or index digest with every
// manifest, config and layer it names, each hashing to its digest; it returns how many manifests
// and blobs that is.
func checkServed(t *testing.T, host, repo, digest string) (manifests, blobs int) {
	t.Helper()
	raw := registryGet(t, host, repo, "manifests", digest)
	if got := sha256Of(raw); got != digest {
		t.Fatalf("manifest %s of %s hashes to %s", digest, repo, got)
	}
	manifests++
	var m struct {
		Manifests []v1.Descriptor `json:"manifests"`
		Config    *v1.Descriptor  `json:"config"`
		Layers    []v1.Descriptor `json:"layers"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		mm, bb := checkServed(t, host, repo, d.Digest.String())
		manifests, blobs = manifests+mm, blobs+bb
	}
	var own []v1.Descriptor
	if m.Config != nil {
		own = append(own, *m.Config)
	}
	for _, d := range append(own, m.Layers...) {
		b := registryGet(t, host, repo, "blobs", d.Digest.String())
		if got := sha256Of(b); got != d.Digest.String() || int64(len(b)) != d.Size {
			t.Errorf("blob %s of %s: %d bytes hashing to %s, the manifest records %d", d.Digest, repo, len(b), got, d.Size)
		}
		blobs++
	}
	return manifests, blobs
}

// layoutEntries is the index.json of the layout dir.
func layoutEntries(t *testing.T, dir string) []v1.Descriptor {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx v1.IndexManifest
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	return idx.Manifests
}

// TestPushImage pushes the FBC index image olmcat wrote as an OCI layout: the registry serves the
// layout's digest under the tag, every blob, and the same catalog.
func TestPushImage(t *testing.T) {
	host := pushTestRegistry(t)
	dir, catalog := projectLayout(t, host)
	entries := layoutEntries(t, dir)
	if len(entries) != 1 {
		t.Fatalf("the layout olmcat wrote has %d entries", len(entries))
	}
	want := entries[0].Digest.String()

	code, stdout, stderr := runCLI(t, "push", "oci-layout:"+dir, host+"/ns/fbc:v1")
	if code != exitOK {
		t.Fatalf("push: exit %d: %s", code, stderr)
	}
	if stdout != host+"/ns/fbc@"+want+"\n" {
		t.Errorf("push printed %q, want %q", stdout, host+"/ns/fbc@"+want+"\n")
	}
	if !strings.HasPrefix(stderr, "olmcat: pushed oci-layout:") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "image, 1 manifest") {
		t.Errorf("summary: %q", stderr)
	}
	if got := sha256Of(registryGet(t, host, "ns/fbc", "manifests", "v1")); got != want {
		t.Errorf("the tag serves %s, the layout holds %s", got, want)
	}
	if _, blobs := checkServed(t, host, "ns/fbc", want); !strings.Contains(stderr, plural.Of(blobs, "blob")) {
		t.Errorf("the registry serves %d blobs; the summary says %q", blobs, stderr)
	}
	if got := mustRun(t, "render", host+"/ns/fbc:v1"); got != catalog {
		t.Errorf("the pushed image renders differently from the catalog it was built from")
	}
	// The pushed digest reads back too, and a second push sends nothing new but says the same.
	if got := mustRun(t, "render", strings.TrimSpace(stdout)); got != catalog {
		t.Errorf("REF@DIGEST renders differently")
	}
	if code, again, stderr := runCLI(t, "push", "oci-layout:"+dir+"@"+want, host+"/ns/fbc@"+want); code != exitOK || again != stdout {
		t.Errorf("push by digest: exit %d, %q, %s", code, again, stderr)
	}
}

// multiPlatformLayout adds to the layout dir (holding one image) an image index tagged "multi" of
// that image for linux/amd64, a linux/arm64 variant and a nested index with a linux/s390x one, and
// tags the original image "single". It returns the index's digest.
func multiPlatformLayout(t *testing.T, dir string) v1.Hash {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries := layoutEntries(t, dir)
	ii, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	img, err := ii.Image(entries[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	variant := func(arch string) v1.Image {
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		cf = cf.DeepCopy()
		cf.Architecture = arch
		v, err := mutate.ConfigFile(img, cf)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	nested := mutate.AppendManifests(empty.Index, mutate.IndexAddendum{Add: variant("s390x"),
		Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "s390x"}}})
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
		mutate.IndexAddendum{Add: variant("arm64"), Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}}},
		mutate.IndexAddendum{Add: nested},
	)
	// Rewrite index.json with both entries tagged.
	if err := p.RemoveDescriptors(func(v1.Descriptor) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": "single"})); err != nil {
		t.Fatal(err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": "multi"})); err != nil {
		t.Fatal(err)
	}
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPushIndex pushes a multi-platform image index (with a nested index) whole from a layout of
// two entries: without a tag the push is refused, listing them.
func TestPushIndex(t *testing.T) {
	host := pushTestRegistry(t)
	dir, catalog := projectLayout(t, host)
	single := layoutEntries(t, dir)[0].Digest.String()
	want := multiPlatformLayout(t, dir).String()

	code, stdout, stderr := runCLI(t, "push", "oci-layout:"+dir, host+"/ns/multi:v1")
	if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "olmcat: oci-layout:"+dir+": bad image: ") ||
		!strings.Contains(stderr, "multi ("+want+")") || !strings.Contains(stderr, "single ("+single+")") {
		t.Errorf("push of a layout of two entries without a tag: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	code, stdout, stderr = runCLI(t, "push", "oci-layout:"+dir+":multi", host+"/ns/multi:v1")
	if code != exitOK || stdout != host+"/ns/multi@"+want+"\n" {
		t.Fatalf("push :multi: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	manifests, _ := checkServed(t, host, "ns/multi", want)
	if manifests != 5 { // the index, 2 images, the nested index, its image
		t.Errorf("the registry serves %d manifests under the index, want 5", manifests)
	}
	if !strings.Contains(stderr, "image index, 5 manifests, ") {
		t.Errorf("summary: %q", stderr)
	}
	if got := sha256Of(registryGet(t, host, "ns/multi", "manifests", "v1")); got != want {
		t.Errorf("the tag serves %s, want %s", got, want)
	}
	for _, plat := range []string{"linux/amd64", "linux/arm64"} {
		if got := mustRun(t, "render", host+"/ns/multi:v1", "--platform", plat); got != catalog {
			t.Errorf("%s of the pushed index renders differently from the catalog", plat)
		}
	}
	// The single image by tag, from the same layout.
	if code, stdout, stderr := runCLI(t, "push", "oci-layout:"+dir+":single", host+"/ns/single:v1"); code != exitOK || stdout != host+"/ns/single@"+single+"\n" {
		t.Errorf("push :single: exit %d, %q, %s", code, stdout, stderr)
	}
}

// TestPushDockerArchive pushes the one image of a docker archive.
func TestPushDockerArchive(t *testing.T) {
	host := pushTestRegistry(t)
	dir, catalog := projectLayout(t, host)
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	ii, _ := p.ImageIndex()
	img, err := ii.Image(layoutEntries(t, dir)[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	archive := imagetest.DockerArchive(t, img)
	code, stdout, stderr := runCLI(t, "push", archive, host+"/ns/archived:v1")
	if code != exitOK {
		t.Fatalf("push: exit %d: %s", code, stderr)
	}
	served := sha256Of(registryGet(t, host, "ns/archived", "manifests", "v1"))
	if stdout != host+"/ns/archived@"+served+"\n" {
		t.Errorf("push printed %q; the registry serves %s", stdout, served)
	}
	checkServed(t, host, "ns/archived", served)
	if got := mustRun(t, "render", host+"/ns/archived:v1"); got != catalog {
		t.Errorf("the pushed archive renders differently from the catalog")
	}

	// An archive of two images names them, and FILE:REPO:TAG picks one.
	two := filepath.Join(t.TempDir(), "two.tar")
	a, _ := name.NewTag("example.com/a:v1")
	b, _ := name.NewTag("example.com/b:v1")
	if err := tarball.MultiWriteToFile(two, map[name.Tag]v1.Image{a: img, b: empty.Image}); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "push", "docker-archive:"+two, host+"/ns/two:v1")
	if code != exitUsage || !strings.Contains(stderr, "example.com/a:v1") || !strings.Contains(stderr, "example.com/b:v1") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("archive of two images: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "push", "docker-archive:"+two+":example.com/a:v1", host+"/ns/two:v1"); code != exitOK {
		t.Errorf("archive FILE:REPO:TAG: exit %d: %s", code, stderr)
	}
}

// TestPushErrors: each unusable source or destination is one sentence and exit 2, and nothing is
// tagged in the registry.
func TestPushErrors(t *testing.T) {
	host := pushTestRegistry(t)
	dir, _ := projectLayout(t, host)
	missing := "oci-layout:" + filepath.Join(t.TempDir(), "nothing")

	// An address where nothing listens.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()

	// A layout whose layer blob was changed in place (same size).
	tampered := filepath.Join(t.TempDir(), "tampered")
	copyDir(t, dir, tampered)
	var m v1.Manifest
	raw, err := os.ReadFile(filepath.Join(tampered, "blobs", "sha256", layoutEntries(t, dir)[0].Digest.Hex))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	last := m.Layers[len(m.Layers)-1].Digest
	blob := filepath.Join(tampered, "blobs", "sha256", last.Hex)
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// A layout without one of its layer blobs.
	incomplete := filepath.Join(t.TempDir(), "incomplete")
	copyDir(t, dir, incomplete)
	if err := os.Remove(filepath.Join(incomplete, "blobs", "sha256", last.Hex)); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, src, dest, want string
	}{
		{"missing layout", missing, host + "/ns/x:v1", missing + ": not found: "},
		{"bad destination", "oci-layout:" + dir, host + "/ns/UPPER:v1", "is not a registry reference"},
		{"destination without a registry", "oci-layout:" + dir, "index:v1", "is not a registry reference: it does not start with a registry host"},
		{"layout destination", "oci-layout:" + dir, "oci-layout:" + t.TempDir(), "push writes to a registry"},
		{"unreachable registry", "oci-layout:" + dir, dead + "/ns/x:v1", "cannot reach the registry " + dead},
		{"registry source", host + "/source/index:v1", host + "/ns/x:v1", "not accepted here: push reads a local image"},
		{"missing tag", "oci-layout:" + dir + ":nope", host + "/ns/x:v1", "has no entry for tag nope"},
		{"wrong digest", "oci-layout:" + dir, host + "/ns/x@sha256:" + strings.Repeat("0", 64), "names digest sha256:000"},
		{"tampered layer", "oci-layout:" + tampered, host + "/ns/x:v1", "the tag was not written: a layer blob of the source is not the one its manifest names: content digest mismatch: the layer blob hashes to "},
		{"missing blob", "oci-layout:" + incomplete, host + "/ns/x:v1", "(" + last.String() + ") cannot be pushed: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "push", c.src, c.dest)
			if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, "olmcat: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, c.want)
			}
		})
	}
	// A missing layout gets the sentence every command gives it.
	_, _, renderErr := runCLI(t, "render", missing)
	if _, _, pushErr := runCLI(t, "push", missing, host+"/ns/x:v1"); pushErr != renderErr {
		t.Errorf("push says %q, render says %q", pushErr, renderErr)
	}
	if _, err := remote.Head(mustRef(t, host+"/ns/x:v1")); err == nil {
		t.Errorf("a failed push left a tag in the registry")
	}
}

func mustRef(t *testing.T, s string) name.Reference {
	t.Helper()
	r, err := name.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPushCredentials: the registry's credentials come from the docker config, as for every image
// read; without them the push is refused in a sentence that says how to log in.
func TestPushCredentials(t *testing.T) {
	const user, password = "olmcat", "s3cret"
	open := pushTestRegistry(t) // for the layout
	dir, catalog := projectLayout(t, open)
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != password {
			w.Header().Set("WWW-Authenticate", `Basic realm="olmcat-test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DOCKER_CONFIG", filepath.Join(home, "docker"))
	t.Setenv("REGISTRY_AUTH_FILE", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "")

	code, _, stderr := runCLI(t, "push", "oci-layout:"+dir, host+"/ns/fbc:v1")
	if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "refused the push (HTTP 401): log in with `docker login "+host+"`") {
		t.Errorf("without credentials: exit %d: %s", code, stderr)
	}
	if err := os.MkdirAll(filepath.Join(home, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	config := `{"auths": {"` + host + `": {"auth": "` + auth + `"}}}`
	if err := os.WriteFile(filepath.Join(home, "docker", "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "push", "oci-layout:"+dir, host+"/ns/fbc:v1")
	if code != exitOK || !strings.HasPrefix(stdout, host+"/ns/fbc@sha256:") {
		t.Fatalf("with the docker config: exit %d, %q: %s", code, stdout, stderr)
	}
	if got := mustRun(t, "render", host+"/ns/fbc:v1"); got != catalog {
		t.Errorf("the image pushed with credentials renders differently")
	}
}
