package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/olmcat/olmcat/fbc"
)

// testStore holds two packages; bundle bodies are padded to size bytes each.
func testStore(t *testing.T, size int) *Store {
	t.Helper()
	b, err := NewBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", size)
	for _, pkg := range []string{"foo", "bar"} {
		blobs := []fbc.Blob{
			{Schema: fbc.SchemaPackage, Package: pkg, Name: pkg, Data: []byte(fmt.Sprintf(`{"schema":"olm.package",  "name":%q}`, pkg))},
			{Schema: fbc.SchemaChannel, Package: pkg, Name: "stable", Data: []byte(fmt.Sprintf(`{"schema":"olm.channel","package":%q,"name":"stable",
				"entries":[{"name":"%s.v1"}]}`, pkg, pkg))},
			{Schema: fbc.SchemaBundle, Package: pkg, Name: pkg + ".v1", Data: []byte(fmt.Sprintf(`{"schema":"olm.bundle","package":%q,"name":"%s.v1","image":%q}`, pkg, pkg, pad))},
		}
		for _, blob := range blobs {
			if err := b.Add(blob); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func do(t *testing.T, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func lines(body string) int { return strings.Count(body, "\n") }

func TestMethodsAndParameters(t *testing.T) {
	s := NewServer(Options{})
	s.SetStore(testStore(t, 10))
	h := s.Handler()
	for _, path := range []string{"/api/v1/all", "/api/v1/metas", "/catalogs/any/api/v1/all", "/catalogs/any/api/v1/metas"} {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
			w := do(t, h, m, path)
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" || w.Body.String() != "Method Not Allowed\n" {
				t.Errorf("%s %s: %d %q allow %q, want 405", m, path, w.Code, w.Body, w.Header().Get("Allow"))
			}
		}
	}
	for target, want := range map[string]int{
		"/api/v1/metas?schema=olm.bundle&foo=1": 400, "/api/v1/metas?Schema=olm.bundle": 400,
		"/api/v1/metas?schema=nope": 200, "/api/v1/all?foo=1": 200, "/api/v1/nope": 404, "/api/v1/all/": 404,
	} {
		if w := do(t, h, http.MethodGet, target); w.Code != want {
			t.Errorf("GET %s: %d, want %d", target, w.Code, want)
		} else if want == 400 && w.Body.String() != "400 Bad Request\n" {
			t.Errorf("GET %s: body %q", target, w.Body)
		}
	}
}

func TestMetasSelects(t *testing.T) {
	s := NewServer(Options{})
	s.SetStore(testStore(t, 10))
	h := s.Handler()
	for q, want := range map[string]int{
		"":                            6,
		"schema=olm.bundle":           2,
		"package=foo":                 2, // the olm.package blob has no package field
		"schema=olm.package&name=foo": 1,
		"name=stable":                 2,
		"package=bar&name=stable":     1,
		"schema=olm.channel&package=bar&name=stable": 1,
		"schema=olm.bundle&package=nope":             0,
		"schema=&package=&name=":                     6,
	} {
		w := do(t, h, http.MethodGet, "/api/v1/metas?"+q)
		if w.Code != 200 || lines(w.Body.String()) != want || w.Header().Get("Content-Type") != "application/jsonl" {
			t.Errorf("metas?%s: %d, %d blobs, %q; want 200, %d", q, w.Code, lines(w.Body.String()), w.Header().Get("Content-Type"), want)
		}
		if cl := w.Header().Get("Content-Length"); cl != "" {
			t.Errorf("metas?%s: Content-Length %s; catalogd streams /metas (net/http adds one to small answers)", q, cl)
		}
	}
	// Blobs come back as catalogd re-encodes them (keys sorted), one a line, in the catalog's order.
	w := do(t, h, http.MethodGet, "/api/v1/metas?package=foo")
	if want := `{"entries":[{"name":"foo.v1"}],"name":"stable","package":"foo","schema":"olm.channel"}` + "\n"; !strings.HasPrefix(w.Body.String(), want) {
		t.Errorf("first line %q, want %q", w.Body.String(), want)
	}
}

func TestConditionalAndHead(t *testing.T) {
	st := testStore(t, 10)
	s := NewServer(Options{})
	s.SetStore(st)
	h := s.Handler()
	for _, path := range []string{"/api/v1/all", "/api/v1/metas?schema=olm.bundle", "/catalogs/c/api/v1/all"} {
		get := do(t, h, http.MethodGet, path)
		lm := get.Header().Get("Last-Modified")
		if lm != st.ModTime().Format(http.TimeFormat) || get.Header().Get("Content-Type") != "application/jsonl" {
			t.Errorf("GET %s: Last-Modified %q, Content-Type %q", path, lm, get.Header().Get("Content-Type"))
		}
		if w := do(t, h, http.MethodGet, path, "If-Modified-Since", lm); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
			t.Errorf("GET %s If-Modified-Since its Last-Modified: %d with %d bytes, want 304", path, w.Code, w.Body.Len())
		}
		earlier := st.ModTime().Add(-time.Hour).Format(http.TimeFormat)
		if w := do(t, h, http.MethodGet, path, "If-Modified-Since", earlier); w.Code != 200 {
			t.Errorf("GET %s If-Modified-Since an hour before: %d, want 200", path, w.Code)
		}
		head := do(t, h, http.MethodHead, path)
		wantLength := fmt.Sprint(get.Body.Len())
		if strings.Contains(path, "metas") {
			wantLength = "" // catalogd streams /metas: no length, HEAD included
		}
		if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != wantLength {
			t.Errorf("HEAD %s: %d, %d bytes, Content-Length %q; want 200, none, %q", path, head.Code, head.Body.Len(), head.Header().Get("Content-Length"), wantLength)
		}
	}
	// /all is served as catalogd serves it (http.ServeContent): byte ranges too.
	w := do(t, h, http.MethodGet, "/api/v1/all", "Range", "bytes=0-9")
	if w.Code != http.StatusPartialContent || w.Body.String() != `{"name":"f` {
		t.Errorf("range: %d %q", w.Code, w.Body)
	}
}

func TestGzip(t *testing.T) {
	s := NewServer(Options{})
	s.SetStore(testStore(t, 4096))
	h := s.Handler()
	plain := do(t, h, http.MethodGet, "/api/v1/all").Body.String()
	for _, path := range []string{"/api/v1/all", "/api/v1/metas?package=foo", "/api/v1/metas"} {
		w := do(t, h, http.MethodGet, path, "Accept-Encoding", "deflate, gzip;q=0.8")
		if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Content-Length") != "" || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Fatalf("%s: headers %v, want gzip", path, w.Header())
		}
		zr, err := gzip.NewReader(w.Body)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if want := do(t, h, http.MethodGet, path).Body.String(); string(body) != want || !strings.Contains(plain, string(body[:20])) {
			t.Errorf("%s: gunzipped body differs from the plain one", path)
		}
	}
	for _, c := range []struct{ path, ae string }{
		{"/api/v1/metas?schema=olm.package", "gzip"}, // under 1 KiB
		{"/api/v1/all", "gzip;q=0"},
		{"/api/v1/all", "br"},
	} {
		if w := do(t, h, http.MethodGet, c.path, "Accept-Encoding", c.ae); w.Header().Get("Content-Encoding") != "" || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s with Accept-Encoding %q: headers %v, want plain", c.path, c.ae, w.Header())
		}
	}
	if w := do(t, h, http.MethodHead, "/api/v1/all", "Accept-Encoding", "gzip"); w.Header().Get("Content-Encoding") != "" {
		t.Errorf("HEAD is never compressed (as gzhttp): %v", w.Header())
	}
	if w := do(t, h, http.MethodGet, "/api/v1/all", "Accept-Encoding", "gzip", "Range", "bytes=0-2000"); w.Code != 206 || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("range with gzip: %d %v, want a plain 206", w.Code, w.Header())
	}
}

