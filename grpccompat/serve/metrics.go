package serve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/grpccompat/httpapi"
)

// metrics is what `olmcat serve` exports to Prometheus, from a registry of its own: the Go runtime
// and process collectors, build info, the catalog's load, size and cache use; the gRPC and HTTP
// servers register their per-call metrics in the same registry.
type metrics struct {
	reg                      *prometheus.Registry
	loadSeconds              prometheus.Gauge
	packages, bundles, blobs prometheus.Gauge
	cacheHits, cacheRebuilds prometheus.Counter
}

func newMetrics(version, revision string) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		reg: reg,
		loadSeconds: newGauge("olmcat_catalog_load_seconds",
			"Time from start until the catalog was served (read, validated, indexed or loaded from the cache)."),
		packages: newGauge("olmcat_catalog_packages",
			"Packages in the catalog served (0 until it is loaded)."),
		bundles: newGauge("olmcat_catalog_bundles",
			"Bundles in the catalog served (0 until it is loaded)."),
		blobs: newGauge("olmcat_http_catalog_blobs",
			"Blobs served by catalogd's HTTP API (/api/v1/all), 0 without --http-addr."),
		cacheHits: newCounter("olmcat_cache_hits_total",
			"Loads served from an intact --cache-dir cache built from this catalog."),
		cacheRebuilds: newCounter("olmcat_cache_rebuilds_total",
			"Loads that had to build the --cache-dir cache (missing, stale or damaged)."),
	}
	if revision == "" {
		revision = "unknown"
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "olmcat_build_info",
		Help:        "Always 1; the labels say which olmcat is running.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision},
	})
	buildInfo.Set(1)
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
		buildInfo, m.loadSeconds, m.packages, m.bundles, m.blobs, m.cacheHits, m.cacheRebuilds,
	)
	return m
}

func newGauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

func newCounter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

// handler is /metrics.
func (m *metrics) handler() http.Handler {
	return promhttp.InstrumentMetricHandler(m.reg, promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
}

// loaded records a load that took d: the catalog's size (from the gRPC backend, else from the
// HTTP store) and what became of the cache.
func (m *metrics) loaded(ctx context.Context, backend api.Backend, store *httpapi.Store, d time.Duration, log *slog.Logger) {
	m.loadSeconds.Set(d.Seconds())
	if store != nil {
		m.blobs.Set(float64(store.Blobs()))
	}
	type counter interface {
		Counts(ctx context.Context) (packages, bundles int, err error)
	}
	switch {
	case backend != nil:
		if c, ok := backend.(counter); ok {
			pkgs, bundles, err := c.Counts(ctx)
			if err != nil {
				log.Warn("cannot count the catalog for the metrics", "error", err)
			}
			m.packages.Set(float64(pkgs))
			m.bundles.Set(float64(bundles))
		}
	case store != nil:
		m.packages.Set(float64(store.Lookup(fbc.SchemaPackage, "", "").Blobs()))
		m.bundles.Set(float64(store.Lookup(fbc.SchemaBundle, "", "").Blobs()))
	}
	if c, ok := backend.(interface{ CacheUse() fbcbackend.CacheUse }); ok {
		switch c.CacheUse() {
		case fbcbackend.CacheHit:
			m.cacheHits.Inc()
		case fbcbackend.CacheBuilt:
			m.cacheRebuilds.Inc()
		}
	}
}

// serveMetrics answers /metrics on lis until ctx ends, and returns once its listener and
// connections are closed.
func serveMetrics(ctx context.Context, lis net.Listener, h http.Handler, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: idleTimeout}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(lis) }()
	select {
	case err := <-served:
		log.Error("metrics endpoint stopped", "error", err)
		return
	case <-ctx.Done():
	}
	hs.Close()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("metrics endpoint stopped", "error", err)
	}
}

// registerer is where the servers register their metrics: nil without metrics.
func (m *metrics) registerer() prometheus.Registerer {
	if m == nil {
		return nil
	}
	return m.reg
}

// httpHandler is /metrics on the HTTP API's address: nil without metrics.
func (m *metrics) httpHandler() http.Handler {
	if m == nil {
		return nil
	}
	return m.handler()
}
