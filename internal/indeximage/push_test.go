package indeximage

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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
