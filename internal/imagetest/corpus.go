package imagetest

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// CorpusHost is the registry host the template conformance corpus names in its image refs.
const CorpusHost = "127.0.0.1:5000"

// CountingRegistry is an in-memory registry on loopback that counts the requests it answers.
type CountingRegistry struct {
	Host string
	// Delay holds every manifest and blob request this long, so that requests made at once
	// overlap (see MaxInFlight).
	Delay time.Duration

	mu       sync.Mutex
	requests map[string]int // "METHOD manifests|blobs PATH"
	inFlight atomic.Int32
	maxSeen  atomic.Int32
}

// NewCountingRegistry serves an empty registry for the test.
func NewCountingRegistry(t testing.TB) *CountingRegistry {
	t.Helper()
	r := &CountingRegistry{requests: map[string]int{}}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		kind := ""
		switch {
		case strings.Contains(req.URL.Path, "/manifests/"):
			kind = "manifests"
		case strings.Contains(req.URL.Path, "/blobs/") && !strings.Contains(req.URL.Path, "/uploads/"):
			kind = "blobs"
		}
		if kind != "" {
			n := r.inFlight.Add(1)
			defer r.inFlight.Add(-1)
			for {
				m := r.maxSeen.Load()
				if n <= m || r.maxSeen.CompareAndSwap(m, n) {
					break
				}
			}
			if r.Delay > 0 {
				time.Sleep(r.Delay)
			}
			r.mu.Lock()
			r.requests[req.Method+" "+kind+" "+req.URL.Path]++
			r.mu.Unlock()
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.Host = strings.TrimPrefix(srv.URL, "http://")
	return r
}

// Reset forgets the requests counted so far.
func (r *CountingRegistry) Reset() {
	r.mu.Lock()
	r.requests = map[string]int{}
	r.mu.Unlock()
	r.maxSeen.Store(0)
}

// Count is the number of requests with this method ("GET", "HEAD") for manifests or blobs
// (kind), of any path.
func (r *CountingRegistry) Count(method, kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for k, c := range r.requests {
		if strings.HasPrefix(k, method+" "+kind+" ") {
			n += c
		}
	}
	return n
}

// PerPath is the number of requests of each method, kind and path ("GET manifests /v2/...").
func (r *CountingRegistry) PerPath() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, c := range r.requests {
		out[k] = c
	}
	return out
}

// MaxInFlight is the most manifest and blob requests served at once since the last Reset.
func (r *CountingRegistry) MaxInFlight() int { return int(r.maxSeen.Load()) }

// CorpusImage is a bundle image of a template conformance case, pushed to a test registry.
type CorpusImage struct {
	CorpusRef string // the ref as the corpus writes it (host CorpusHost)
	Ref       string // the ref on the test registry
	BundleDir string
	Digest    string // manifest digest of the pushed image
}

// PushCorpusImages pushes every image of a template conformance case directory (images.json
// entries with a bundle: bundles/NAME with the labels listed) to host, under the same
// repository and tag, and returns them sorted by ref.
func PushCorpusImages(t testing.TB, host, caseDir string) []CorpusImage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(caseDir, "images.json"))
	if err != nil {
		t.Fatal(err)
	}
	var images map[string]struct {
		Bundle *string           `json:"bundle"`
		Labels map[string]string `json:"labels"`
	}
	if err := json.Unmarshal(data, &images); err != nil {
		t.Fatalf("%s/images.json: %v", caseDir, err)
	}
	var out []CorpusImage
	for ref, im := range images {
		if im.Bundle == nil {
			continue
		}
		dir := filepath.Join(caseDir, "bundles", *im.Bundle)
		img := LabelledBundleImage(t, dir, im.Labels)
		to := host + strings.TrimPrefix(ref, CorpusHost)
		Push(t, to, img)
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, CorpusImage{CorpusRef: ref, Ref: to, BundleDir: dir, Digest: d.String()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}
