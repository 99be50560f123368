package compat

import (
	"context"
	"errors"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// backendTarget serves a api.Backend in-process, through a real gRPC server and client over
// an in-memory connection, so answers go through the same encoding as on the wire.
type backendTarget struct {
	name    string
	kind    Kind
	backend api.Backend
	conn    *grpc.ClientConn
	stop    context.CancelFunc
	done    chan error
}

// ServeBackend makes a Target of b, served in-process as `olmcat serve` would serve it (with
// api.ExperimentalRegistry for FBC, without it for SQLite, as opm does). The target owns b: Close
// closes it.
func ServeBackend(name string, kind Kind, b api.Backend) (Target, error) {
	srv := grpccompat.NewServer(grpccompat.ServerOptions{Experimental: kind != KindSQLite})
	srv.SetBackend(b)
	lis := bufconn.Listen(1 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis, 5*time.Second) }()
	conn, err := grpc.NewClient("passthrough:///in-process",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxAnswerSize)))
	if err != nil {
		cancel()
		<-done
		return nil, err
	}
	return &backendTarget{name: name, kind: kind, backend: b, conn: conn, stop: cancel, done: done}, nil
}

// maxAnswerSize bounds one received message: big CRDs make big bundles, and a comparison must not
// fail where a server legitimately answers.
const maxAnswerSize = 1 << 30

func (t *backendTarget) String() string { return t.name }
func (t *backendTarget) Kind() Kind     { return t.kind }

func (t *backendTarget) Invoke(ctx context.Context, c *Call) (*Answer, error) {
	return invokeConn(ctx, t.conn, c, nil)
}

func (t *backendTarget) invokeStream(ctx context.Context, c *Call, each func(proto.Message)) (*Answer, error) {
	return invokeConn(ctx, t.conn, c, each)
}

func (t *backendTarget) Close() error {
	err := t.conn.Close()
	t.stop()
	if serr := <-t.done; serr != nil {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, t.backend.Close())
}