func TestLoadingAndCatalogNames(t *testing.T) {
	s := NewServer(Options{CatalogName: "operatorhubio"})
	h := s.Handler()
	for _, path := range []string{"/api/v1/all", "/catalogs/operatorhubio/api/v1/metas?schema=olm.package", "/healthz"} {
		w := do(t, h, http.MethodGet, path)
		if w.Code != http.StatusServiceUnavailable || (path != "/healthz" && w.Header().Get("Retry-After") == "") {
			t.Errorf("GET %s while loading: %d %v, want 503 with Retry-After", path, w.Code, w.Header())
		}
	}
	s.SetStore(testStore(t, 10))
	for path, want := range map[string]int{
		"/healthz": 200, "/catalogs/operatorhubio/api/v1/all": 200, "/catalogs/operatorhubio/api/v1/metas?package=foo": 200,
		"/catalogs/other/api/v1/all": 404, "/catalogs/other/api/v1/metas": 404,
		"/catalogs/Bad_Name/api/v1/all": 400, "/catalogs/-x/api/v1/metas": 400, "/catalogs/operatorhubio/api/v1/nope": 404,
	} {
		if w := do(t, h, http.MethodGet, path); w.Code != want {
			t.Errorf("GET %s: %d, want %d", path, w.Code, want)
		}
	}
	any := NewServer(Options{})
	any.SetStore(testStore(t, 10))
	if w := do(t, any.Handler(), http.MethodGet, "/catalogs/whatever.example/api/v1/all"); w.Code != 200 || lines(w.Body.String()) != 6 {
		t.Errorf("a server without a name answers under any valid name: %d", w.Code)
	}
}

func TestIntersect(t *testing.T) {
	long := make([]int32, 1000)
	for i := range long {
		long[i] = int32(2 * i)
	}
	for _, c := range []struct{ a, b, want []int32 }{
		{[]int32{1, 2, 3}, []int32{2, 3, 4}, []int32{2, 3}},
		{[]int32{4, 5, 1998, 1999}, long, []int32{4, 1998}},
		{long, []int32{0, 3, 500}, []int32{0, 500}},
		{nil, long, nil},
	} {
		if got := intersect(c.a, c.b); !bytes.Equal([]byte(fmt.Sprint(got)), []byte(fmt.Sprint(c.want))) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("intersect(%v, ...) = %v, want %v", c.a[:min(4, len(c.a))], got, c.want)
		}
	}
}

