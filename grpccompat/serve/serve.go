// Package serve runs `olmcat serve`: it opens the catalog reference (package source), listens,
// loads the catalog while health reports NOT_SERVING, serves, and drains on shutdown.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/httpapi"
	"github.com/olmcat/olmcat/internal/source"
)

// Options configure Run.
type Options struct {
	Path      string // catalog reference (see source.Parse)
	Source    source.Options
	Addr      string // listen address, e.g. ":50051"
	CacheDir  string // FBC cache directory ("" = temporary)
	CacheOnly bool   // build or verify the cache, then return without serving
	// EnforceIntegrity refuses to serve (or to verify, with CacheOnly) a cache that is missing,
	// stale or damaged, instead of building it: opm's --cache-enforce-integrity.
	EnforceIntegrity bool
	PprofAddr        string // "" = no pprof endpoint
	// CaptureStartupProfile records a CPU profile from start until the catalog is served, served
	// at /debug/pprof/startup/cpu on PprofAddr (opm's --pprof-capture-profiles).
	CaptureStartupProfile bool
	DrainTimeout          time.Duration // how long in-flight calls may take after the signal
	Logger                *slog.Logger
	// Ready, if set, is called once the catalog is loaded and health reports SERVING, with the
	// gRPC address (not called when HTTPOnly).
	Ready func(addr net.Addr)

	// HTTPAddr also serves catalogd's HTTP API (OLM v1) there, from the same snapshot ("" = off).
	HTTPAddr string
	// HTTPOnly serves the HTTP API alone, without the gRPC server.
	HTTPOnly bool
	// HTTPCatalogName is the NAME of /catalogs/NAME/api/v1/... ("" = any valid name).
	HTTPCatalogName string
	// HTTPReady, if set, is called with the HTTP address once the HTTP API serves the catalog:
	// with Ready when its store was fed from the gRPC backend's walk (an FBC without a cache),
	// else later, from another goroutine, once the store is filled (gRPC does not wait for it).
	HTTPReady func(addr net.Addr)
	// HTTPNoMetas leaves /api/v1/metas out of the HTTP API, as catalogd does unless its alpha
	// APIV1MetasHandler feature gate is on.
	HTTPNoMetas bool
	// HTTPTLSCert and HTTPTLSKey (PEM files, both or neither) serve HTTPS on HTTPAddr and
	// MetricsAddr, as catalogd's --tls-cert and --tls-key do; the pair is read again when the
	// files change.
	HTTPTLSCert, HTTPTLSKey string

	// MetricsAddr serves Prometheus metrics at /metrics there ("" = only on HTTPAddr, if any).
	MetricsAddr string
	// MetricsReady, if set, is called with the metrics address once it listens.
	MetricsReady func(addr net.Addr)
	// Version and Revision label olmcat_build_info.
	Version, Revision string
	// MaxConcurrentCalls bounds the gRPC calls open at once (0: grpccompat.DefaultMaxConcurrentCalls).
	MaxConcurrentCalls int
	// StallTimeout ends gRPC streams whose client reads nothing (0: grpccompat.DefaultStallTimeout).
	StallTimeout time.Duration

	// beforeHTTPLoad, if set, is called before the HTTP API's store reads the catalog itself
	// (tests hold the load there to see gRPC serve meanwhile).
	beforeHTTPLoad func(ctx context.Context)
}

// guardOutputs refuses what serving would write into its own input: a --cache-dir that is, holds
// or lies inside the catalog (issue 19: `serve CAT --cache-dir CAT --cache-only` wrote
// olmcat-serve-v1/ into the catalog), or a TMPDIR inside it (the temporary cache, the HTTP spool).
func guardOutputs(src *source.Source, o Options) error {
	if o.CacheDir != "" && src.Format() != source.FormatSQLite {
		if err := source.CheckOutput(o.CacheDir, src); err != nil {
			var named *source.Error
			if errors.As(err, &named) {
				named.Ref = "--cache-dir " + o.CacheDir
			}
			return err
		}
	}
	return source.CheckScratch(os.TempDir(), "TMPDIR", src)
}

