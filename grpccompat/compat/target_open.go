package compat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/internal/source"
	"google.golang.org/protobuf/proto"
)

// OpenOptions configure OpenTarget.
type OpenOptions struct {
	Dial DialOptions
	// Source configures how catalogs (files, directories, images, ...) are opened.
	Source source.Options
	// Logger receives the backends' progress records (catalog loading); nil discards.
	Logger *slog.Logger
}

// OpenTarget opens one side from a reference (see source.Parse):
//   - grpc://HOST:PORT, grpcs://HOST:PORT or a bare HOST:PORT: a live server (see Dial);
//   - a directory holding plan.json and recorded answers: a recording (see OpenRecording);
//   - any catalog reference: the catalog served in-process, an index.db like `opm registry serve`,
//     anything else like `opm serve`.
func OpenTarget(ctx context.Context, spec string, o OpenOptions) (Target, error) {
	ref, err := source.Parse(spec)
	if err != nil {
		return nil, err
	}
	switch ref.Form {
	case source.FormServer:
		addr := spec
		if !IsAddress(addr) {
			addr = "grpc://" + addr
		}
		return Dial(ctx, addr, o.Dial)
	case source.FormRecording:
		return OpenRecording(spec, KindUnknown)
	}
	src, err := source.OpenRef(ctx, ref, o.Source)
	if err != nil {
		return nil, err
	}
	b, err := src.Backend(ctx, source.BackendOptions{Logger: o.Logger})
	if err != nil {
		src.Close()
		var invalid *fbcbackend.InvalidCatalogError
		if errors.As(err, &invalid) {
			return nil, fmt.Errorf("%s cannot be served (opm serve would refuse it too; olmcat validate shows every problem): %w", spec, err)
		}
		return nil, err
	}
	kind := KindFBC
	if src.Format() == source.FormatSQLite {
		kind = KindSQLite
	}
	t, err := ServeBackend(spec, kind, b)
	if err != nil {
		b.Close()
		src.Close()
		return nil, err
	}
	return &cleanupTarget{Target: t, cleanup: func() { src.Close() }}, nil
}

// cleanupTarget runs cleanup after closing its target (e.g. removes an extracted image catalog).
type cleanupTarget struct {
	Target
	cleanup func()
}

func (t *cleanupTarget) Close() error {
	err := t.Target.Close()
	t.cleanup()
	return err
}

// WithKind overrides the kind of catalog t serves, for servers whose kind cannot be told from
// their answers (KindUnknown leaves t as it is).
func WithKind(t Target, k Kind) Target {
	if k == KindUnknown {
		return t
	}
	return &kindTarget{Target: t, kind: k}
}

type kindTarget struct {
	Target
	kind Kind
}

func (t *kindTarget) Kind() Kind { return t.kind }

// ParseKind accepts "sqlite", "fbc" and "auto" (KindUnknown: told from the target).
func ParseKind(s string) (Kind, error) {
	switch s {
	case "sqlite":
		return KindSQLite, nil
	case "fbc":
		return KindFBC, nil
	case "auto", "":
		return KindUnknown, nil
	}
	return KindUnknown, fmt.Errorf("unknown catalog kind %q (use sqlite, fbc or auto)", s)
}

// invokeEach performs c on t, handing stream messages to each one by one: straight from the
// stream when t can (see streamer), else from the collected answer.
func invokeEach(ctx context.Context, t Target, c *Call, each func(proto.Message)) (*Answer, error) {
	if s, ok := t.(streamer); ok {
		return s.invokeStream(ctx, c, each)
	}
	a, err := t.Invoke(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, m := range a.Messages {
		each(m)
	}
	a.Messages = nil
	return a, nil
}

func (t *cleanupTarget) invokeStream(ctx context.Context, c *Call, each func(proto.Message)) (*Answer, error) {
	return invokeEach(ctx, t.Target, c, each)
}

func (t *kindTarget) invokeStream(ctx context.Context, c *Call, each func(proto.Message)) (*Answer, error) {
	return invokeEach(ctx, t.Target, c, each)
}
