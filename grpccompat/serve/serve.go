// Package serve runs `olmcat serve`: it picks the backend for a catalog path (an index.db by its
// SQLite magic, anything else as FBC), listens, loads the catalog while health reports
// NOT_SERVING, serves, and drains on shutdown.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
	"time"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/sqlite"
)

// Kind is the kind of catalog a path holds.
type Kind string

const (
	KindFBC    Kind = "fbc"
	KindSQLite Kind = "sqlite"
)

// DetectKind tells an index.db (SQLite magic) from an FBC directory or file.
func DetectKind(path string) (Kind, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("cannot read catalog %s: %w (give an FBC directory or file, an index.db, or an index image reference)", path, err)
	}
	if st.IsDir() {
		return KindFBC, nil
	}
	isDB, err := sqlite.IsSQLiteFile(path)
	if err != nil {
		return "", fmt.Errorf("catalog %s: %w", path, err)
	}
	if isDB {
		return KindSQLite, nil
	}
	return KindFBC, nil
}

// BackendOptions configure OpenBackend.
type BackendOptions struct {
	CacheDir string // FBC only: see fbcbackend.Options
	Logger   *slog.Logger
}

// OpenBackend opens the right backend for path: the SQL backend (opm registry serve's answers)
// for an index.db, the FBC backend (opm serve's answers) otherwise.
func OpenBackend(ctx context.Context, path string, o BackendOptions) (api.Backend, Kind, error) {
	kind, err := DetectKind(path)
	if err != nil {
		return nil, "", err
	}
	if kind == KindSQLite {
		q, err := sqlite.NewQuerier(path)
		return q, kind, err
	}
	b, err := fbcbackend.Open(ctx, path, fbcbackend.Options{CacheDir: o.CacheDir, Logger: o.Logger})
	if err != nil {
		return nil, kind, err
	}
	return b, kind, nil
}

// Options configure Run.
type Options struct {
	Path         string
	Addr         string        // listen address, e.g. ":50051"
	CacheDir     string        // FBC cache directory ("" = temporary)
	CacheOnly    bool          // build or verify the cache, then return without serving
	PprofAddr    string        // "" = no pprof endpoint
	DrainTimeout time.Duration // how long in-flight calls may take after the signal
	Logger       *slog.Logger
	// Ready, if set, is called once the catalog is loaded and health reports SERVING.
	Ready func(addr net.Addr)
}

// Run serves until ctx ends (then drains and returns nil) or fails to start (returns why).
func Run(ctx context.Context, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kind, err := DetectKind(o.Path)
	if err != nil {
		return err
	}
	if o.CacheOnly {
		return cacheOnly(ctx, kind, o, log)
	}
	if kind == KindSQLite && o.CacheDir != "" {
		log.Warn("--cache-dir is ignored for an index.db: it is served straight from SQL", "path", o.Path)
	}
	lis, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	if o.PprofAddr != "" {
		stop, err := startPprof(o.PprofAddr, log)
		if err != nil {
			lis.Close()
			return err
		}
		defer stop()
	}
	srv := grpccompat.NewServer(grpccompat.ServerOptions{Logger: log, Experimental: kind == KindFBC})
	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, lis, o.DrainTimeout) }()
	log.Info("listening; loading catalog", "addr", lis.Addr().String(), "path", o.Path, "kind", kind)

	start := time.Now()
	backend, _, err := OpenBackend(ctx, o.Path, BackendOptions{CacheDir: o.CacheDir, Logger: log})
	if err != nil {
		stopServing()
		<-served
		if ctx.Err() != nil {
			log.Info("stopped while loading the catalog")
			return nil
		}
		return err
	}
	defer backend.Close()
	srv.SetBackend(backend)
	log.Info("serving registry", "addr", lis.Addr().String(), "load", time.Since(start))
	if o.Ready != nil {
		o.Ready(lis.Addr())
	}
	if err := <-served; err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}

func cacheOnly(ctx context.Context, kind Kind, o Options, log *slog.Logger) error {
	if kind == KindSQLite {
		q, err := sqlite.NewQuerier(o.Path)
		if err != nil {
			return err
		}
		log.Info("index.db is servable as is; it needs no cache", "path", o.Path)
		return q.Close()
	}
	if o.CacheDir == "" {
		log.Warn("--cache-only without --cache-dir only checks that the catalog can be served")
	}
	b, err := fbcbackend.Open(ctx, o.Path, fbcbackend.Options{CacheDir: o.CacheDir, Logger: log})
	if err != nil {
		return err
	}
	log.Info("cache is up to date", "dir", o.CacheDir)
	return b.Close()
}

func startPprof(addr string, log *slog.Logger) (stop func(), err error) {
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
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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