// /metas answers conditional requests as http.ServeContent answers them for /all, and ignores an
// unparseable If-Modified-Since (where catalogd answers 500).
func TestMetasPreconditions(t *testing.T) {
	st := testStore(t, 10)
	s := NewServer(Options{})
	s.SetStore(st)
	h := s.Handler()
	lm := st.ModTime().Format(http.TimeFormat)
	past := st.ModTime().Add(-time.Hour).Format(http.TimeFormat)
	for _, c := range []struct {
		header []string
		want   int
	}{
		{[]string{"If-None-Match", "*"}, http.StatusNotModified},
		{[]string{"If-None-Match", `"x"`}, http.StatusOK},
		{[]string{"If-Match", `"x"`}, http.StatusPreconditionFailed},
		{[]string{"If-Match", "*"}, http.StatusOK},
		{[]string{"If-Unmodified-Since", past}, http.StatusPreconditionFailed},
		{[]string{"If-Unmodified-Since", lm}, http.StatusOK},
		{[]string{"If-Unmodified-Since", "garbage"}, http.StatusOK},
		{[]string{"If-Modified-Since", lm}, http.StatusNotModified},
		{[]string{"If-Modified-Since", "garbage"}, http.StatusOK},
	} {
		for _, path := range []string{"/api/v1/metas", "/api/v1/metas?schema=olm.package", "/api/v1/all"} {
			w := do(t, h, http.MethodGet, path, c.header...)
			if w.Code != c.want {
				t.Errorf("GET %s %v: %d, want %d", path, c.header, w.Code, c.want)
			}
			if strings.Contains(path, "metas") && c.want != http.StatusOK && (w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" || w.Header().Get("Last-Modified") != lm) {
				t.Errorf("GET %s %v: %q, headers %v; want no body, no Content-Type, Last-Modified", path, c.header, w.Body, w.Header())
			}
		}
	}
}

// With DisableMetas the route is gone, as in a catalogd without its APIV1MetasHandler gate.
func TestMetasDisabled(t *testing.T) {
	s := NewServer(Options{DisableMetas: true})
	s.SetStore(testStore(t, 10))
	for _, path := range []string{"/api/v1/metas", "/catalogs/c/api/v1/metas?schema=olm.package"} {
		if w := do(t, s.Handler(), http.MethodGet, path); w.Code != http.StatusNotFound || w.Body.String() != "404 page not found\n" {
			t.Errorf("GET %s: %d %q, want 404", path, w.Code, w.Body)
		}
	}
	if w := do(t, s.Handler(), http.MethodGet, "/api/v1/all"); w.Code != http.StatusOK {
		t.Errorf("GET /api/v1/all: %d", w.Code)
	}
}

// The Kubernetes probes: /livez is 200 whenever the server answers (a long load must not get the
// pod restarted); /readyz and /healthz are 503 while the catalog loads and once the server drains,
// 200 while it serves.
func TestProbes(t *testing.T) {
	s := NewServer(Options{})
	h := s.Handler()
	check := func(when string, want map[string]int) {
		t.Helper()
		for path, code := range want {
			if w := do(t, h, http.MethodGet, path); w.Code != code {
				t.Errorf("%s: GET %s: %d %q, want %d", when, path, w.Code, w.Body.String(), code)
			}
		}
	}
	check("loading", map[string]int{"/livez": 200, "/readyz": 503, "/healthz": 503})
	s.SetStore(testStore(t, 10))
	check("serving", map[string]int{"/livez": 200, "/readyz": 200, "/healthz": 200})
	for _, path := range []string{"/livez", "/readyz"} {
		if w := do(t, h, http.MethodPost, path); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("POST %s: %d %v, want 405 with Allow", path, w.Code, w.Header())
		}
		if w := do(t, h, http.MethodHead, path); w.Code != 200 {
			t.Errorf("HEAD %s: %d", path, w.Code)
		}
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // served and drained at once
	if err := s.Serve(ctx, lis, time.Second); err != nil {
		t.Fatal(err)
	}
	check("drained", map[string]int{"/livez": 200, "/readyz": 503, "/healthz": 503})
}

// /all keeps being served after the store's file is removed from the temporary directory (by a
// cleaner that took it for old: the server runs for months), as /metas is, from the descriptor
// the store holds.
func TestAllSurvivesRemovedStoreFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd on this system: /all opens the store by name")
	}
	st := testStore(t, 1000)
	s := NewServer(Options{})
	s.SetStore(st)
	want, err := io.ReadAll(st.All())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(st.f.Name()); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/all", "/api/v1/metas"} {
		w := do(t, s.Handler(), http.MethodGet, path)
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("GET %s after the store file was removed: %d, %d bytes, want 200 and %d bytes", path, w.Code, w.Body.Len(), len(want))
		}
	}
}
