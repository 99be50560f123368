package sqlite

import (
	"container/list"
	"sync"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// bundleCacheSize is how many completed bundles a querier keeps. A client walking a catalog asks
// for the same bundle once per channel and per edge into it, one package after another; a few
// hundred bundles cover the bundles of any package (the cache holds a few MB).
const bundleCacheSize = 512

// bundleCache keeps the channel-independent answers of recently completed bundles (the manifests
// split, APIs, properties, dependencies), least recently used first out. The database is
// immutable while served, so an entry never goes stale. Entries are never changed: callers clone.
type bundleCache struct {
	mu    sync.Mutex
	byKey map[string]*list.Element
	order list.List // front: most recently used
}

type bundleCacheEntry struct {
	name   string
	bundle *api.Bundle
}

func (c *bundleCache) get(name string) *api.Bundle {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[name]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*bundleCacheEntry).bundle
}

func (c *bundleCache) put(name string, b *api.Bundle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[string]*list.Element{}
	}
	if e, ok := c.byKey[name]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.byKey[name] = c.order.PushFront(&bundleCacheEntry{name: name, bundle: b})
	if c.order.Len() > bundleCacheSize {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*bundleCacheEntry).name)
	}
}
