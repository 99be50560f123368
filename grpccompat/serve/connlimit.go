package serve

import (
	"container/list"
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Issue 29.3: no client takes the server down by the descriptor count. Run with 1,024 file
// descriptors (a common container default), 3,000 idle TCP connections made every accept fail with
// EMFILE: a fresh client and the kubelet's probes were not answered until the flood went away.
// Each listener therefore holds at most a share of the descriptors, less a reserve for the
// process's own files; a connection accepted beyond the share evicts the oldest connection that
// has sent nothing yet (an idle connection is evicted, a client that talks keeps its connection),
// or is closed at once when every connection has sent something. Connections that send nothing
// are also closed by the servers' handshake and header timeouts (gRPC:
// grpccompat.DefaultHandshakeTimeout; HTTP: ReadHeaderTimeout).

// fdReserve is how many descriptors are kept for the process itself (catalog and cache files,
// the spool, logs, the listeners, DNS) out of limit.
func fdReserve(limit int) int { return max(64, limit/8) }

// connLimit is the per-listener connection cap of a process allowed limit descriptors with
// listeners listeners.
func connLimit(limit, listeners int) int {
	if listeners < 1 {
		listeners = 1
	}
	return max(8, (limit-fdReserve(limit))/listeners)
}

// connMetrics are the connection counts of every capped listener, by listener.
type connMetrics struct {
	open  *prometheus.GaugeVec
	limit *prometheus.GaugeVec
	shed  *prometheus.CounterVec
}

func newConnMetrics() *connMetrics {
	return &connMetrics{
		open: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "olmcat_connections_open",
			Help: "Connections open on a listener (grpc, http, metrics)."}, []string{"listener"}),
		limit: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "olmcat_connections_limit",
			Help: "The most connections a listener holds: its share of the file descriptor limit, less a reserve."}, []string{"listener"}),
		shed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "olmcat_connections_shed_total",
			Help: "Connections the server closed to keep serving: evicted (the oldest that had sent nothing, for a new one), refused (at the limit, every connection active), timeout (sent nothing within the handshake or header timeout)."},
			[]string{"listener", "reason"}),
	}
}

func (m *connMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.open, m.limit, m.shed}
}

// Reasons a connection was shed.
const (
	shedEvicted = "evicted"
	shedRefused = "refused"
	shedTimeout = "timeout"
)

// connListener caps the connections open on a listener at max.
type connListener struct {
	net.Listener
	name    string
	max     int
	log     *slog.Logger
	metrics *connMetrics

	mu      sync.Mutex
	open    int
	silent  list.List // *cappedConn that have sent nothing yet, oldest first
	lastLog time.Time
}

func newConnListener(l net.Listener, name string, limit int, m *connMetrics, log *slog.Logger) *connListener {
	m.limit.WithLabelValues(name).Set(float64(limit))
	for _, r := range []string{shedEvicted, shedRefused, shedTimeout} {
		m.shed.WithLabelValues(name, r) // every series from 0
	}
	return &connListener{Listener: l, name: name, max: limit, log: log, metrics: m}
}

func (l *connListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		var evict *cappedConn
		if l.open >= l.max {
			front := l.silent.Front()
			if front == nil {
				l.shedLocked(shedRefused)
				l.mu.Unlock()
				c.Close()
				continue
			}
			evict = front.Value.(*cappedConn)
			l.silent.Remove(front)
			evict.elem = nil
			evict.evicted = true
			l.shedLocked(shedEvicted)
		}
		cc := &cappedConn{Conn: c, l: l}
		cc.elem = l.silent.PushBack(cc)
		l.open++
		l.metrics.open.WithLabelValues(l.name).Set(float64(l.open))
		l.mu.Unlock()
		if evict != nil {
			evict.Close()
		}
		return cc, nil
	}
}

// shedLocked counts a shed connection and logs, at most every 10 s, that the listener is full.
func (l *connListener) shedLocked(reason string) {
	l.metrics.shed.WithLabelValues(l.name, reason).Inc()
	if reason == shedTimeout || time.Since(l.lastLog) < 10*time.Second {
		return
	}
	l.lastLog = time.Now()
	l.log.Warn("connection limit reached: closing connections that send nothing (more replicas, or a higher file descriptor limit, serve more clients)",
		"listener", l.name, "limit", l.max, "shed", reason)
}

// cappedConn is a connection of a connListener: it leaves the silent list when it first receives
// bytes, and its slot when it closes.
type cappedConn struct {
	net.Conn
	l       *connListener
	elem    *list.Element // in l.silent while the connection has sent nothing (guarded by l.mu)
	evicted bool          // guarded by l.mu
	heard   atomic.Bool
	closed  sync.Once
}

func (c *cappedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.heard.Load() {
		c.heard.Store(true)
		c.l.mu.Lock()
		if c.elem != nil {
			c.l.silent.Remove(c.elem)
			c.elem = nil
		}
		c.l.mu.Unlock()
	}
	if err != nil && !c.heard.Load() && errors.Is(err, os.ErrDeadlineExceeded) {
		c.l.mu.Lock()
		if !c.evicted {
			c.evicted = true // counted once
			c.l.shedLocked(shedTimeout)
		}
		c.l.mu.Unlock()
	}
	return n, err
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.closed.Do(func() {
		c.l.mu.Lock()
		defer c.l.mu.Unlock()
		if c.elem != nil {
			c.l.silent.Remove(c.elem)
			c.elem = nil
		}
		c.l.open--
		c.l.metrics.open.WithLabelValues(c.l.name).Set(float64(c.l.open))
	})
	return err
}
