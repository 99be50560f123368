package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// staller is an HTTP/2 client that opens ListBundles streams and never reads their answers: it
// grants no flow-control window beyond HTTP/2's initial 64 KiB, so the server can send almost
// nothing and whatever it queues stays in its memory. It reads frames only to acknowledge
// settings and pings, as a client must to keep the connection.
type staller struct {
	conn    net.Conn
	mu      sync.Mutex // guards writes
	fr      *http2.Framer
	hbuf    bytes.Buffer
	henc    *hpack.Encoder
	nextID  uint32
	refused atomic.Int64 // streams the server refused (RST_STREAM REFUSED_STREAM)
	ended   atomic.Int64 // calls the server ended with a status (a refused call, a ListBundles never is)
	closed  chan struct{}
}

func dialStaller(t *testing.T, addr string) *staller {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &staller{conn: conn, nextID: 1, closed: make(chan struct{})}
	s.fr = http2.NewFramer(conn, conn)
	s.henc = hpack.NewEncoder(&s.hbuf)
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := s.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	go s.readLoop()
	return s
}

func (s *staller) readLoop() {
	defer close(s.closed)
	for {
		f, err := s.fr.ReadFrame()
		if err != nil {
			return
		}
		s.mu.Lock()
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				s.fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				s.fr.WritePing(true, f.Data)
			}
		case *http2.HeadersFrame:
			if f.StreamEnded() {
				s.ended.Add(1)
			}
		case *http2.RSTStreamFrame:
			if f.ErrCode == http2.ErrCodeRefusedStream {
				s.refused.Add(1)
			}
		}
		s.mu.Unlock()
	}
}

// open starts n ListBundles calls.
func (s *staller) open(t *testing.T, n int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.hbuf.Reset()
		for _, h := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", "/api.Registry/ListBundles"},
			{":authority", "localhost"}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
			s.henc.WriteField(hpack.HeaderField{Name: h[0], Value: h[1]})
		}
		id := s.nextID
		s.nextID += 2
		if err := s.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: s.hbuf.Bytes(), EndHeaders: true}); err != nil {
			t.Fatalf("open stream %d: %v", id, err)
		}
		// An empty ListBundlesRequest: no compression, length 0.
		if err := s.fr.WriteData(id, true, []byte{0, 0, 0, 0, 0}); err != nil {
			t.Fatalf("request on stream %d: %v", id, err)
		}
	}
}

func (s *staller) close() {
	s.conn.Close()
	<-s.closed
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// listAll reads a whole ListBundles stream on a new connection.
func listAll(t *testing.T, addr string) int {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream, err := api.NewRegistryClient(conn).ListBundles(ctx, &api.ListBundlesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err := stream.Recv(); errors.Is(err, io.EOF) {
			return n
		} else if err != nil {
			t.Fatalf("ListBundles beside stalled streams: %v after %d bundles", err, n)
		}
		n++
	}
}

// stalledCatalog writes a generated catalog as an FBC directory and as an index.db.
func stalledCatalog(t *testing.T) (fbcDir, db string) {
	t.Helper()
	dir := t.TempDir()
	c := generate.Catalog(generate.Options{Packages: 20, BundlesPerPackage: 20, CRDsPerBundle: 2, DescriptionBytes: 4000, Seed: 19})
	fbcDir = filepath.Join(dir, "catalog")
	if err := os.MkdirAll(fbcDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fbcDir, "catalog.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "index.db")
	if _, err := convert.ToSQLite(context.Background(), c, db, convert.ToSQLiteOptions{}); err != nil {
		t.Fatal(err)
	}
	return fbcDir, db
}

// Clients that open ListBundles streams and never read them cannot make the server keep memory
// without bound, for both backends: one connection gets DefaultMaxConcurrentStreams streams, the
// rest are refused; what each stalled stream keeps is bounded (the bundles' shared encodings are
// not copied into its queue); a fresh client is still answered; the memory is given back once
// they are gone; and beyond MaxConcurrentCalls on all connections, calls are refused at once.
func TestStalledStreamsKeepMemoryBounded(t *testing.T) {
	fbcDir, db := stalledCatalog(t)
	const (
		conns          = 4
		streamsPerConn = 500
		perStream      = 64 << 10 // bytes of heap one stalled stream may keep
	)
	for _, path := range []string{fbcDir, db} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			addr, stop := runUntilReady(t, Options{Path: path})
			defer stop()
			want := listAll(t, addr)
			base := heapInUse()
			var ss []*staller
			for range conns {
				s := dialStaller(t, addr)
				s.open(t, streamsPerConn)
				ss = append(ss, s)
			}
			served := conns * grpccompat.DefaultMaxConcurrentStreams
			waitRefused(t, ss, conns*streamsPerConn-served)
			during := heapInUse()
			if got := listAll(t, addr); got != want {
				t.Errorf("fresh ListBundles beside %d stalled streams: %d bundles, want %d", served, got, want)
			}
			if grown := int64(during) - int64(base); grown > int64(served*perStream) {
				t.Errorf("%d stalled streams keep %d KB of heap, more than %d KB each", served, grown>>10, perStream>>10)
			}
			for _, s := range ss {
				s.close()
			}
			if after := waitHeapBelow(base + 8<<20); after > base+8<<20 {
				t.Errorf("heap in use %d MB after the stalled streams closed, %d MB before they opened", after>>20, base>>20)
			}
			t.Logf("heap in use: %d MB before, %d MB with %d stalled streams", base>>20, during>>20, served)
		})
	}
	t.Run("calls on all connections", func(t *testing.T) {
		const limit = 150
		addr, stop := runUntilReady(t, Options{Path: fbcDir, MaxConcurrentCalls: limit})
		defer stop()
		want := listAll(t, addr)
		var ss []*staller
		for range 2 {
			s := dialStaller(t, addr)
			s.open(t, grpccompat.DefaultMaxConcurrentStreams)
			ss = append(ss, s)
		}
		defer func() {
			for _, s := range ss {
				s.close()
			}
		}()
		// Each connection's first calls are its own; the rest share the limit, and those beyond
		// it end at once with ResourceExhausted.
		refused := 2*grpccompat.DefaultMaxConcurrentStreams - limit - 2*4
		for deadline := time.Now().Add(time.Minute); ss[0].ended.Load()+ss[1].ended.Load() < int64(refused); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d calls ended, want %d refused", ss[0].ended.Load()+ss[1].ended.Load(), refused)
			}
		}
		time.Sleep(100 * time.Millisecond)
		if got := ss[0].ended.Load() + ss[1].ended.Load(); got != int64(refused) {
			t.Errorf("%d calls ended, want %d refused", got, refused)
		}
		if got := listAll(t, addr); got != want {
			t.Errorf("a new client beside %d open calls: %d bundles, want %d", limit, got, want)
		}
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		health, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil || health.Status != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health beside %d open calls: %v, %v; want SERVING", limit, health, err)
		}
	})
}

// waitRefused waits until the server has refused n streams of the stallers.
func waitRefused(t *testing.T, ss []*staller, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var got int64
		for _, s := range ss {
			got += s.refused.Load()
		}
		if got == int64(n) {
			return
		}
		if got > int64(n) || time.Now().After(deadline) {
			t.Fatalf("the server refused %d streams, want %d", got, n)
		}
	}
}

// waitHeapBelow waits (a bounded while) for the live heap to fall below n, and returns it.
func waitHeapBelow(n uint64) uint64 {
	var h uint64
	for range 50 {
		if h = heapInUse(); h <= n {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return h
}
