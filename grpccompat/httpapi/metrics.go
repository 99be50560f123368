package httpapi

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routeLabels are the values of the route label: the API's routes (prefixed or not), olmcat's
// own, and "other" for every path that is none of them (404s, redirects).
var routeLabels = []string{"all", "metas", "healthz", "readyz", "livez", "metrics", "other"}

func routeLabel(pattern string) string {
	switch {
	case strings.HasSuffix(pattern, "/api/v1/all"):
		return "all"
	case strings.HasSuffix(pattern, "/api/v1/metas"):
		return "metas"
	case pattern == "/healthz", pattern == "/readyz", pattern == "/livez", pattern == "/metrics":
		return pattern[1:]
	}
	return "other"
}

// instrument measures every answer of next with client_golang's promhttp middleware, per route
// of mux: requests by method and status code, latency, requests in flight and body bytes sent
// (after compression). With no registerer, next is returned as is.
func instrument(reg prometheus.Registerer, mux *http.ServeMux, next http.Handler) http.Handler {
	if reg == nil {
		return next
	}
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "olmcat_http_requests_total",
		Help: "HTTP requests answered, by route, method and status code.",
	}, []string{"route", "method", "code"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "olmcat_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request (until the last byte is written), by route and method.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "method"})
	inFlight := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "olmcat_http_requests_in_flight",
		Help: "HTTP requests being answered, by route.",
	}, []string{"route"})
	sent := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "olmcat_http_response_size_bytes",
		Help:    "Bytes of HTTP answer bodies sent (compressed when the answer is), by route.",
		Buckets: prometheus.ExponentialBuckets(256, 8, 8), // 256 B .. 512 MiB
	}, []string{"route"})
	reg.MustRegister(requests, duration, inFlight, sent)
	chains := make(map[string]http.Handler, len(routeLabels))
	for _, route := range routeLabels {
		labels := prometheus.Labels{"route": route}
		chains[route] = promhttp.InstrumentHandlerInFlight(inFlight.With(labels),
			promhttp.InstrumentHandlerDuration(duration.MustCurryWith(labels),
				promhttp.InstrumentHandlerCounter(requests.MustCurryWith(labels),
					promhttp.InstrumentHandlerResponseSize(sent.MustCurryWith(labels), next))))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r)
		chains[routeLabel(pattern)].ServeHTTP(w, r)
	})
}
