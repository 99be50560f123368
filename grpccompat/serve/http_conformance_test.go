package serve

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/grpccompat/httpapi"
	"github.com/olmcat/olmcat/internal/source"
)

// runHTTP starts Run with the HTTP API on a free port and returns its base URL (and the gRPC
// address, "" with HTTPOnly) once the catalog is served.
func runHTTP(t *testing.T, o Options) (base, grpcAddr string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	o.HTTPAddr, o.Addr, o.DrainTimeout = "127.0.0.1:0", "127.0.0.1:0", 5*time.Second
	scheme := "http://"
	if o.HTTPTLSCert != "" {
		scheme = "https://"
	}
	// Ready and HTTPReady may be called from different goroutines, in either order (gRPC does not
	// wait for an HTTP store that reads the catalog itself); ready closes after both.
	var mu sync.Mutex
	waiting := 2
	if o.HTTPOnly {
		waiting = 1
	}
	arrived := func(set func()) {
		mu.Lock()
		defer mu.Unlock()
		set()
		if waiting--; waiting == 0 {
			close(ready)
		}
	}
	o.HTTPReady = func(a net.Addr) { arrived(func() { base = scheme + a.String() }) }
	o.Ready = func(a net.Addr) { arrived(func() { grpcAddr = a.String() }) }
	go func() { done <- Run(ctx, o) }()
	select {
	case <-ready:
		mu.Lock()
		defer mu.Unlock()
		return base, grpcAddr, func() error { cancel(); return <-done }
	case err := <-done:
		cancel()
		t.Fatalf("Run failed before ready: %v", err)
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("not ready after 60s")
	}
	return "", "", nil
}

type blob struct {
	key   httpapi.Key
	canon string
}

func decodeBlobs(t *testing.T, r io.Reader) []blob {
	t.Helper()
	var out []blob
	err := httpapi.DecodeStream(r, func(k httpapi.Key, c []byte) error {
		out = append(out, blob{k, string(c)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// renderedBlobs is what `olmcat render CATALOG` prints, blob by blob.
func renderedBlobs(t *testing.T, path string) []blob {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, path, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var b bytes.Buffer
	if err := src.WalkPackages(ctx, func(_ string, c *fbc.Catalog) error { return fbc.Write(&b, c, fbc.JSON) }); err != nil {
		t.Fatal(err)
	}
	return decodeBlobs(t, &b)
}

func get(t *testing.T, u string) []blob {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	return decodeBlobs(t, resp.Body)
}

// sameSet compares as multisets of canonical blobs.
func sameSet(t *testing.T, what string, got, want []blob) {
	t.Helper()
	canon := func(bs []blob) []string {
		out := make([]string, len(bs))
		for i, b := range bs {
			out[i] = b.canon
		}
		slices.Sort(out)
		return out
	}
	g, w := canon(got), canon(want)
	if !slices.Equal(g, w) {
		t.Errorf("%s: %d blobs, want %d (first difference among %v...)", what, len(g), len(w), keys(got, 3))
	}
}

func keys(bs []blob, n int) []string {
	var out []string
	for _, b := range bs[:min(n, len(bs))] {
		out = append(out, b.key.String())
	}
	return out
}

// For every conformance FBC and index.db, /api/v1/all is exactly what `olmcat render` prints, and
// each metas query exactly the blobs it selects. FBCs are served with gRPC too (the HTTP store is
// fed from the gRPC backend's walk), index.dbs with and without gRPC.
func TestHTTPConformance(t *testing.T) {
	fbcs, _ := filepath.Glob(filepath.Join(needCorpus(t, "fbc"), "*", "catalog"))
	dbs, _ := filepath.Glob(filepath.Join(needCorpus(t, "sqlite"), "*", "input.db"))
	if len(fbcs) == 0 || len(dbs) == 0 {
		t.Fatal("no conformance catalogs found")
	}
	for i, path := range append(fbcs, dbs...) {
		name := filepath.Base(filepath.Dir(path))
		t.Run(name, func(t *testing.T) {
			want := renderedBlobs(t, path)
			base, _, stop := runHTTP(t, Options{Path: path, HTTPOnly: i%2 == 1})
			defer stop()
			sameSet(t, "/api/v1/all", get(t, base+"/api/v1/all"), want)
			sameSet(t, "/catalogs/NAME/api/v1/all", get(t, base+"/catalogs/"+name+"/api/v1/all"), want)
			for _, q := range metasQueries(want) {
				var sel []blob
				for _, b := range want {
					if b.key.Matches(q.Get("schema"), q.Get("package"), q.Get("name")) {
						sel = append(sel, b)
					}
				}
				sameSet(t, "metas?"+q.Encode(), get(t, base+"/api/v1/metas?"+q.Encode()), sel)
			}
		})
	}
}

// metasQueries asks by every schema and package, by some names, by their combinations, and by
// values that match nothing.
func metasQueries(bs []blob) []url.Values {
	qs := []url.Values{{}, {"schema": {"nope"}}, {"package": {"nope"}}, {"name": {"nope"}},
		{"schema": {fbc.SchemaBundle}, "package": {"nope"}}}
	seen := map[string]bool{}
	add := func(kv ...string) {
		q := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] != "" {
				q.Set(kv[i], kv[i+1])
			}
		}
		if e := q.Encode(); !seen[e] {
			seen[e] = true
			qs = append(qs, q)
		}
	}
	for i, b := range bs {
		add("schema", b.key.Schema)
		add("package", b.key.Package)
		add("schema", b.key.Schema, "package", b.key.Package)
		if i%7 == 0 {
			add("name", b.key.Name)
			add("package", b.key.Package, "name", b.key.Name)
			add("schema", b.key.Schema, "package", b.key.Package, "name", b.key.Name)
		}
	}
	return qs
}
