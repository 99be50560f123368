package indeximage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Registry timeouts. A registry that accepts a connection and then says nothing would otherwise
// hold a command forever; a slow one that keeps sending is never cut off: the body limit is on a
// body that stops moving, not on its total time.
const (
	DefaultConnectTimeout  = 30 * time.Second
	DefaultTLSTimeout      = 30 * time.Second
	DefaultRegistryTimeout = 60 * time.Second // response headers, and a body that stops moving
	// maxRedirects is how many redirects one registry request may follow (net/http's default,
	// which go-containerregistry's own redirect check replaces by none for the same host).
	maxRedirects = 10
)

// RegistryTimeoutError is a registry request given up on because the registry did not answer in
// time: no connection, no TLS handshake, no response headers, or a body that stopped moving.
type RegistryTimeoutError struct {
	Host  string        // the registry
	What  string        // what did not come, e.g. "no response headers to GET /v2/x/manifests/y"
	Limit time.Duration // the limit that ran out
}

func (e *RegistryTimeoutError) Error() string {
	return fmt.Sprintf("the registry %s did not answer: %s within %v (raise --registry-timeout if the registry is only slow)", e.Host, e.What, e.Limit)
}

// Timeout and Temporary make the error a net.Error that go-containerregistry does not retry: a
// silent registry stays silent, and each retry would wait the whole timeout again.
func (e *RegistryTimeoutError) Timeout() bool   { return true }
func (e *RegistryTimeoutError) Temporary() bool { return false }

// ErrTooManyRedirects is returned for a registry request redirected more than maxRedirects times.
var ErrTooManyRedirects = errors.New("too many redirects")

// registryTransport bounds every registry request: redirects, the wait for response headers and
// each wait for more of the body.
type registryTransport struct {
	base    http.RoundTripper
	timeout time.Duration // response headers, and body idle
	// maxManifest caps each manifest or index a registry sends (go-containerregistry reads up to
	// 100 MiB of each, a pull at a time: gigabytes with parallel pulls).
	maxManifest int64
}

// newRegistryTransport is base (nil: a clone of net/http's default transport with connect and TLS
// timeouts) under the limits of opts.
func newRegistryTransport(base http.RoundTripper, opts Options) *registryTransport {
	if base == nil {
		connect := firstPositiveDuration(opts.ConnectTimeout, DefaultConnectTimeout)
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
		t.TLSHandshakeTimeout = firstPositiveDuration(opts.TLSTimeout, DefaultTLSTimeout)
		base = t
	}
	return &registryTransport{base: base, timeout: firstPositiveDuration(opts.RegistryTimeout, DefaultRegistryTimeout),
		maxManifest: opts.Limits.WithDefaults().MaxManifestBytes}
}

func firstPositiveDuration(a, b time.Duration) time.Duration {
	if a > 0 {
		return a
	}
	return b
}

// redirectHops counts the redirects that led to req: net/http sets req.Response to the redirect
// response, whose Request is the one before.
func redirectHops(req *http.Request) int {
	n := 0
	for r := req; r.Response != nil && r.Response.Request != nil; r = r.Response.Request {
		n++
		if n > maxRedirects {
			break
		}
	}
	return n
}

func (t *registryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if hops := redirectHops(req); hops > maxRedirects {
		return nil, fmt.Errorf("the registry %s redirected %s %s more than %d times: %w", req.URL.Host, req.Method, req.URL.Path, maxRedirects, ErrTooManyRedirects)
	}
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{cancel: cancel, timeout: t.timeout, host: req.URL.Host,
		what: fmt.Sprintf("no response headers to %s %s", req.Method, req.URL.Path)}
	w.timer = time.AfterFunc(t.timeout, w.fire)
	sent := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		// A blob upload (a push): the response headers come once the whole body is sent, so
		// each part sent is progress, as each part received is.
		sent.Body = &sendingBody{ReadCloser: req.Body, w: w}
	}
	resp, err := t.base.RoundTrip(sent)
	if err != nil {
		w.stop()
		if terr := w.err(); terr != nil {
			return nil, terr
		}
		return nil, err
	}
	manifest := req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/manifests/") && resp.StatusCode < 300
	var reserved int64
	if manifest && resp.ContentLength <= t.maxManifest {
		// The body is read whole into memory: wait for room in the budget of all pulls (see
		// pullMemory), the watchdog paused, as this wait is not the registry's.
		want := t.maxManifest
		if resp.ContentLength >= 0 {
			want = resp.ContentLength
		}
		w.timer.Stop()
		if reserved, err = pullMemory.acquire(req.Context(), want); err != nil {
			w.stop()
			resp.Body.Close()
			return nil, err
		}
	}
	w.progress(fmt.Sprintf("the body of %s %s stopped", req.Method, req.URL.Path))
	resp.Body = &watchedBody{rc: resp.Body, w: w}
	if resp.StatusCode >= 400 {
		quoteErrorBody(resp)
	}
	if manifest {
		tooLarge := &manifestTooLargeError{host: req.URL.Host, path: req.URL.Path, limit: t.maxManifest}
		if resp.ContentLength > t.maxManifest {
			resp.Body.Close()
			return nil, tooLarge
		}
		resp.Body = &reservedBody{ReadCloser: &cappedBody{ReadCloser: resp.Body, left: t.maxManifest, err: tooLarge}, budget: pullMemory, n: reserved}
	}
	return resp, nil
}

