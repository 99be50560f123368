package httpapi

import (
	"compress/gzip"
	"io"
	"net/http"

	"github.com/klauspost/compress/gzhttp"
)

// compress negotiates the encoding of every answer with the library catalogd wraps its handler in
// (klauspost/compress gzhttp, default options but the gzip level): zstd or gzip, zstd preferred,
// q-values honoured; *, x-gzip, br and deflate get identity. Answers under 1 KiB, HEAD, ranges and
// other content types are sent as they are; Vary: Accept-Encoding always. gzip runs at BestSpeed
// rather than gzhttp's default level: the decoded bytes are the same, /all is sent sooner.
//
// A request without Accept-Encoding skips the wrapper (gzhttp would only add Vary), so that /all
// keeps net/http's sendfile path.
func compress(next http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		panic(err) // the options are constant
	}
	wrapped := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, asked := r.Header["Accept-Encoding"]; !asked {
			w.Header().Add("Vary", "Accept-Encoding")
			next.ServeHTTP(w, r)
			return
		}
		wrapped(w, r)
	})
}

// copyBuffer copies src to w with buf, bypassing the writer's own ReadFrom buffer.
func copyBuffer(w io.Writer, src io.Reader, buf []byte) (int64, error) {
	return io.CopyBuffer(onlyWriter{w}, src, buf)
}
