package httpapi

import (
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// gzipMinSize is where catalogd's gzip handler (klauspost/compress gzhttp) starts compressing.
const gzipMinSize = 1024

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

// withGzip compresses answers as catalogd's gzhttp wrapper does: always Vary: Accept-Encoding;
// gzip when the client accepts it (q > 0), the method is not HEAD, and the answer is a 200 of at
// least 1 KiB (or of unknown length) that is not already encoded; Content-Length and Accept-Ranges
// are then dropped. Partial (206) and other answers go as they are.
func withGzip(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if r.Method == http.MethodHead || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipResponseWriter{ResponseWriter: w}
		defer gw.close()
		next.ServeHTTP(gw, r)
	})
}

type gzipResponseWriter struct {
	http.ResponseWriter
	decided bool
	gz      *gzip.Writer
}

func (g *gzipResponseWriter) WriteHeader(code int) {
	if g.decided {
		g.ResponseWriter.WriteHeader(code)
		return
	}
	g.decided = true
	h := g.Header()
	size, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	unknown := err != nil
	if code == http.StatusOK && h.Get("Content-Encoding") == "" && h.Get("Content-Range") == "" && (unknown || size >= gzipMinSize) {
		h.Del("Content-Length")
		h.Del("Accept-Ranges")
		h.Set("Content-Encoding", "gzip")
		g.gz = gzipWriters.Get().(*gzip.Writer)
		g.gz.Reset(g.ResponseWriter)
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipResponseWriter) Write(p []byte) (int, error) {
	if !g.decided {
		g.WriteHeader(http.StatusOK)
	}
	if g.gz != nil {
		return g.gz.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

func (g *gzipResponseWriter) Flush() {
	if g.gz != nil {
		g.gz.Flush()
	}
	if f, ok := g.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (g *gzipResponseWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func (g *gzipResponseWriter) close() {
	if g.gz == nil {
		return
	}
	g.gz.Close()
	g.gz.Reset(io.Discard)
	gzipWriters.Put(g.gz)
	g.gz = nil
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		k, v, found := strings.Cut(strings.TrimSpace(params), "=")
		if !found || strings.TrimSpace(k) != "q" {
			return true
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q > 0
	}
	return false
}

// copyBuffer copies src to w with buf, bypassing the writer's own ReadFrom buffer.
func copyBuffer(w io.Writer, src io.Reader, buf []byte) (int64, error) {
	return io.CopyBuffer(onlyWriter{w}, src, buf)
}
