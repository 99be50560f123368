package sqlite

import (
	"context"
	"sync"
	"sync/atomic"
)

// lazy holds a value a querier builds on first use from the (immutable) database. A failed build
// is retried by the next call.
type lazy[T any] struct {
	value atomic.Pointer[T]
	mu    sync.Mutex // serializes builds
}

func (l *lazy[T]) get(ctx context.Context, build func(context.Context) (*T, error)) (*T, error) {
	if v := l.value.Load(); v != nil {
		return v, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if v := l.value.Load(); v != nil {
		return v, nil
	}
	// Built for every waiting caller: a cancelled first call must not fail the others.
	v, err := build(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	l.value.Store(v)
	return v, nil
}
