package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Options configure NewServer. The zero value is usable.
type Options struct {
	// CatalogName is the NAME answered under /catalogs/NAME/api/v1/...; other names are 404.
	// "" answers under any valid name, so a ClusterCatalog of any name can point at the server.
	CatalogName string
	// Logger receives start/stop events and, at debug level, one record per request. nil discards.
	Logger *slog.Logger
	// DisableMetas leaves /api/v1/metas out, as catalogd does by default (its APIV1MetasHandler
	// feature gate is alpha and off unless enabled).
	DisableMetas bool
	// Metrics, if set, is served at /metrics (the Prometheus exposition of the whole server).
	Metrics http.Handler
	// Registerer, if set, receives the per-route request metrics (olmcat_http_*).
	Registerer prometheus.Registerer
	// Serving, if set, is asked by /readyz and /healthz besides the catalog being loaded: the
	// gRPC server's health (false while it cannot take a new client's call).
	Serving func() bool
}

// Server answers catalogd's HTTP API for one catalog. Until SetStore it answers 503 (the catalog
// is loading) and /healthz reports NOT_SERVING, as gRPC health does.
type Server struct {
	name    string
	noMetas bool
	log     *slog.Logger
	store   atomic.Pointer[Store]
	// draining is set once Serve starts to shut down: readiness is a store and no drain, so that
	// a catalog that finishes loading during the drain does not report SERVING again.
	draining atomic.Bool
	handler  http.Handler
	serving  func() bool
}

// NewServer builds a server with no catalog yet.
func NewServer(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{name: o.CatalogName, noMetas: o.DisableMetas, log: o.Logger, serving: o.Serving}
	mux := s.routes(o.Metrics)
	s.handler = s.logRequests(instrument(o.Registerer, mux, compress(mux)))
	return s
}

// SetStore installs the loaded catalog and reports SERVING.
func (s *Server) SetStore(st *Store) {
	s.store.Store(st)
}

// Handler is the whole API: catalogd's routes, compression, metrics and request logging.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers on lis until ctx ends, then stops accepting, lets in-flight requests finish for
// at most drainTimeout and closes the rest. It returns nil after a shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, lis net.Listener, drainTimeout time.Duration) error {
	hs := &http.Server{
		Handler: s.handler,
		// catalogd's own limits: a request is read within 5s, an answer may take 5 minutes.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       5 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down HTTP: draining in-flight requests", "timeout", drainTimeout)
	s.draining.Store(true)
	drainCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := hs.Shutdown(drainCtx); err != nil {
		s.log.Warn("drain timeout reached, closing remaining HTTP requests")
		hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.log.Enabled(r.Context(), slog.LevelDebug) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		s.log.Debug("request", "method", r.Method, "uri", r.URL.RequestURI(), "status", rec.code,
			"bytes", rec.bytes, "duration", time.Since(start), "peer", r.RemoteAddr)
	})
}

type recorder struct {
	http.ResponseWriter
	code  int
	bytes int64
}

func (r *recorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
