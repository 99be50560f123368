package input

import (
	"errors"
	"hash/maphash"
	"sync"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// sharer lets the two sides of a pair, loading at the same time, decode each bundle only once when
// both hold it byte for byte (the common case: a revision changes a few bundles of many). The side
// that meets a bundle blob first decodes it; the other side, meeting the same package, name and
// bytes (by a 128-bit keyed hash, see blobSum), takes the decoded bundle instead of decoding it
// again, once its walk is over.
// Bundles whose bytes differ are decoded by each side, and their equal property values are then
// shared, so that two revisions take little more memory than one. A nil sharer does nothing.
type sharer struct {
	mu    sync.Mutex
	blobs map[string]*sharedBundle  // package + name -> the first side's blob
	first map[string][]fbc.Property // for inputs without blob text (index.db): package + name -> properties
	seeds [2]maphash.Seed
}

// blobSum identifies a blob's text: its length and two independently seeded 64-bit hashes. The seeds
// are random per run, so no input can be crafted to collide, and an accidental collision of 128 bits
// is out of reach; it costs a fraction of SHA-256, which showed in the profile of large catalogs.
type blobSum struct {
	size int
	h    [2]uint64
}

func (s *sharer) sum(data []byte) blobSum {
	return blobSum{size: len(data), h: [2]uint64{maphash.Bytes(s.seeds[0], data), maphash.Bytes(s.seeds[1], data)}}
}

func newSharer() *sharer {
	return &sharer{blobs: map[string]*sharedBundle{}, first: map[string][]fbc.Property{},
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

type sharedBundle struct {
	owner  int     // side that decodes it
	sum    blobSum // of the blob's text
	taken  bool    // the other side has paired with it
	once   sync.Once
	ready  chan struct{}
	bundle fbc.Bundle // when ready: the decoded bundle,
	err    error      // or the decode error
}

// pendingBundle is a bundle a side left for the other side to decode, or decoded itself but wants
// to share property values with the other side's version of.
type pendingBundle struct {
	index  int // in the side's Bundles
	loc    fbc.Location
	shared *sharedBundle
	same   bool // byte-identical: take the other side's bundle
}

// claim is called by side for a bundle blob before decoding it. It returns nil when the side must
// decode the blob and report it with published; otherwise the blob is the other side's business and
// pending says how to finish it.
func (s *sharer) claim(side int, b fbc.Blob) (own *sharedBundle, pending *pendingBundle) {
	if s == nil {
		return nil, nil
	}
	key := b.Package + "\x00" + b.Name
	sum := s.sum(b.Data)
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.blobs[key]
	if !ok {
		e = &sharedBundle{owner: side, sum: sum, ready: make(chan struct{})}
		s.blobs[key] = e
		return e, nil
	}
	if e.owner == side || e.taken { // a duplicate within one side: no pairing
		return nil, nil
	}
	e.taken = true
	return nil, &pendingBundle{loc: b.Loc, shared: e, same: e.sum == sum}
}

// published records how the side's decode of a claimed blob went.
func (e *sharedBundle) published(c *fbc.Catalog, err error) {
	if e == nil {
		return
	}
	e.once.Do(func() {
		if err == nil {
			e.bundle = c.Bundles[len(c.Bundles)-1]
		} else {
			e.err = err
		}
		close(e.ready)
	})
}

// errAbandoned is the decode result of a bundle whose side stopped loading before decoding it.
var errAbandoned = errors.New("the other side stopped loading")

// abandon publishes a failure for a claimed blob that was never decoded; it does nothing once the
// blob was published.
func (e *sharedBundle) abandon() {
	e.once.Do(func() {
		e.err = errAbandoned
		close(e.ready)
	})
}

// finish waits for the other side's decodes and completes the side's pending bundles: byte-identical
// ones become the other side's bundle (with this side's location), or its decode error; differing
// ones share equal property values. Bundles that did not decode leave the catalog.
func finish(c *fbc.Catalog, pending []pendingBundle) model.Issues {
	var errs fbc.LoadErrors
	drop := map[int]bool{}
	for _, p := range pending {
		<-p.shared.ready
		switch {
		case !p.same:
			shareProperties(&c.Bundles[p.index], p.shared.bundle.Properties)
		case p.shared.err != nil:
			drop[p.index] = true
			var lerr *fbc.LoadError
			if errors.As(p.shared.err, &lerr) {
				copied := *lerr
				copied.Loc = p.loc
				errs.Errs = append(errs.Errs, &copied)
			}
		default:
			b := p.shared.bundle
			b.Loc = p.loc
			c.Bundles[p.index] = b
		}
	}
	if len(drop) > 0 {
		kept := c.Bundles[:0]
		for i, b := range c.Bundles {
			if !drop[i] {
				kept = append(kept, b)
			}
		}
		c.Bundles = kept
	}
	if len(errs.Errs) == 0 {
		return nil
	}
	return loadProblems(&errs)
}

// bundle shares property values of a decoded bundle (from an index.db) with the other side's.
func (s *sharer) bundle(b *fbc.Bundle) {
	if s == nil {
		return
	}
	key := b.Package + "\x00" + b.Name
	s.mu.Lock()
	defer s.mu.Unlock()
	other, ok := s.first[key]
	if !ok {
		s.first[key] = b.Properties
		return
	}
	delete(s.first, key)
	shareProperties(b, other)
}

// shareProperties points b's property values at the equal values of other, so that b's own copies
// are garbage.
func shareProperties(b *fbc.Bundle, other []fbc.Property) {
	for i := range b.Properties {
		if i < len(other) && other[i].Type == b.Properties[i].Type && fbc.EqualJSON(other[i].Value, b.Properties[i].Value) {
			b.Properties[i].Value = other[i].Value
		}
	}
}