// manifestTooLargeError is a manifest or index larger than Limits.MaxManifestBytes.
type manifestTooLargeError struct {
	host, path string
	limit      int64
}

func (e *manifestTooLargeError) Error() string {
	return fmt.Sprintf("the registry %s sent more than %s for %s, more than a manifest holds (the image is damaged or hostile, or set %s to a higher value, e.g. %s=%s)",
		e.host, FormatSize(e.limit), e.path, EnvMaxManifestBytes, EnvMaxManifestBytes, FormatSize(2*e.limit))
}

func (e *manifestTooLargeError) Unwrap() error { return ErrLimitExceeded }

// cappedBody fails with err once more than left bytes were read.
type cappedBody struct {
	io.ReadCloser
	left int64
	err  error
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, c.err
	}
	return n, err
}

// maxQuotedBody is how many bytes of a registry's error body an error message quotes.
const maxQuotedBody = 200

// quoteErrorBody replaces the body of a registry's error response by a quote of its first bytes:
// go-containerregistry prints an error body as it came (terminal escapes, lines that look like
// olmcat's or a CI's own, whatever a service behind the registry put there); it then prints
// `the registry said "…"`, one escaped line. The JSON errors of the distribution spec are lost as
// such but their text stays, quoted.
func quoteErrorBody(resp *http.Response) {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxQuotedBody+1))
	resp.Body.Close()
	text := ""
	if len(head) > 0 {
		text = "the registry said " + QuoteRegistryText(head, maxQuotedBody)
	}
	resp.Body = io.NopCloser(strings.NewReader(text))
	resp.ContentLength = int64(len(text))
	resp.Header.Del("Content-Encoding")
}

// QuoteRegistryText quotes text a registry sent for an error message: at most max bytes (cut at
// a character boundary, "…" after the quote when cut), escaped as a Go string literal so that
// control characters, terminal escapes and line breaks show as \x1b, \n, and on one line.
func QuoteRegistryText(text []byte, max int) string {
	cut := len(text) > max
	if cut {
		text = text[:max]
		for len(text) > 0 && !utf8.Valid(text) && len(text) > max-utf8.UTFMax {
			text = text[:len(text)-1]
		}
	}
	q := strconv.Quote(string(text))
	if cut {
		q += "…"
	}
	return q
}

// watchdog cancels a request once its timer runs out, and remembers why.
type watchdog struct {
	cancel  context.CancelFunc
	timeout time.Duration
	host    string
	timer   *time.Timer

	mu    sync.Mutex
	what  string
	fired bool
}

func (w *watchdog) fire() {
	w.mu.Lock()
	w.fired = true
	w.mu.Unlock()
	w.cancel()
}

// progress restarts the timer: something came; what is what did not come if it runs out now.
func (w *watchdog) progress(what string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if what != "" {
		w.what = what
	}
	if !w.fired {
		w.timer.Reset(w.timeout)
	}
}

func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel()
}

// err is the timeout error once the timer has run out, else nil.
func (w *watchdog) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.fired {
		return nil
	}
	return &RegistryTimeoutError{Host: w.host, What: w.what, Limit: w.timeout}
}

// watchedBody restarts the watchdog whenever bytes arrive, and reports its timeout instead of the
// cancellation it caused.
type watchedBody struct {
	rc io.ReadCloser
	w  *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.progress("")
	}
	if err != nil && err != io.EOF {
		if terr := b.w.err(); terr != nil {
			return n, terr
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	return b.rc.Close()
}

// sendingBody restarts the watchdog whenever the transport takes more of a request body.
type sendingBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *sendingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.progress("")
	}
	return n, err
}
