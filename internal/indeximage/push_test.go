package indeximage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// uploadReader is a base transport that takes a request body in 8 pieces, each 1/3 of the
// registry timeout apart, as a slow link takes a blob upload, and then answers 201.
type uploadReader struct{ got int }

func (u *uploadReader) RoundTrip(req *http.Request) (*http.Response, error) {
	buf := make([]byte, int(req.ContentLength)/8+1)
	for {
		n, err := io.ReadFull(req.Body, buf)
		u.got += n
		if err != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
		if err := req.Context().Err(); err != nil {
			req.Body.Close()
			return nil, err
		}
	}
	req.Body.Close()
	return &http.Response{StatusCode: http.StatusCreated, Body: http.NoBody, Request: req, Header: http.Header{}}, nil
}

// A push's request body that keeps moving is never cut off, however long it takes in all: the
// response headers come only once it is sent.
func TestRegistrySlowUploadThatMoves(t *testing.T) {
	base := &uploadReader{}
	rt := newRegistryTransport(base, Options{RegistryTimeout: 300 * time.Millisecond})
	body := bytes.Repeat([]byte("blob"), 4096)
	req, _ := http.NewRequest(http.MethodPut, "http://registry.test/v2/ns/x/blobs/uploads/1", bytes.NewReader(body))
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("a moving upload was cut off: %v", err)
	}
	resp.Body.Close()
	if base.got != len(body) {
		t.Errorf("the transport sent %d bytes of %d", base.got, len(body))
	}
}

// An upload that stops moving is given up on, naming the request.
func TestRegistryUploadThatStops(t *testing.T) {
	rt := newRegistryTransport(roundTripFunc(func(req *http.Request) (*http.Response, error) {
		io.ReadFull(req.Body, make([]byte, 10))
		<-req.Context().Done()
		return nil, req.Context().Err()
	}), Options{RegistryTimeout: 300 * time.Millisecond})
	req, _ := http.NewRequest(http.MethodPut, "http://registry.test/v2/ns/x/blobs/uploads/1", bytes.NewReader(make([]byte, 1000)))
	_, err := rt.RoundTrip(req)
	var terr *RegistryTimeoutError
	if !errors.As(err, &terr) || !strings.Contains(err.Error(), "PUT /v2/ns/x/blobs/uploads/1") {
		t.Fatalf("err = %v, want a RegistryTimeoutError naming the upload", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Push reports its progress up to every byte it sends, and sends what the registry lacks only:
// a second push of the same layout sends no blob.
func TestPushProgress(t *testing.T) {
	host := startRegistry(t, nil)
	img := imageWith(t, map[string]string{ConfigsLabel: "/configs"}, amd64,
		layerOf(t, dir("configs"), file("configs/p.json", strings.Repeat(`{"schema":"olm.package","name":"p"}`, 3000))))
	lp := filepath.Join(t.TempDir(), "layout")
	p, err := layout.Write(lp, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	want, _ := img.Digest()
	s, err := OpenPushSource(OCILayoutPrefix + lp)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Kind != "image" || s.Digest != want || s.Manifests != 1 || s.Blobs != 2 {
		t.Errorf("source: %s %s, %d manifests, %d blobs; want image %s, 1 manifest, 2 blobs", s.Kind, s.Digest, s.Manifests, s.Blobs, want)
	}
	dest, err := ParsePushDestination(host+"/ns/p:v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	var lastSent, lastTotal int64
	pushed, err := s.Push(context.Background(), dest, Options{}, func(sent, total int64) { calls, lastSent, lastTotal = calls+1, sent, total })
	if err != nil {
		t.Fatal(err)
	}
	if pushed.String() != host+"/ns/p@"+want.String() {
		t.Errorf("pushed %s", pushed)
	}
	m, _ := img.Manifest()
	if calls == 0 || lastSent != lastTotal || lastTotal < m.Layers[0].Size {
		t.Errorf("progress: %d calls, last %d of %d; the layer alone has %d bytes", calls, lastSent, lastTotal, m.Layers[0].Size)
	}
	desc, err := remote.Head(dest)
	if err != nil || desc.Digest != want {
		t.Fatalf("the registry serves %v (%v), want %s", desc, err, want)
	}
	lastTotal = 0
	if _, err := s.Push(context.Background(), dest, Options{}, func(sent, total int64) { lastTotal = total }); err != nil {
		t.Fatal(err)
	}
	if lastTotal >= m.Layers[0].Size {
		t.Errorf("a second push meant to send %d bytes again", lastTotal)
	}
}

// A push destination parses to a registry reference with a registry, or is refused in a sentence
// that names it; never a local image, never a panic.
func FuzzParsePushDestination(f *testing.F) {
	for _, s := range []string{"quay.io/ns/index:v4.12", "localhost:5000/x@sha256:" + strings.Repeat("a", 64),
		"docker://ubuntu", "index:v1", "oci-layout:/tmp/x", "docker-archive:f.tar", "127.0.0.1:5000/UPPER", "", "docker://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := ParsePushDestination(s, Options{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "push destination ") || strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("%q: error %q", s, err)
			}
			return
		}
		if strings.HasPrefix(s, OCILayoutPrefix) || strings.HasPrefix(s, DockerArchivePrefix) || ref.Context().RegistryStr() == "" {
			t.Fatalf("%q accepted as %v", s, ref)
		}
	})
}
