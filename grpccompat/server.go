package grpccompat

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// ServerOptions configure NewServer. The zero value is usable.
type ServerOptions struct {
	// Logger receives start/stop events and, at debug level, one record per call. nil discards.
	Logger *slog.Logger
	// Experimental registers api.ExperimentalRegistry (opm serve has it; opm registry serve does not).
	Experimental bool
	// MaxRecvMsgSize bounds request messages (default 4 MiB; requests are a few names).
	MaxRecvMsgSize int
	// MaxSendMsgSize bounds answers (default unlimited, as opm: big CRDs make big bundles).
	MaxSendMsgSize int
	// Keepalive tunes server pings; zero values take the defaults below.
	Keepalive keepalive.ServerParameters
	// Registerer, if set, receives the per-method call metrics (grpc_server_*, from the gRPC
	// middleware's Prometheus provider, and olmcat_grpc_calls_in_flight).
	Registerer prometheus.Registerer
	// MaxConcurrentStreams bounds the calls one connection may have open at once (default
	// DefaultMaxConcurrentStreams); the server refuses streams beyond it (REFUSED_STREAM), and
	// grpc clients wait for a free one.
	MaxConcurrentStreams uint32
	// MaxConcurrentCalls bounds the calls open at once on all connections together (default
	// DefaultMaxConcurrentCalls); a call beyond it fails at once with ResourceExhausted. The first
	// few calls of each connection are admitted beyond it, up to as many again on all connections;
	// health Check is never refused (health Watch streams count as calls).
	MaxConcurrentCalls int
	// HandshakeTimeout closes a connection that has not completed HTTP/2's handshake in this time
	// (default DefaultHandshakeTimeout; grpc's own default, 120 s, let silent connections pile up).
	HandshakeTimeout time.Duration
	// StallTimeout ends a server stream (ListBundles...) whose client has read nothing for this
	// long: its send has been blocked by flow control. After a third of it, the stream already
	// gives its slot among MaxConcurrentCalls back, so that stalled clients cannot lock fresh ones
	// out. Default DefaultStallTimeout; negative: streams are never ended nor released.
	StallTimeout time.Duration
}

// DefaultStallTimeout is how long a stream's client may read nothing before the stream is ended.
// A client that reads, however slowly, unblocks the server's send every time it grants window.
const DefaultStallTimeout = 30 * time.Second

// DefaultHandshakeTimeout bounds a new connection's HTTP/2 handshake: a client sends it at once.
const DefaultHandshakeTimeout = 10 * time.Second

// The defaults of the bounds on open calls. opm has none: a client that opened ListBundles
// streams without reading them made opm (and olmcat before these bounds) keep about 100 KB per
// stream queued, without limit. OLM keeps a handful of calls open per catalog.
const (
	DefaultMaxConcurrentStreams = 100
	DefaultMaxConcurrentCalls   = 1000
)

// Flow-control windows for what clients send: requests are a few names, so fixed small windows
// (which also turn off grpc's window growth) bound what a connection can make the server buffer.
const (
	streamReceiveWindow     = 64 << 10
	connectionReceiveWindow = 1 << 20
)

// maxRequestMetadata bounds the metadata (headers) of one call, which flow control does not
// cover: grpc's default, 16 MiB, let a client make every call it keeps open (up to
// MaxConcurrentCalls) pin that much. OLM sends a few hundred bytes; Envoy's default is 60 KiB.
const maxRequestMetadata = 64 << 10

// Health service names that report the catalog's readiness. "" is what grpc_health_probe asks,
// "Registry" what OLM's registry client asks.
var healthServices = []string{"", "Registry", "api.Registry"}

// Server is a gRPC server for one catalog: api.Registry (and optionally api.ExperimentalRegistry),
// grpc.health.v1.Health and server reflection v1 and v1alpha.
type Server struct {
	grpc     *grpc.Server
	registry *Registry
	health   *health.Server
	log      *slog.Logger
	services []string
	limit    *callLimit

	mu        sync.Mutex // guards loaded and saturated, and orders health updates
	loaded    bool       // a backend is installed
	saturated bool       // a call from a new client would be refused (see callLimit)
}

