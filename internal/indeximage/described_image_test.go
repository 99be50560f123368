package indeximage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// manyLayerImage is an FBC index image of n layers: the catalog at the bottom, n-1 layers on top
// each adding one file beside it, so that every layer is read.
func manyLayerImage(t *testing.T, n int) v1.Image {
	t.Helper()
	layers := []v1.Layer{layerOf(t, dir("configs"), file("configs/p.json", `{"schema":"olm.package","name":"p"}`))}
	for i := 1; i < n; i++ {
		layers = append(layers, layerOf(t, file(fmt.Sprintf("junk-%d", i), fmt.Sprint(i))))
	}
	return imageWith(t, map[string]string{ConfigsLabel: "/configs"}, amd64, layers...)
}

// requestCounter counts the GET requests a registry answers, by path.
type requestCounter struct {
	mu   sync.Mutex
	gets map[string]int
}

func (c *requestCounter) wrap(h http.Handler) http.Handler {
	c.gets = map[string]int{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			c.mu.Lock()
			c.gets[r.URL.Path]++
			c.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (c *requestCounter) count(kind string) (requests, paths int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, n := range c.gets {
		if strings.Contains(p, "/"+kind+"/") {
			requests += n
			paths++
		}
	}
	return requests, paths
}

// Every layer of a many-layer registry image is read once, through one manifest request, and
// the manifest is parsed once however many layers there are (go-containerregistry's own layers
// parsed it again for each).
func TestRegistryManyLayersReadLinearly(t *testing.T) {
	const layers = 300
	var c requestCounter
	host := startRegistry(t, c.wrap)
	push(t, host+"/ns/index:v1", manyLayerImage(t, layers))
	c.gets = map[string]int{}

	res, err := resolveRef(context.Background(), host+"/ns/index:v1", Options{fastRetries: true})
	if err != nil {
		t.Fatal(err)
	}
	ri, ok := res.img.(*describedImage)
	if !ok {
		t.Fatalf("a registry image resolves to %T, not to a describedImage", res.img)
	}
	counted := &manifestCounting{Image: ri.Image}
	ri.Image = counted
	cat, err := extract(context.Background(), res.img, res.where, Options{TempDir: t.TempDir()}, res.blobsVerified)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Cleanup()
	if cat.LayersRead != layers || cat.LayersTotal != layers {
		t.Errorf("read %d of %d layers, want all %d", cat.LayersRead, cat.LayersTotal, layers)
	}
	if n, _ := c.count("manifests"); n != 1 {
		t.Errorf("%d manifest requests, want 1", n)
	}
	if n, paths := c.count("blobs"); n != layers+1 || paths != layers+1 {
		t.Errorf("%d blob requests of %d blobs, want each of the %d layers and the config once", n, paths, layers)
	}
	if counted.parses > 2 {
		t.Errorf("the manifest was parsed %d times to read %d layers, want at most twice (the layers, the config's size)", counted.parses, layers)
	}
}

// manifestCounting counts the parses of an image's manifest.
type manifestCounting struct {
	v1.Image
	parses int
}

func (m *manifestCounting) Manifest() (*v1.Manifest, error) {
	m.parses++
	return m.Image.Manifest()
}

// A registry that sends a layer blob longer than its manifest declares is cut off one byte past
// the declared size, not read to its end before the digest is checked.
func TestRegistryLayerLongerThanDeclared(t *testing.T) {
	img := manyLayerImage(t, 2)
	top, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	digest, err := top[1].Digest()
	if err != nil {
		t.Fatal(err)
	}
	var sent int64
	ref := ""
	host := startRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/blobs/"+digest.String()) {
				h.ServeHTTP(w, r)
				return
			}
			// No Content-Length: the body is all there is to go by.
			chunk := []byte(strings.Repeat("x", 64<<10))
			for range 1 << 10 { // 64 MiB
				if _, err := w.Write(chunk); err != nil {
					return
				}
				sent += int64(len(chunk))
				w.(http.Flusher).Flush()
			}
		})
	})
	ref = host + "/ns/index:v1"
	push(t, ref, img)
	_, err = fetch(t, ref, Options{})
	if err == nil || !strings.Contains(err.Error(), "more than the manifest declares for blob "+digest.String()) {
		t.Fatalf("err = %v, want the blob refused past its declared size", err)
	}
	if sent >= 64<<20 {
		t.Errorf("the registry sent the whole %d bytes", sent)
	}
}

// Manifests read at once share one budget: a read waits until others give room back.
func TestManifestReadsShareOneBudget(t *testing.T) {
	const size = 1 << 20
	saved := pullMemory
	pullMemory = newMemoryBudget(2 * size)
	t.Cleanup(func() { pullMemory = saved })
	srv := startRegistry(t, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(size))
			w.Write(make([]byte, size))
		})
	})
	tr := newRegistryTransport(nil, Options{Limits: Limits{MaxManifestBytes: 4 * size}})
	get := func() (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+srv+"/v2/ns/x/manifests/v1", nil)
		return tr.RoundTrip(req)
	}
	first, err := get()
	if err != nil {
		t.Fatal(err)
	}
	second, err := get()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	closed := false
	done := make(chan bool)
	go func() {
		third, err := get()
		if err == nil {
			third.Body.Close()
		}
		mu.Lock()
		after := closed
		mu.Unlock()
		done <- after
	}()
	mu.Lock()
	closed = true
	mu.Unlock()
	io.Copy(io.Discard, second.Body)
	second.Body.Close() // gives its room back at its end: the third may go
	if !<-done {
		// Only possible if the third read did not wait for the second to end.
		t.Error("a third manifest read went ahead while two filled the budget")
	}
	first.Body.Close()

	// A wait ends with its context.
	a, _ := get()
	b, _ := get()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+srv+"/v2/ns/x/manifests/v1", nil)
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the canceled context's", err)
	}
	a.Body.Close()
	b.Body.Close()
	if pullMemory.free != pullMemory.size {
		t.Errorf("%d of %d bytes free once every body is closed", pullMemory.free, pullMemory.size)
	}
}

// The layers of an OCI layout (the bundle cache's form) are read linearly too: its manifest is
// parsed once however many layers there are, and every layer is read and checked.
func TestLayoutManyLayersReadLinearly(t *testing.T) {
	const layers = 300
	dir := t.TempDir()
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.AppendImage(manyLayerImage(t, layers)); err != nil {
		t.Fatal(err)
	}
	parses := 0
	rawManifestAsked = func() { parses++ }
	defer func() { rawManifestAsked = func() {} }()
	res, err := resolveRef(context.Background(), OCILayoutPrefix+dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := extract(context.Background(), res.img, res.where, Options{TempDir: t.TempDir()}, res.blobsVerified)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Cleanup()
	if cat.LayersRead != layers {
		t.Errorf("read %d of %d layers, want all %d", cat.LayersRead, cat.LayersTotal, layers)
	}
	// Resolving checks the manifest, the layers are listed once, the config is found once: a
	// handful of parses, not one per layer.
	if parses > 8 {
		t.Errorf("the manifest was asked for %d times to read %d layers, want a few, not one per layer", parses, layers)
	}
}
