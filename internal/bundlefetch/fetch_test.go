package bundlefetch

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/source"
)

const corpus = "../../../shared/conformance/templates/render"

// corpusRegistry pushes the bundle images of every render case of the template corpus to a
// counting registry on 127.0.0.1 and forgets the requests of the pushes.
func corpusRegistry(t *testing.T) (*imagetest.CountingRegistry, []imagetest.CorpusImage) {
	t.Helper()
	cases, _ := filepath.Glob(filepath.Join(corpus, "*", "images.json"))
	if len(cases) == 0 {
		t.Skip("the template conformance corpus is not at " + corpus)
	}
	reg := imagetest.NewCountingRegistry(t)
	var images []imagetest.CorpusImage
	seen := map[string]bool{} // cases share images
	for _, c := range cases {
		for _, im := range imagetest.PushCorpusImages(t, reg.Host, filepath.Dir(c)) {
			if !seen[im.Ref] {
				seen[im.Ref] = true
				images = append(images, im)
			}
		}
	}
	reg.Reset()
	return reg, images
}

// wantJSON is the bundle rendered from its bundle directory with the image ref, as JSON.
func wantJSON(t *testing.T, dir, ref string) []byte {
	t.Helper()
	b, err := bundledir.Parse(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Render(ref)
	if err != nil {
		t.Fatal(err)
	}
	return marshal(t, r)
}

func marshal(t testing.TB, b fbc.Bundle) []byte {
	t.Helper()
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func refsOf(images []imagetest.CorpusImage) []string {
	var refs []string
	for _, im := range images {
		refs = append(refs, im.Ref)
	}
	return refs
}

func checkRendered(t *testing.T, images []imagetest.CorpusImage, refs []string, got []fbc.Bundle) {
	t.Helper()
	if len(got) != len(refs) {
		t.Fatalf("got %d bundles for %d refs", len(got), len(refs))
	}
	dirs := map[string]string{}
	for _, im := range images {
		dirs[im.Ref] = im.BundleDir
		dirs[digestRef(im)] = im.BundleDir
	}
	for i, ref := range refs {
		if want, g := wantJSON(t, dirs[ref], ref), marshal(t, got[i]); !bytes.Equal(want, g) {
			t.Errorf("bundle %d (%s) differs from its bundle directory rendered:\n got %.300s\nwant %.300s", i, ref, g, want)
		}
	}
}

func digestRef(im imagetest.CorpusImage) string {
	repo, _, _ := strings.Cut(im.Ref[len(strings.SplitN(im.Ref, "/", 2)[0]):], ":")
	return strings.SplitN(im.Ref, "/", 2)[0] + repo + "@" + im.Digest
}

func newFetcher(t *testing.T, o Options) *Fetcher {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestRendersEveryCorpusImageAsItsBundleDirectory(t *testing.T) {
	reg, images := corpusRegistry(t)
	refs := refsOf(images)
	// Out of order, with repeats: the result follows refs.
	refs = append([]string{refs[len(refs)-1], refs[0]}, refs...)
	for _, cacheDir := range []string{"", t.TempDir()} {
		reg.Reset()
		got, err := newFetcher(t, Options{CacheDir: cacheDir}).RenderBundles(context.Background(), refs)
		if err != nil {
			t.Fatal(err)
		}
		checkRendered(t, images, refs, got)
		if n := reg.Count("GET", "blobs"); n == 0 {
			t.Errorf("cache %q: no blob was pulled", cacheDir)
		}
	}
}

func TestPullsEachRefOnceAndInParallel(t *testing.T) {
	reg, images := corpusRegistry(t)
	reg.Delay = 20 * time.Millisecond // so that pulls made at once overlap
	refs := refsOf(images)
	refs = append(refs, refs...)
	for _, parallel := range []int{1, DefaultParallel} {
		reg.Reset()
		f := newFetcher(t, Options{Parallel: parallel})
		if _, err := f.RenderBundles(context.Background(), refs); err != nil {
			t.Fatal(err)
		}
		// A second call (the other side of a diff) pulls nothing again.
		if _, err := f.RenderBundles(context.Background(), refs[:3]); err != nil {
			t.Fatal(err)
		}
		for path, n := range reg.PerPath() {
			if strings.HasPrefix(path, "GET manifests ") && n != 1 {
				t.Errorf("parallel %d: %s requested %d times, want once", parallel, path, n)
			}
		}
		if n, want := reg.Count("GET", "manifests"), len(images); n != want {
			t.Errorf("parallel %d: %d manifest GETs for %d distinct refs", parallel, n, want)
		}
		max := reg.MaxInFlight()
		if parallel == 1 && max != 1 {
			t.Errorf("parallel 1: %d requests in flight at once", max)
		}
		if parallel > 1 && max < 2 {
			t.Errorf("parallel %d: never more than %d request in flight", parallel, max)
		}
		if s := f.Stats(); s.Pulled != len(images) {
			t.Errorf("parallel %d: stats %+v, want %d pulled", parallel, s, len(images))
		}
	}
}

func TestWarmCacheResolvesTagsOnlyAndNeverDigests(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = images[:6]
	tags := refsOf(images)
	var digests []string
	for _, im := range images {
		digests = append(digests, digestRef(im))
	}
	dir := t.TempDir()
	run := func(refs []string) (Stats, []fbc.Bundle) {
		t.Helper()
		reg.Reset()
		f := newFetcher(t, Options{CacheDir: dir})
		got, err := f.RenderBundles(context.Background(), refs)
		if err != nil {
			t.Fatal(err)
		}
		checkRendered(t, images, refs, got)
		return f.Stats(), got
	}
	cold, coldOut := run(tags)
	if cold.Pulled != len(tags) || reg.Count("GET", "blobs") == 0 {
		t.Fatalf("cold run: %+v, %d blob GETs", cold, reg.Count("GET", "blobs"))
	}
	warm, warmOut := run(tags)
	if warm.Cached != len(tags) || warm.Pulled != 0 {
		t.Errorf("warm run: %+v, want all %d from the cache", warm, len(tags))
	}
	if n := reg.Count("GET", "blobs") + reg.Count("GET", "manifests"); n != 0 {
		t.Errorf("warm run over tags: %d manifest or blob GETs, want none (only HEAD): %v", n, reg.PerPath())
	}
	if n := reg.Count("HEAD", "manifests"); n != len(tags) {
		t.Errorf("warm run over tags: %d manifest HEADs, want %d (each tag resolved again)", n, len(tags))
	}
	for i := range coldOut {
		if !bytes.Equal(marshal(t, coldOut[i]), marshal(t, warmOut[i])) {
			t.Errorf("%s: the cached bundle differs from the pulled one", tags[i])
		}
	}
	// The digests are those the tags resolved to: their entries are there, no request at all.
	warmDigests, _ := run(digests)
	if warmDigests.Cached != len(digests) || len(reg.PerPath()) != 0 {
		t.Errorf("warm run over digests: %+v, requests %v, want none", warmDigests, reg.PerPath())
	}
}

func TestBundlesFromCatalogAreNotPulled(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = images[:4]
	refs := refsOf(images)
	// The published catalog has the first three bundles.
	var catalog bytes.Buffer
	for _, im := range images[:3] {
		catalog.Write(wantJSON(t, im.BundleDir, im.Ref))
		catalog.WriteByte('\n')
	}
	file := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(file, catalog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	f := newFetcher(t, Options{BundlesFrom: []string{file}, Log: &log})
	got, err := f.RenderBundles(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, images, refs, got)
	if s := f.Stats(); s.Taken != 3 || s.Pulled != 1 {
		t.Errorf("stats %+v, want 3 taken and 1 pulled", s)
	}
	for path := range reg.PerPath() {
		for _, im := range images[:3] {
			repo := strings.SplitN(strings.SplitN(im.Ref, "/", 2)[1], ":", 2)[0]
			if strings.Contains(path, "/"+repo+"/manifests/"+strings.SplitN(im.Ref, ":", 3)[2]) {
				t.Errorf("%s was pulled although the catalog has it: %s", im.Ref, path)
			}
		}
	}
	if want := "olmcat: 4 bundle images: 1 pulled, 3 from " + file + "\n"; log.String() != want {
		t.Errorf("report %q, want %q", log.String(), want)
	}
}

func TestPullErrorNamesImageAndRegistry(t *testing.T) {
	reg, images := corpusRegistry(t)
	missing := reg.Host + "/no-such-bundle:v1"
	for _, cacheDir := range []string{"", t.TempDir()} {
		_, err := newFetcher(t, Options{CacheDir: cacheDir}).RenderBundles(context.Background(), []string{images[0].Ref, missing})
		var ie *template.ImageError
		if !errors.As(err, &ie) {
			t.Fatalf("cache %q: error %v (%T), want an ImageError", cacheDir, err, err)
		}
		if ie.Ref != missing || ie.Registry != reg.Host || !strings.Contains(ie.Error(), "not found") {
			t.Errorf("cache %q: %+v: %v", cacheDir, ie, ie)
		}
	}
	// A local directory is not a bundle image, as in opm.
	_, err := newFetcher(t, Options{}).RenderBundles(context.Background(), []string{images[0].BundleDir})
	var ie *template.ImageError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "not an image reference") {
		t.Errorf("bundle directory: %v", err)
	}
}

func TestCancelledContextStopsPulls(t *testing.T) {
	reg, images := corpusRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newFetcher(t, Options{}).RenderBundles(ctx, refsOf(images))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if n := reg.Count("GET", "blobs"); n != 0 {
		t.Errorf("%d blob GETs after cancellation", n)
	}
}

func TestCacheDirMayNotBeAnInput(t *testing.T) {
	in := t.TempDir()
	_, err := New(Options{CacheDir: filepath.Join(in, "cache")}, in)
	if !source.IsInputError(err) || !strings.Contains(err.Error(), "inside the input") {
		t.Errorf("cache inside an input: %v", err)
	}
}

// Registries on localhost and on the IPv6 loopback speak plain HTTP without --use-http, as on
// 127.0.0.1 (every other test).
func TestLoopbackRegistriesNeedNoFlag(t *testing.T) {
	dir := filepath.Join(corpus, "basic-cat-facts-operator", "bundles", "cat-facts-operator-1.0.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("the template conformance corpus is not at " + corpus)
	}
	for _, addr := range []string{"localhost:0", "[::1]:0"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("%s: %v: skipped", addr, err)
			continue
		}
		srv := httptest.NewUnstartedServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
		srv.Listener = l
		srv.Start()
		host := strings.TrimPrefix(srv.URL, "http://")
		if strings.HasPrefix(addr, "localhost") {
			_, port, _ := net.SplitHostPort(host)
			host = "localhost:" + port
		}
		ref := host + "/cat-facts-operator-bundle:1.0.0"
		imagetest.Push(t, ref, imagetest.BundleImage(t, dir))
		got, err := newFetcher(t, Options{CacheDir: t.TempDir()}).RenderBundles(context.Background(), []string{ref})
		srv.Close()
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if want := wantJSON(t, dir, ref); !bytes.Equal(marshal(t, got[0]), want) {
			t.Errorf("%s: the bundle differs from its directory rendered", ref)
		}
	}
}

// Any other plain-HTTP registry needs --use-http (UseHTTP), and the error says so. The registry is
// reached by the machine's host name, when that resolves to a loopback address.
func TestPlainHTTPRegistryNeedsUseHTTP(t *testing.T) {
	reg, images := corpusRegistry(t)
	hostname, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	addrs, err := net.LookupHost(hostname)
	if err != nil || len(addrs) == 0 || !net.ParseIP(addrs[0]).IsLoopback() || strings.Contains(hostname, ".") {
		t.Skipf("the host name %q does not resolve to a loopback address (%v %v)", hostname, addrs, err)
	}
	_, port, _ := net.SplitHostPort(reg.Host)
	ref := hostname + ":" + port + strings.TrimPrefix(images[0].Ref, reg.Host)
	_, err = newFetcher(t, Options{}).RenderBundles(context.Background(), []string{ref})
	var ie *template.ImageError
	if !errors.As(err, &ie) || ie.Registry != hostname+":"+port || !strings.Contains(err.Error(), "--use-http") {
		t.Errorf("without --use-http: %v", err)
	}
	for _, o := range []Options{{}, {CacheDir: t.TempDir()}} {
		o.Images.UseHTTP = true
		got, err := newFetcher(t, o).RenderBundles(context.Background(), []string{ref})
		if err != nil {
			t.Fatalf("with --use-http: %v", err)
		}
		checkRendered(t, images, []string{images[0].Ref}, []fbc.Bundle{bundledir.WithImage(withoutImage(got[0], ref), images[0].Ref)})
	}
}

// withoutImage undoes bundledir.WithImage for a bundle whose image is not among its related images.
func withoutImage(b fbc.Bundle, ref string) fbc.Bundle {
	b.Image = ""
	b.RelatedImages = slices.DeleteFunc(slices.Clone(b.RelatedImages), func(ri fbc.RelatedImage) bool { return ri.Image == ref })
	return b
}

// --bundles-from an index image: it is pulled once, whatever the template names besides, and kept
// open: a later call that wants a bundle it has that no earlier call wanted walks it again,
// without pulling it again.
func TestBundlesFromIndexImageReadOnce(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = images[:4]
	dir := t.TempDir()
	var catalog bytes.Buffer
	for _, im := range images[:3] {
		catalog.Write(wantJSON(t, im.BundleDir, im.Ref))
		catalog.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), catalog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	index := reg.Host + "/published/index:v4.18"
	imagetest.Push(t, index, imagetest.FBCImage(t, dir))
	reg.Reset()
	indexReads := func() int { return reg.PerPath()["GET manifests /v2/published/index/manifests/v4.18"] }
	f := newFetcher(t, Options{BundlesFrom: []string{index}})
	for i, call := range []struct {
		refs  []string
		reads int
	}{
		{[]string{images[0].Ref, images[3].Ref}, 1}, // 0 taken, 3 pulled
		{[]string{images[3].Ref, images[0].Ref}, 1}, // both rendered already
		{[]string{images[1].Ref}, 1},                // the catalog has it: walked again, not pulled
		{[]string{reg.Host + "/not/in-catalog:v1"}, 1},
	} {
		got, err := f.RenderBundles(context.Background(), call.refs)
		if i == 3 {
			if err == nil {
				t.Errorf("call %d: a missing image rendered", i)
			}
		} else if err != nil {
			t.Fatalf("call %d: %v", i, err)
		} else {
			checkRendered(t, images, call.refs, got)
		}
		if n := indexReads(); n != call.reads {
			t.Errorf("call %d: the index image was read %d times, want %d", i, n, call.reads)
		}
	}
	if s := f.Stats(); s.Taken != 2 || s.Pulled != 1 {
		t.Errorf("stats %+v, want 2 taken, 1 pulled", s)
	}
}

// A lent source of the BundlesFrom catalog (a command's input that is that same catalog) is read
// instead of opening the catalog again, and left open for its owner; a closed one is not read.
func TestBundlesFromALentSource(t *testing.T) {
	reg, images := corpusRegistry(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), wantJSON(t, images[0].BundleDir, images[0].Ref), 0o644); err != nil {
		t.Fatal(err)
	}
	index := reg.Host + "/published/index:v4.18"
	imagetest.Push(t, index, imagetest.FBCImage(t, dir))
	lent, err := source.Open(context.Background(), index, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lent.Close()
	reg.Reset()
	indexReads := func() int { return reg.PerPath()["GET manifests /v2/published/index/manifests/v4.18"] }
	f := newFetcher(t, Options{BundlesFrom: []string{index}, Lent: func(string) *source.Source { return lent }})
	got, err := f.RenderBundles(context.Background(), []string{images[0].Ref})
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, images, []string{images[0].Ref}, got)
	if n := len(reg.PerPath()); n != 0 || f.Stats().Taken != 1 {
		t.Errorf("with a lent source: %d registry requests (want none), stats %+v", n, f.Stats())
	}
	if lent.Closed() {
		t.Error("the Fetcher closed the source it was lent")
	}
	if _, err := lent.Load(context.Background()); err != nil {
		t.Errorf("the lent source cannot be read after the Fetcher: %v", err)
	}
	lent.Close()
	f = newFetcher(t, Options{BundlesFrom: []string{index}, Lent: func(string) *source.Source { return lent }})
	if _, err := f.RenderBundles(context.Background(), []string{images[0].Ref}); err != nil {
		t.Fatal(err)
	}
	if n := indexReads(); n != 1 {
		t.Errorf("with a closed lent source: the index image was read %d times, want once", n)
	}
}

// The stderr line says where bundles came from, and nothing when they were all just pulled (as
// opm, which prints nothing on success).
func TestReportLineOnlyWhenUseful(t *testing.T) {
	_, images := corpusRegistry(t)
	refs := refsOf(images[:3])
	var log bytes.Buffer
	f := newFetcher(t, Options{Log: &log})
	if _, err := f.RenderBundles(context.Background(), refs[:2]); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("plain pulls reported: %q", log.String())
	}
	if _, err := f.RenderBundles(context.Background(), refs); err != nil {
		t.Fatal(err)
	}
	if want := "olmcat: 3 bundle images: 1 pulled, 2 already rendered for another input\n"; log.String() != want {
		t.Errorf("got %q, want %q", log.String(), want)
	}
	log.Reset()
	dir := t.TempDir()
	for _, want := range []string{"olmcat: 3 bundle images: 3 pulled\n", "olmcat: 3 bundle images: 3 from the cache\n"} {
		if _, err := newFetcher(t, Options{Log: &log, CacheDir: dir}).RenderBundles(context.Background(), refs); err != nil {
			t.Fatal(err)
		}
		if log.String() != want {
			t.Errorf("with a cache: got %q, want %q", log.String(), want)
		}
		log.Reset()
	}
}