// NewServer builds a server whose health answers NOT_SERVING until SetBackend is called, so it can
// listen while a large catalog loads.
func NewServer(o ServerOptions) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxRecvMsgSize <= 0 {
		o.MaxRecvMsgSize = 4 << 20
	}
	if o.MaxSendMsgSize <= 0 {
		o.MaxSendMsgSize = math.MaxInt32
	}
	ka := o.Keepalive
	if ka.Time == 0 {
		ka.Time = 2 * time.Minute
	}
	if ka.Timeout == 0 {
		ka.Timeout = 20 * time.Second
	}
	if o.MaxConcurrentStreams == 0 {
		o.MaxConcurrentStreams = DefaultMaxConcurrentStreams
	}
	if o.MaxConcurrentCalls <= 0 {
		o.MaxConcurrentCalls = DefaultMaxConcurrentCalls
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.StallTimeout == 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	s := &Server{registry: NewRegistry(nil), health: health.NewServer(), log: o.Logger}
	s.registry.rawSendable = true
	logCalls := callLogger{o.Logger}
	limit := &callLimit{max: o.MaxConcurrentCalls, log: o.Logger, freeMemory: debug.FreeOSMemory, freeEvery: freeMemoryEvery,
		stallTimeout: o.StallTimeout, onSaturated: s.setSaturated}
	s.limit = limit
	unary := []grpc.UnaryServerInterceptor{limit.unary, logCalls.unary}
	stream := []grpc.StreamServerInterceptor{limit.stream, logCalls.stream}
	var metrics *serverMetrics
	if o.Registerer != nil {
		metrics = newServerMetrics(o.Registerer)
		limit.stalled = metrics.stalled
		unary = append([]grpc.UnaryServerInterceptor{metrics.unary()}, unary...)
		stream = append([]grpc.StreamServerInterceptor{metrics.stream()}, stream...)
	}
	s.grpc = grpc.NewServer(
		grpc.ForceServerCodecV2(newPreEncodedCodec()),
		grpc.MaxRecvMsgSize(o.MaxRecvMsgSize),
		grpc.MaxSendMsgSize(o.MaxSendMsgSize),
		grpc.MaxConcurrentStreams(o.MaxConcurrentStreams),
		grpc.InitialWindowSize(streamReceiveWindow),
		grpc.InitialConnWindowSize(connectionReceiveWindow),
		grpc.MaxHeaderListSize(maxRequestMetadata),
		grpc.SharedWriteBuffer(true), // a connection's write buffer is released while it is idle
		grpc.KeepaliveParams(ka),
		grpc.ConnectionTimeout(o.HandshakeTimeout),
		// Clients that ping more often than this are not punished with GOAWAY.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
	)
	api.RegisterRegistryServer(s.grpc, s.registry)
	s.services = append(s.services, healthServices...)
	if o.Experimental {
		api.RegisterExperimentalRegistryServer(s.grpc, s.registry)
		s.services = append(s.services, "api.ExperimentalRegistry")
	}
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc) // v1 and v1alpha
	if metrics != nil {
		metrics.std.InitializeMetrics(s.grpc) // every method at 0, so rates work from the first call
	}
	for _, name := range s.services {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_NOT_SERVING)
	}
	return s
}

