package serve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/grpccompat/httpapi"
	"github.com/olmcat/olmcat/internal/source"
)

// listen opens the gRPC listener (unless HTTPOnly) and the HTTP one (if HTTPAddr), before the
// catalog loads, so that a port in use fails at once.
func listen(o Options) (grpcLis, httpLis net.Listener, err error) {
	if !o.HTTPOnly {
		if grpcLis, err = net.Listen("tcp", o.Addr); err != nil {
			return nil, nil, &ListenError{Addr: o.Addr, Err: err}
		}
	}
	if o.HTTPAddr != "" {
		if httpLis, err = net.Listen("tcp", o.HTTPAddr); err != nil {
			closeListeners(grpcLis)
			return nil, nil, &ListenError{Addr: o.HTTPAddr, Err: err}
		}
	}
	return grpcLis, httpLis, nil
}

func closeListeners(ls ...net.Listener) {
	for _, l := range ls {
		if l != nil {
			l.Close()
		}
	}
}

// load builds what the servers answer from: the gRPC backend (unless HTTPOnly) and, if HTTPAddr,
// the HTTP API's store, from one snapshot of the catalog.
//
// When the FBC backend builds its index it walks the catalog, and the store is fed from that very
// walk (BackendOptions.Tee): the store is then finished at once (store != nil). Otherwise the
// store must walk the catalog itself: load returns fill, which does that, for the caller to run
// once the gRPC API serves, so that gRPC never waits for the HTTP API's conversion. It is still
// the same snapshot: an index.db is opened immutable, and a pre-built FBC cache is only used when
// its digest equals the catalog's, so walking the catalog gives exactly the blobs the cache was
// built from.
func load(ctx context.Context, src *source.Source, o Options, log *slog.Logger) (backend api.Backend, store *httpapi.Store, fill func(context.Context) (*httpapi.Store, error), err error) {
	var b *httpapi.Builder
	if o.HTTPAddr != "" {
		if b, err = httpapi.NewBuilder(""); err != nil {
			return nil, nil, nil, err
		}
	}
	if !o.HTTPOnly {
		bo := source.BackendOptions{CacheDir: o.CacheDir, EnforceCache: o.EnforceIntegrity, Logger: log}
		if b != nil && src.Format() != source.FormatSQLite {
			bo.Tee = b.Add
		}
		if backend, err = src.Backend(ctx, bo); err != nil {
			if b != nil {
				b.Discard()
			}
			return nil, nil, nil, err
		}
	}
	if b == nil {
		return backend, nil, nil, nil
	}
	if b.Added() > 0 { // the backend's walk fed the store
		if store, err = b.Finish(); err != nil {
			backend.Close()
			return nil, nil, nil, err
		}
		return backend, store, nil, nil
	}
	// Nothing was teed: the backend read no catalog (an index.db, a cache, HTTP only).
	fill = func(ctx context.Context) (*httpapi.Store, error) {
		if o.beforeHTTPLoad != nil {
			o.beforeHTTPLoad(ctx)
		}
		start := time.Now()
		if err := walkInto(ctx, src, b, o.HTTPOnly); err != nil {
			b.Discard()
			return nil, err
		}
		log.Info("read the catalog for the HTTP API", "blobs", b.Added(), "duration", time.Since(start))
		return b.Finish()
	}
	return backend, nil, fill, nil
}

// walkInto reads the catalog into the store. Served without gRPC, an FBC is validated as the FBC
// backend validates it, so that `olmcat serve` refuses the same catalogs whichever APIs it serves.
func walkInto(ctx context.Context, src *source.Source, b *httpapi.Builder, validate bool) error {
	if !validate || src.Format() == source.FormatSQLite {
		return src.WalkJSON(ctx, b.Add)
	}
	v := model.NewValidator(model.Options{})
	walkErr := src.Walk(ctx, func(blob fbc.Blob) error {
		if err := b.Add(blob); err != nil {
			return err
		}
		return v.Add(blob)
	})
	if errors.Is(walkErr, context.Canceled) || errors.Is(walkErr, context.DeadlineExceeded) {
		return walkErr
	}
	issues, err := v.Finish(walkErr)
	if err != nil {
		return err
	}
	if errs := issues.Errors(); len(errs) > 0 {
		problems := make([]string, 0, len(errs))
		for _, i := range errs {
			problems = append(problems, i.Error())
		}
		return &fbcbackend.InvalidCatalogError{Root: src.String(), Problems: problems}
	}
	return nil
}