// Run serves until ctx ends (then drains and returns nil) or fails to start (returns why).
func Run(ctx context.Context, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	src, err := source.Open(ctx, o.Path, o.Source)
	if err != nil {
		return err
	}
	defer src.Close()
	kind := src.Format()
	if err := guardOutputs(src, o); err != nil {
		return err
	}
	if o.CacheOnly {
		return cacheOnly(ctx, src, o, log)
	}
	if o.HTTPOnly && o.HTTPAddr == "" {
		return errors.New("serving without gRPC needs an HTTP address (--http-addr)")
	}
	if kind == source.FormatSQLite && o.CacheDir != "" {
		log.Warn("--cache-dir is ignored for an index.db: it is served straight from SQL", "path", o.Path)
	}
	var certs *certReloader
	if (o.HTTPTLSCert != "" || o.HTTPTLSKey != "") && (o.HTTPAddr != "" || o.MetricsAddr != "") {
		if o.HTTPTLSCert == "" || o.HTTPTLSKey == "" {
			return errors.New("a TLS certificate and its key go together: give both or neither")
		}
		if certs, err = newCertReloader(o.HTTPTLSCert, o.HTTPTLSKey, log); err != nil {
			return err
		}
	}
	lis, hlis, err := listen(o)
	if err != nil {
		return err
	}
	var m *metrics
	var mlis net.Listener
	if o.MetricsAddr != "" || hlis != nil {
		m = newMetrics(o.Version, o.Revision)
		if certs != nil {
			m.reg.MustRegister(certs.collectors()...)
		}
	}
	if o.MetricsAddr != "" {
		if mlis, err = net.Listen("tcp", o.MetricsAddr); err != nil {
			closeListeners(lis, hlis)
			return &ListenError{Addr: o.MetricsAddr, Err: err}
		}
	}
	var startup *startupProfile
	if o.PprofAddr != "" {
		if o.CaptureStartupProfile {
			startup = startStartupProfile(log)
			defer startup.stop() // a load that fails or is stopped must not leave the profile running
		}
		stop, err := startPprof(o.PprofAddr, startup, log)
		if err != nil {
			startup.stop()
			closeListeners(lis, hlis, mlis)
			return err
		}
		defer stop()
	}
	conns := capConnections(log, &lis, &hlis, &mlis)
	if m != nil {
		m.reg.MustRegister(conns.collectors()...)
	}
	scheme := "HTTP"
	if certs != nil {
		scheme = "HTTPS"
		for _, l := range []*net.Listener{&hlis, &mlis} {
			if *l != nil {
				*l = tls.NewListener(*l, certs.tlsConfig())
			}
		}
	}
	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	if mlis != nil {
		metricsStopped := make(chan struct{})
		go func() { defer close(metricsStopped); serveMetrics(serveCtx, mlis, m.handler(), log) }()
		// Run returns once the metrics endpoint is closed, whichever way it returns.
		defer func() { stopServing(); <-metricsStopped }()
		log.Info("metrics endpoint listening", "metrics-addr", mlis.Addr().String(), "scheme", scheme)
		if o.MetricsReady != nil {
			o.MetricsReady(mlis.Addr())
		}
	}
	served := make(chan error, 2)
	var srv *grpccompat.Server
	if lis != nil {
		srv = grpccompat.NewServer(grpccompat.ServerOptions{Logger: log, Experimental: kind == source.FormatFBC, Registerer: m.registerer(),
			MaxConcurrentCalls: o.MaxConcurrentCalls, StallTimeout: o.StallTimeout})
		go func() { served <- srv.Serve(serveCtx, lis, o.DrainTimeout) }()
		log.Info("listening; loading catalog", "addr", lis.Addr().String(), "path", o.Path, "kind", kind)
	}
	var hsrv *httpapi.Server
	if hlis != nil {
		ho := httpapi.Options{CatalogName: o.HTTPCatalogName, Logger: log,
			DisableMetas: o.HTTPNoMetas, Metrics: m.httpHandler(), Registerer: m.registerer()}
		if srv != nil {
			ho.Serving = srv.Serving // /readyz follows gRPC health
		}
		hsrv = httpapi.NewServer(ho)
		go func() { served <- hsrv.Serve(serveCtx, hlis, o.DrainTimeout) }()
		log.Info("listening ("+scheme+", catalogd API); loading catalog", "http-addr", hlis.Addr().String(), "path", o.Path, "kind", kind)
	}
	running := 0
	for _, l := range []net.Listener{lis, hlis} {
		if l != nil {
			running++
		}
	}
	stopAll := func() error {
		stopServing()
		var first error
		for range running {
			if err := <-served; err != nil && first == nil {
				first = err
			}
		}
		return first
	}

	start := time.Now()
	backend, store, fill, err := load(ctx, src, o, log)
	if err != nil {
		stopAll()
		if ctx.Err() != nil {
			log.Info("stopped while loading the catalog")
			return nil
		}
		return err
	}
	// The gRPC API serves as soon as its backend is ready. The HTTP API's store is ready with it
	// when it was fed from the backend's own walk, and both switch to the catalog at once;
	// otherwise (an index.db, a cache) it is filled next, while gRPC already serves, and the HTTP
	// API answers 503 until then. Either way both answer from one snapshot (see load).
	if m != nil && fill == nil {
		m.loaded(ctx, backend, store, time.Since(start), log)
	}
	if backend != nil {
		defer backend.Close()
		srv.SetBackend(backend)
	}
	if store != nil {
		defer store.Close()
		hsrv.SetStore(store)
	}
	if fill == nil {
		startup.stop()
	}
	if lis != nil {
		log.Info("serving registry", "addr", lis.Addr().String(), "load", time.Since(start))
	}
	httpServing := func(store *httpapi.Store) {
		log.Info("serving catalogd HTTP API", "http-addr", hlis.Addr().String(), "blobs", store.Blobs(), "load", time.Since(start))
		if o.HTTPReady != nil {
			o.HTTPReady(hlis.Addr())
		}
	}
	if store != nil {
		httpServing(store)
	}
	var filled chan error // nil (never ready) when nothing is filled
	if fill != nil {
		filled = make(chan error, 1)
		var filledStore *httpapi.Store
		defer func() { // Run returns only after the fill has ended
			if filledStore != nil {
				filledStore.Close()
			}
		}()
		go func() {
			st, err := fill(serveCtx)
			if err == nil {
				filledStore = st
				if m != nil {
					m.loaded(serveCtx, backend, st, time.Since(start), log)
				}
				hsrv.SetStore(st)
				httpServing(st)
			}
			startup.stop()
			filled <- err
		}()
	}
	if o.Ready != nil && lis != nil {
		o.Ready(lis.Addr())
	}
	// Either server failing stops the other; ctx ending stops both, each draining its own calls.
	// The HTTP API's store failing to fill stops both too: the catalog cannot be served as asked.
	var fillErr error
	fillPending := fill != nil
	select {
	case err = <-served:
		running--
	case fillErr = <-filled:
		fillPending = false
		if fillErr == nil {
			err = <-served
			running--
		}
	}
	if rest := stopAll(); err == nil {
		err = rest
	}
	if fillPending {
		<-filled // serving has stopped, so has the fill (its error is that)
	}
	if fillErr != nil {
		if ctx.Err() != nil {
			log.Info("stopped while loading the catalog for the HTTP API")
			return nil
		}
		return fillErr
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}

// capConnections wraps the listeners so that together they stay within the file descriptor limit
// (raised to its hard limit first), less a reserve for the process's own files.
func capConnections(log *slog.Logger, ls ...*net.Listener) *connMetrics {
	m := newConnMetrics()
	limit, err := raiseFileLimit()
	if err != nil {
		log.Warn("cannot read the file descriptor limit; connections are capped for 1024", "error", err)
		limit = 1024
	}
	n := 0
	for _, l := range ls {
		if *l != nil {
			n++
		}
	}
	per := connLimit(limit, n)
	names := []string{"grpc", "http", "metrics"}
	for i, l := range ls {
		if *l != nil {
			*l = newConnListener(*l, names[i], per, m, log)
		}
	}
	log.Info("connection limits", "file-descriptors", limit, "connections-per-listener", per)
	return m
}

func cacheOnly(ctx context.Context, src *source.Source, o Options, log *slog.Logger) error {
	if src.Format() == source.FormatSQLite {
		b, err := src.Backend(ctx, source.BackendOptions{})
		if err != nil {
			return err
		}
		log.Info("index.db is servable as is; it needs no cache", "path", o.Path)
		return b.Close()
	}
	if o.CacheDir == "" {
		log.Warn("--cache-only without --cache-dir only checks that the catalog can be served")
	}
	b, err := src.Backend(ctx, source.BackendOptions{CacheDir: o.CacheDir, EnforceCache: o.EnforceIntegrity, Logger: log})
	if err != nil {
		return err
	}
	log.Info("cache is up to date", "dir", o.CacheDir, "verified-only", o.EnforceIntegrity)
	return b.Close()
}

// idleTimeout closes the kept-alive connections of the metrics and pprof endpoints that are idle
// this long: without it (and without a ReadTimeout) net/http keeps them open for ever.
const idleTimeout = 2 * time.Minute

// ListenError is a server that could not listen: the address is taken or not allowed.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string {
	hint := "check the address"
	if errors.Is(e.Err, syscall.EADDRINUSE) {
		hint = "another process listens there (another catalog server?): stop it, or choose another port with -p"
	} else if errors.Is(e.Err, syscall.EACCES) {
		hint = "ports below 1024 need privileges: choose another port with -p"
	}
	return fmt.Sprintf("cannot listen on %s: %v (%s)", e.Addr, errors.Unwrap(e.Err), hint)
}

func (e *ListenError) Unwrap() error { return e.Err }

func startPprof(addr string, startup *startupProfile, log *slog.Logger) (stop func(), err error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("could not start pprof endpoint: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	if startup != nil {
		mux.HandleFunc(startupProfilePath, startup.serveHTTP)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: idleTimeout}
	go func() {
		if err := hs.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof endpoint stopped", "error", err)
		}
	}()
	log.Info("pprof endpoint listening", "addr", lis.Addr().String())
	return func() { hs.Close() }, nil
}

// ListenAddr turns opm's --port value into a listen address: a bare port listens on every
// interface as opm does; host:port is taken as is.
func ListenAddr(port string) string {
	if strings.Contains(port, ":") {
		return port
	}
	return ":" + port
}
