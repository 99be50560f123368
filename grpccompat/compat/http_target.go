package compat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/grpccompat/httpapi"
	"github.com/olmcat/olmcat/internal/source"
)

// HTTPTarget is one side of an HTTP (catalogd API) comparison: a live server, a recorded answer
// set, or a catalog olmcat serves in-process.
type HTTPTarget interface {
	// Get answers GET path?query, path being "all" or "metas".
	Get(ctx context.Context, path string, query url.Values) (status int, body io.ReadCloser, err error)
	String() string
	Close() error
}

// RecordedAllFile and RecordedMetasDir make a recorded answer set: a directory holding all.jsonl,
// the body of GET /api/v1/all, and optionally metas/QUERY.jsonl, the body of GET
// /api/v1/metas?QUERY, QUERY being the query string as url.Values encodes it (keys sorted), escaped
// with url.QueryEscape. A metas query without a file is answered from all.jsonl as catalogd
// would: the blobs whose schema, package and name match. Record a server with
//
//	curl -s http://HOST:PORT/api/v1/all > DIR/all.jsonl
const (
	RecordedAllFile  = "all.jsonl"
	RecordedMetasDir = "metas"
)

// IsHTTPSpec reports whether spec names a live catalogd API server.
func IsHTTPSpec(spec string) bool {
	return strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://")
}

// OpenHTTPTarget opens one side: http(s)://HOST:PORT[/catalogs/NAME] is a live server, a
// directory with all.jsonl a recorded answer set, anything else a catalog reference that olmcat
// loads and serves on loopback as `olmcat serve --http-addr` does.
func OpenHTTPTarget(ctx context.Context, spec string, o OpenOptions) (HTTPTarget, error) {
	if IsHTTPSpec(spec) {
		u, err := url.Parse(strings.TrimSuffix(spec, "/"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec, err)
		}
		return &liveHTTP{base: u, client: &http.Client{Timeout: o.Dial.Timeout}}, nil
	}
	if _, err := os.Stat(filepath.Join(spec, RecordedAllFile)); err == nil {
		return recordedHTTP{dir: spec}, nil
	}
	return serveHTTP(ctx, spec, o.Source)
}

type liveHTTP struct {
	base   *url.URL
	client *http.Client
	stop   func()
}

func (l *liveHTTP) String() string { return l.base.String() }

func (l *liveHTTP) Close() error {
	if l.stop != nil {
		l.stop()
	}
	return nil
}

func (l *liveHTTP) Get(ctx context.Context, path string, query url.Values) (int, io.ReadCloser, error) {
	u := l.base.JoinPath("api", "v1", path)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, resp.Body, nil
}

type recordedHTTP struct{ dir string }

func (r recordedHTTP) String() string { return r.dir }
func (r recordedHTTP) Close() error   { return nil }

func (r recordedHTTP) Get(_ context.Context, path string, query url.Values) (int, io.ReadCloser, error) {
	if path == "metas" && len(query) > 0 {
		f, err := os.Open(filepath.Join(r.dir, RecordedMetasDir, url.QueryEscape(query.Encode())+".jsonl"))
		if err == nil {
			return http.StatusOK, f, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return 0, nil, err
		}
		for k := range query {
			if k != "schema" && k != "package" && k != "name" {
				return http.StatusBadRequest, io.NopCloser(strings.NewReader("")), nil
			}
		}
	}
	f, err := os.Open(filepath.Join(r.dir, RecordedAllFile))
	if err != nil {
		return 0, nil, err
	}
	if path != "metas" || len(query) == 0 {
		return http.StatusOK, f, nil
	}
	// Filter all.jsonl on the fly, as catalogd's index would select.
	pr, pw := io.Pipe()
	go func() {
		defer f.Close()
		err := httpapi.DecodeStream(f, func(k httpapi.Key, canonical []byte) error {
			if !k.Matches(query.Get("schema"), query.Get("package"), query.Get("name")) {
				return nil
			}
			_, err := pw.Write(append(canonical, '\n'))
			return err
		})
		pw.CloseWithError(err)
	}()
	return http.StatusOK, pr, nil
}

// serveHTTP loads a catalog into the HTTP API's store and serves it on a loopback port.
func serveHTTP(ctx context.Context, ref string, o source.Options) (HTTPTarget, error) {
	src, err := source.Open(ctx, ref, o)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	b, err := httpapi.NewBuilder("")
	if err != nil {
		return nil, err
	}
	if err := src.WalkJSON(ctx, b.Add); err != nil {
		b.Discard()
		return nil, err
	}
	st, err := b.Finish()
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		return nil, err
	}
	s := httpapi.NewServer(httpapi.Options{})
	s.SetStore(st)
	serveCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(serveCtx, lis, 0); close(done) }()
	base, _ := url.Parse("http://" + lis.Addr().String())
	return &namedHTTP{liveHTTP{base: base, client: &http.Client{}, stop: func() { cancel(); <-done; st.Close() }}, ref}, nil
}

type namedHTTP struct {
	liveHTTP
	name string
}

func (n *namedHTTP) String() string { return n.name }