// SetBackend installs the catalog and reports SERVING.
func (s *Server) SetBackend(b api.Backend) {
	s.registry.SetBackend(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = true
	s.reportHealthLocked()
}

// setSaturated records whether the server can take a call from a new client: health reports
// NOT_SERVING while it cannot (issue 27.6: it said SERVING while every call was refused).
func (s *Server) setSaturated() {
	s.mu.Lock()
	defer s.mu.Unlock()
	full := s.limit.isSaturated()
	if s.saturated == full {
		return
	}
	s.saturated = full
	if full {
		s.log.Warn("every call slot is taken: health reports NOT_SERVING until calls end", "limit", s.limit.max)
	} else {
		s.log.Info("call slots are free again: health reports SERVING")
	}
	s.reportHealthLocked()
}

func (s *Server) reportHealthLocked() {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if s.loaded && !s.saturated {
		st = healthpb.HealthCheckResponse_SERVING
	}
	for _, name := range s.services {
		s.health.SetServingStatus(name, st) // ignored once the server shuts down
	}
}

// Serving reports whether health says SERVING: the catalog is loaded and a new client's call
// would be admitted. The HTTP API's /readyz follows it.
func (s *Server) Serving() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loaded && !s.saturated
}

// GRPC exposes the underlying server (e.g. to register more services before Serve).
func (s *Server) GRPC() *grpc.Server { return s.grpc }

// Serve answers on lis until ctx ends, then drains in-flight calls (graceful stop) for at most
// drainTimeout before closing them. It returns nil after a shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, lis net.Listener, drainTimeout time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- s.grpc.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down: draining in-flight calls", "timeout", drainTimeout)
	s.health.Shutdown() // probes now see NOT_SERVING
	s.registry.Stop()   // calls still waiting for the catalog give up
	drained := make(chan struct{})
	go func() { s.grpc.GracefulStop(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		s.log.Warn("drain timeout reached, closing remaining calls")
		s.grpc.Stop()
		// Stop closes the connections but does not wait for the handlers it cut off; GracefulStop
		// does. Returning before they are done would let the caller close the backend under a
		// ListBundles still reading it (a spool file closed while a stream reads it).
		<-drained
	}
	// Handlers of streams ended for stalling may still be returning: wait for them too, for the
	// same reason.
	s.limit.handlers.Wait()
	if err := <-errc; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

type callLogger struct{ log *slog.Logger }

func (l callLogger) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if !l.log.Enabled(ctx, slog.LevelDebug) {
		return h(ctx, req)
	}
	start := time.Now()
	resp, err := h(ctx, req)
	l.record(ctx, info.FullMethod, start, err)
	return resp, err
}

func (l callLogger) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if !l.log.Enabled(ss.Context(), slog.LevelDebug) {
		return h(srv, ss)
	}
	start := time.Now()
	err := h(srv, ss)
	l.record(ss.Context(), info.FullMethod, start, err)
	return err
}

func (l callLogger) record(ctx context.Context, method string, start time.Time, err error) {
	attrs := []any{"method", method, "code", status.Code(err).String(), "duration", time.Since(start)}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		attrs = append(attrs, "peer", p.Addr.String())
	}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	l.log.Debug("call", attrs...)
}

// callLimit refuses calls beyond max open at once on all connections together, except the first
// reservedPerConnection calls of each connection, which are admitted whatever the other connections
// do, as long as fewer than max such reserved calls are open on all connections: a crowd of calls on
// other connections cannot lock a new client out, and opening many connections cannot multiply the
// limit (at most 2*max calls are open). Health Check is never refused, so that probes tell a busy
// server from a dead one; a health Watch stays open like any stream, so it counts as a call. Once a
// crowd of calls is gone, it gives memory back to the system: their buffers would otherwise stay
// counted in the process's RSS for minutes.
type callLimit struct {
	max int
	log *slog.Logger

	mu       sync.Mutex
	perConn  map[string]int // open calls by connection (the peer's address)
	shared   int            // open calls beyond the reserve of their connection
	reserved int            // open calls within the reserve of their connection
	open     int
	peak     int // the most calls open since memory was last given back

	freeMemory  func()        // debug.FreeOSMemory, but in tests
	freeEvery   time.Duration // memory is given back at most this often
	lastFree    time.Time
	freePending bool // a give-back is scheduled or running
	freeRunning bool // it is running: a crowd that ends now is not covered by it
	freeAgain   bool // a crowd ended while it ran: give back once more, an interval later

	stallTimeout time.Duration          // see ServerOptions.StallTimeout
	released     int                    // open calls whose slot was given back (stalled streams)
	handlers     sync.WaitGroup         // handlers of streams run beside their interceptor
	stalled      *prometheus.CounterVec // by outcome: released, ended; nil without metrics
	onSaturated  func()                 // told when a new client's call would start or stop being refused
	saturated    bool
}

