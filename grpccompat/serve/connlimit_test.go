package serve

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// A listener at its cap evicts the oldest connection that has sent nothing for a new one, keeps
// the connections that talk, and refuses a new connection when every one talks.
func TestConnListenerEvictsSilentConnections(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := newConnMetrics()
	l := newConnListener(raw, "grpc", 2, m, slog.New(slog.DiscardHandler))
	defer l.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// talker sends a byte the server reads: it is no longer silent.
	talker := dial()
	talkerServer := <-accepted
	talker.Write([]byte{1})
	if _, err := talkerServer.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	silent := dial()
	<-accepted
	fresh := dial()
	freshServer := <-accepted
	// silent was evicted: the client sees the connection closed.
	silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the oldest silent connection: read %v, want EOF (evicted)", err)
	}
	fresh.Write([]byte{1})
	if _, err := freshServer.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	// Both connections talk: a new one is refused, they stay.
	refused := dial()
	refused.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := refused.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a connection beyond the cap when all talk: read %v, want EOF (refused)", err)
	}
	if got := metricValue(m.shed.WithLabelValues("grpc", shedEvicted)); got != 1 {
		t.Errorf("evicted = %v, want 1", got)
	}
	if got := metricValue(m.shed.WithLabelValues("grpc", shedRefused)); got != 1 {
		t.Errorf("refused = %v, want 1", got)
	}
	// A connection closed gives its slot back: a new one is accepted and kept.
	talkerServer.Close()
	if got := metricValue(m.open.WithLabelValues("grpc")); got != 1 {
		t.Errorf("open = %v after a close, want 1", got)
	}
	dial()
	<-accepted
	// A silent connection whose read deadline passes is counted as timed out.
	dial()
	srv := <-accepted
	srv.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := srv.Read(make([]byte, 1)); err == nil {
		t.Fatal("read past the deadline succeeded")
	}
	if got := metricValue(m.shed.WithLabelValues("grpc", shedTimeout)); got != 1 {
		t.Errorf("timeout = %v, want 1", got)
	}
}

func metricValue(m prometheus.Metric) float64 {
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		return -1
	}
	if d.Counter != nil {
		return d.Counter.GetValue()
	}
	return d.Gauge.GetValue()
}
