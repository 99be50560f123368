package grpccompat

import (
	"context"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
)

// serverMetrics are the gRPC server's Prometheus metrics: the gRPC middleware's standard
// grpc_server_* (calls started and handled by method and code, messages, handling time) and the
// calls in flight, which the middleware leaves to started minus handled.
type serverMetrics struct {
	std      *grpcprom.ServerMetrics
	inFlight *prometheus.GaugeVec
	stalled  *prometheus.CounterVec
}

func newServerMetrics(reg prometheus.Registerer) *serverMetrics {
	m := &serverMetrics{
		std: grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram()),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "olmcat_grpc_calls_in_flight",
			Help: "gRPC calls being answered (unary calls and streams such as ListBundles), by service and method.",
		}, []string{"grpc_service", "grpc_method"}),
		stalled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "olmcat_grpc_stalled_streams_total",
			Help: "Server streams whose client read nothing: released (the call's slot given back, after a third of the stall timeout), ended (after the stall timeout).",
		}, []string{"outcome"}),
	}
	m.stalled.WithLabelValues("released")
	m.stalled.WithLabelValues("ended")
	reg.MustRegister(m.std, m.inFlight, m.stalled)
	return m
}

func (m *serverMetrics) unary() grpc.UnaryServerInterceptor {
	std := m.std.UnaryServerInterceptor()
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		g := m.gauge(info.FullMethod)
		g.Inc()
		defer g.Dec()
		return std(ctx, req, info, h)
	}
}

func (m *serverMetrics) stream() grpc.StreamServerInterceptor {
	std := m.std.StreamServerInterceptor()
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		g := m.gauge(info.FullMethod)
		g.Inc()
		defer g.Dec()
		return std(srv, ss, info, h)
	}
}

// gauge is the in-flight gauge of a full method name, /package.Service/Method.
func (m *serverMetrics) gauge(fullMethod string) prometheus.Gauge {
	service, method := splitMethod(fullMethod)
	return m.inFlight.WithLabelValues(service, method)
}

func splitMethod(full string) (service, method string) {
	for i := len(full) - 1; i > 0; i-- {
		if full[i] == '/' {
			return full[1:i], full[i+1:]
		}
	}
	return "unknown", full
}
