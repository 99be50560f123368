package indeximage

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// smallImageAt pushes a small FBC index image to a registry whose answers wrap may change, and
// returns its reference.
func smallImageAt(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	host := startRegistry(t, wrap)
	img := imageWith(t, map[string]string{ConfigsLabel: "/configs"}, amd64,
		layerOf(t, dir("configs"), file("configs/p.json", `{"schema":"olm.package","name":"p"}`)))
	ref := host + "/ns/index:v1"
	push(t, ref, img)
	return ref
}

// A registry that accepts connections and never answers: given up on after the timeout, naming
// the registry and what did not come.
func TestRegistryThatNeverAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // held open, silent
		}
	}()
	ref := ln.Addr().String() + "/ns/index:v1"
	_, err = fetch(t, ref, Options{RegistryTimeout: 300 * time.Millisecond})
	var terr *RegistryTimeoutError
	if !errors.As(err, &terr) {
		t.Fatalf("err = %v, want a RegistryTimeoutError", err)
	}
	for _, want := range []string{ref, ln.Addr().String(), "no response headers to GET /v2/", "--registry-timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
}

// A registry that sends the headers of a manifest, a few bytes, and then nothing.
func TestRegistryBodyThatStops(t *testing.T) {
	ref := smallImageAt(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.URL.Path, "/manifests/") || r.Method != http.MethodGet {
				h.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`{"schemaVersion":`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
	})
	_, err := fetch(t, ref, Options{RegistryTimeout: 300 * time.Millisecond})
	var terr *RegistryTimeoutError
	if !errors.As(err, &terr) || !strings.Contains(err.Error(), "the body of GET /v2/ns/index/manifests/v1 stopped") {
		t.Fatalf("err = %v, want a RegistryTimeoutError for a body that stopped", err)
	}
}

// A body that keeps moving is never cut off, however long it takes in all.
func TestRegistrySlowBodyThatMoves(t *testing.T) {
	ref := smallImageAt(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.URL.Path, "/manifests/") || r.Method != http.MethodGet {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			body := rec.Body.Bytes()
			for len(body) > 0 { // in 8 pieces, each 1/3 of the timeout apart
				n := min(len(body), rec.Body.Len()/8+1)
				w.Write(body[:n])
				w.(http.Flusher).Flush()
				body = body[n:]
				time.Sleep(100 * time.Millisecond)
			}
		})
	})
	if _, err := fetch(t, ref, Options{RegistryTimeout: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
}

// A blob GET that redirects to itself stops after maxRedirects hops.
func TestRegistryRedirectLoop(t *testing.T) {
	var hops atomic.Int64
	ref := smallImageAt(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/blobs/") && r.Method == http.MethodGet && r.Header.Get("User-Agent") != "" && strings.Contains(r.Header.Get("User-Agent"), "olmcat") {
				hops.Add(1)
				http.Redirect(w, r, r.URL.String(), http.StatusTemporaryRedirect)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	_, err := fetch(t, ref, Options{})
	if !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("err = %v, want too many redirects", err)
	}
	if n := hops.Load(); n > maxRedirects+1 {
		t.Errorf("%d redirects followed, want at most %d", n, maxRedirects+1)
	}
}

// A registry's error body reaches the error message quoted: one line, escaped, truncated.
func TestRegistryErrorBodyQuoted(t *testing.T) {
	hostile := "\x1b[2K\x1b[1Aolmcat: valid\n::notice::owned\nsecret=" + strings.Repeat("s", 500)
	ref := smallImageAt(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/manifests/") && strings.Contains(r.Header.Get("User-Agent"), "olmcat") {
				w.WriteHeader(http.StatusForbidden)
				w.Write([]byte(hostile))
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	_, err := fetch(t, ref, Options{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, bad := range []string{"\x1b", "\n", "\r", strings.Repeat("s", maxQuotedBody)} {
		if strings.Contains(msg, bad) {
			t.Errorf("the error holds %q: %q", bad, msg)
		}
	}
	if want := `the registry said "\x1b[2K\x1b[1Aolmcat: valid\n::notice::owned\nsecret=sss`; !strings.Contains(msg, want) || !strings.Contains(msg, `"…`) || !strings.Contains(msg, "HTTP 403") {
		t.Errorf("the error does not quote the body as %s…: %s", want, msg)
	}
}

func TestQuoteRegistryText(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 10, `"plain"`},
		{"a\nb", 10, `"a\nb"`},
		{"héllo", 2, `"h"…`}, // never half a character
		{"\x1b[31m", 10, `"\x1b[31m"`},
		{"", 10, `""`},
	} {
		if got := QuoteRegistryText([]byte(c.in), c.max); got != c.want {
			t.Errorf("QuoteRegistryText(%q, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
	}
}

// A manifest declaring a config of 3 GiB is refused before the config is asked for.
func TestRegistryHugeConfigRefusedUnread(t *testing.T) {
	var configGets atomic.Int64
	var configPath string
	ref := smallImageAt(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if configPath != "" && r.URL.Path == configPath {
				configGets.Add(1)
			}
			if !strings.Contains(r.URL.Path, "/manifests/") || !strings.Contains(r.Header.Get("User-Agent"), "olmcat") {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var m map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
				t.Error(err)
				return
			}
			cfg := m["config"].(map[string]any)
			configPath = "/v2/ns/index/blobs/" + cfg["digest"].(string)
			cfg["size"] = 3 << 30
			body, _ := json.Marshal(m)
			w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
			w.Write(body)
		})
	})
	_, err := fetch(t, ref, Options{})
	if !errors.Is(err, ErrLimitExceeded) || !strings.Contains(err.Error(), EnvMaxManifestBytes) {
		t.Fatalf("err = %v, want a limit naming %s", err, EnvMaxManifestBytes)
	}
	if n := configGets.Load(); n != 0 {
		t.Errorf("the config was asked for %d times before it was refused", n)
	}
}

// A manifest larger than the limit is cut off where the limit is, whatever it says of its length.
func TestRegistryHugeManifestCutOff(t *testing.T) {
	for _, declared := range []bool{true, false} {
		var sent atomic.Int64
		ref := smallImageAt(t, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.Contains(r.URL.Path, "/manifests/") || !strings.Contains(r.Header.Get("User-Agent"), "olmcat") {
					h.ServeHTTP(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
				if declared {
					w.Header().Set("Content-Length", "2000000000")
				}
				chunk := bytes.Repeat([]byte(" "), 1<<20)
				for i := 0; i < 2000 && r.Context().Err() == nil; i++ {
					if _, err := w.Write(chunk); err != nil {
						return
					}
					sent.Add(int64(len(chunk)))
				}
			})
		})
		_, err := fetch(t, ref, Options{Limits: Limits{MaxManifestBytes: 1 << 20}})
		if !errors.Is(err, ErrLimitExceeded) || !strings.Contains(err.Error(), EnvMaxManifestBytes) {
			t.Fatalf("declared length %v: err = %v, want a limit naming %s", declared, err, EnvMaxManifestBytes)
		}
	}
}