// freeMemoryEvery bounds how often crowds make the server give memory back: each time is a full
// collection, and a client that opens and drops crowds of calls in a loop must not be able to
// make the server collect continuously.
const freeMemoryEvery = 10 * time.Second

// reservedPerConnection calls of each connection are admitted whatever the other connections do,
// while fewer than max such calls are open on all connections.
const reservedPerConnection = 4

// Health methods: Check (and List) answer at once and are never refused; Watch stays open.
const (
	healthMethods = "/grpc.health.v1.Health/"
	healthWatch   = healthMethods + "Watch"
)

// crowd is the number of open calls after which, once they are all gone, memory is given back.
const crowd = 64

func (l *callLimit) enter(ctx context.Context, method string) (leave func(), err error) {
	slot, err := l.admit(ctx, method)
	if err != nil {
		return nil, err
	}
	return slot.leave, nil
}

// callSlot is an admitted call's place among the open calls.
type callSlot struct {
	l       *callLimit
	conn    string
	shared  bool
	counted bool // it counts among the open calls (health Check does not)
	given   bool // its slot was given back (guarded by l.mu)
	left    bool // guarded by l.mu
}

// admit takes a slot for a call, or refuses it with ResourceExhausted.
func (l *callLimit) admit(ctx context.Context, method string) (*callSlot, error) {
	if strings.HasPrefix(method, healthMethods) && method != healthWatch {
		return &callSlot{l: l}, nil
	}
	conn := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		conn = p.Addr.String()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perConn == nil {
		l.perConn = map[string]int{}
	}
	shared := l.perConn[conn] >= reservedPerConnection || l.reserved >= l.max
	if shared && l.shared >= l.max {
		l.log.Debug("refused a call: too many calls open", "method", method, "peer", conn, "limit", l.max)
		return nil, status.Errorf(codes.ResourceExhausted, "the server has %d calls open, its limit (beside %d stalled streams); retry later", l.open-l.released, l.released)
	}
	l.perConn[conn]++
	if shared {
		l.shared++
	} else {
		l.reserved++
	}
	l.open++
	l.peak = max(l.peak, l.open)
	l.checkSaturatedLocked()
	return &callSlot{l: l, conn: conn, shared: shared, counted: true}, nil
}

// giveBack frees the slot of a call that stays open (a stalled stream), at most max of them.
func (c *callSlot) giveBack() bool {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if !c.counted || c.given || c.left || l.released >= l.max {
		return false
	}
	c.given = true
	l.released++
	l.freeSlotLocked(c)
	return true
}

func (c *callSlot) leave() {
	if !c.counted {
		return
	}
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.left {
		return
	}
	c.left = true
	if c.given {
		l.released--
	} else {
		l.freeSlotLocked(c)
	}
	if l.open--; l.open == 0 && l.peak >= crowd {
		l.peak = 0
		l.giveBackMemory()
	}
}

func (l *callLimit) freeSlotLocked(c *callSlot) {
	if l.perConn[c.conn]--; l.perConn[c.conn] == 0 {
		delete(l.perConn, c.conn)
	}
	if c.shared {
		l.shared--
	} else {
		l.reserved--
	}
	l.checkSaturatedLocked()
}

// checkSaturatedLocked tells onSaturated when a call from a new connection starts or stops being
// refused: every reserved and every shared slot is taken.
func (l *callLimit) checkSaturatedLocked() {
	full := l.reserved >= l.max && l.shared >= l.max
	if full == l.saturated {
		return
	}
	l.saturated = full
	if l.onSaturated != nil {
		// Not under l.mu: the health server has locks of its own. It reads the state then, so
		// that changes told out of order still end in the last one.
		go l.onSaturated()
	}
}