// A registry whose certificate is not trusted needs --skip-tls-verify (SkipTLSVerify).
func TestUntrustedCertificateNeedsSkipTLSVerify(t *testing.T) {
	dir := filepath.Join(corpus, "basic-cat-facts-operator", "bundles", "cat-facts-operator-1.0.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("the template conformance corpus is not at " + corpus)
	}
	srv := httptest.NewUnstartedServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	srv.StartTLS()
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "https://")
	ref := host + "/cat-facts-operator-bundle:1.0.0"
	img := imagetest.BundleImage(t, dir)
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(r, img, remote.WithTransport(srv.Client().Transport)); err != nil {
		t.Fatal(err)
	}
	_, err = newFetcher(t, Options{}).RenderBundles(context.Background(), []string{ref})
	if err == nil || !strings.Contains(err.Error(), "--skip-tls-verify") {
		t.Errorf("untrusted certificate: %v", err)
	}
	for _, o := range []Options{{}, {CacheDir: t.TempDir()}} {
		o.Images.SkipTLSVerify = true
		got, err := newFetcher(t, o).RenderBundles(context.Background(), []string{ref})
		if err != nil {
			t.Fatalf("with --skip-tls-verify: %v", err)
		}
		if !bytes.Equal(marshal(t, got[0]), wantJSON(t, dir, ref)) {
			t.Errorf("the bundle differs from its directory rendered")
		}
	}
}