// isSaturated reports whether a call from a new connection would be refused.
func (l *callLimit) isSaturated() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.saturated
}

// giveBackMemory gives memory back to the system now, or once freeEvery has passed since it last
// did; one give-back at a time is pending, and a crowd that ends while one runs gets one more.
// Called with l.mu held.
func (l *callLimit) giveBackMemory() {
	if l.freePending {
		l.freeAgain = l.freeAgain || l.freeRunning
		return
	}
	l.freePending = true
	run := func() {
		l.mu.Lock()
		l.freeRunning = true
		l.mu.Unlock()
		l.freeMemory()
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lastFree, l.freePending, l.freeRunning = time.Now(), false, false
		if l.freeAgain {
			l.freeAgain = false
			l.giveBackMemory()
		}
	}
	if wait := l.freeEvery - time.Since(l.lastFree); wait > 0 {
		time.AfterFunc(wait, run)
		return
	}
	go run()
}

func (l *callLimit) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	leave, err := l.enter(ctx, info.FullMethod)
	if err != nil {
		return nil, err
	}
	defer leave()
	return h(ctx, req)
}

func (l *callLimit) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	slot, err := l.admit(ss.Context(), info.FullMethod)
	if err != nil {
		return err
	}
	defer slot.leave()
	if !info.IsServerStream || l.stallTimeout <= 0 || !slot.counted {
		return h(srv, ss)
	}
	return l.watchStalls(srv, ss, info.FullMethod, slot, h)
}

// watchStalls runs a server stream's handler beside a watch on its sends (issue 27.6: 2,000
// unread ListBundles streams locked every fresh call out for minutes). A send blocked for a
// third of stallTimeout (the client grants no flow-control window: it reads nothing) gives the
// call's slot back; one blocked for stallTimeout ends the stream with Unavailable, which also
// unblocks the send (grpc cancels the stream's context once its status is written), and the
// handler returns soon after; Serve waits for it.
func (l *callLimit) watchStalls(srv any, ss grpc.ServerStream, method string, slot *callSlot, h grpc.StreamHandler) error {
	ws := &watchedStream{ServerStream: ss}
	done := make(chan error, 1)
	l.handlers.Add(1)
	go func() {
		defer l.handlers.Done()
		done <- h(srv, ws)
	}()
	tick := time.NewTicker(max(min(l.stallTimeout/6, time.Second), time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			blocked := ws.blockedFor()
			if blocked >= l.stallTimeout/3 && slot.giveBack() {
				l.countStall("released")
				l.log.Debug("a stream's client reads nothing: its call slot is given back", "method", method, "peer", slot.conn, "blocked", blocked)
			}
			if blocked >= l.stallTimeout {
				l.countStall("ended")
				l.log.Debug("ended a stream whose client read nothing", "method", method, "peer", slot.conn, "blocked", blocked)
				return status.Errorf(codes.Unavailable, "the client read nothing for %s: the stream was ended; read the answer as it comes, then retry", l.stallTimeout)
			}
		}
	}
}

func (l *callLimit) countStall(outcome string) {
	if l.stalled != nil {
		l.stalled.WithLabelValues(outcome).Inc()
	}
}

// watchedStream records since when its SendMsg has been blocked.
type watchedStream struct {
	grpc.ServerStream
	sendingSince atomic.Int64 // UnixNano; 0 while not sending
}

func (w *watchedStream) SendMsg(m any) error {
	w.sendingSince.Store(time.Now().UnixNano())
	defer w.sendingSince.Store(0)
	return w.ServerStream.SendMsg(m)
}

func (w *watchedStream) blockedFor() time.Duration {
	since := w.sendingSince.Load()
	if since == 0 {
		return 0
	}
	return time.Since(time.Unix(0, since))
}