// Credentials come from the docker/podman config, as for index images.
func TestCredentialsFromDockerConfig(t *testing.T) {
	dir := filepath.Join(corpus, "basic-cat-facts-operator", "bundles", "cat-facts-operator-1.0.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("the template conformance corpus is not at " + corpus)
	}
	const user, password = "maintainer", "s3cret"
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != password {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	ref := host + "/cat-facts-operator-bundle:1.0.0"
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(r, imagetest.BundleImage(t, dir), remote.WithAuth(&authn.Basic{Username: user, Password: password})); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DOCKER_CONFIG", filepath.Join(home, "docker"))
	t.Setenv("REGISTRY_AUTH_FILE", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	_, err = newFetcher(t, Options{}).RenderBundles(context.Background(), []string{ref})
	if err == nil || !strings.Contains(err.Error(), "docker login") {
		t.Errorf("without credentials: %v", err)
	}
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	if err := os.MkdirAll(filepath.Join(home, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := `{"auths": {"` + host + `": {"auth": "` + auth + `"}}}`
	if err := os.WriteFile(filepath.Join(home, "docker", "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := newFetcher(t, Options{CacheDir: t.TempDir()}).RenderBundles(context.Background(), []string{ref})
	if err != nil {
		t.Fatalf("with the docker config: %v", err)
	}
	if !bytes.Equal(marshal(t, got[0]), wantJSON(t, dir, ref)) {
		t.Errorf("the bundle differs from its directory rendered")
	}
}
