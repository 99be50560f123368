package input

import (
	"bytes"
	"context"
	"sync"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// OpenPair opens both sides of a diff at the same time (loading is most of a diff's work, and the
// two loads are independent) and keeps one copy of every bundle property value the two sides share,
// so that two revisions of a catalog take little more memory than one. Errors are as for Open; the
// old side's error is returned first.
func OpenPair(ctx context.Context, oldRef, newRef string, opts Options) (*diff.Side, *diff.Side, error) {
	share := &sharer{first: map[string][]fbc.Property{}}
	return both(
		func() (*diff.Side, error) { return (&opener{ctx: ctx, opts: opts, share: share}).open(oldRef) },
		func() (*diff.Side, error) { return (&opener{ctx: ctx, opts: opts, share: share}).open(newRef) })
}

// OpenGitPair is OpenPair for `--git REV PATH`: PATH at revision rev against PATH in the work tree.
func OpenGitPair(ctx context.Context, rev, catalogPath string, opts Options) (*diff.Side, *diff.Side, error) {
	share := &sharer{first: map[string][]fbc.Property{}}
	return both(
		func() (*diff.Side, error) {
			return (&opener{ctx: ctx, opts: opts, share: share}).openGit(rev, catalogPath)
		},
		func() (*diff.Side, error) { return (&opener{ctx: ctx, opts: opts, share: share}).open(catalogPath) })
}

func both(openOld, openNew func() (*diff.Side, error)) (*diff.Side, *diff.Side, error) {
	var newSide *diff.Side
	var newErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		newSide, newErr = openNew()
	}()
	oldSide, oldErr := openOld()
	wg.Wait()
	if oldErr != nil {
		return nil, nil, oldErr
	}
	if newErr != nil {
		return nil, nil, newErr
	}
	return oldSide, newSide, nil
}

// sharer pairs each bundle with the bundle of the same package and name loaded by the other side,
// and points equal property values of the later one at the earlier one's bytes, so that the later
// copy is garbage as soon as it is loaded. A nil sharer does nothing.
type sharer struct {
	mu    sync.Mutex
	first map[string][]fbc.Property // package + name -> properties of the side that loaded it first
}

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
	for i := range b.Properties {
		if i < len(other) && other[i].Type == b.Properties[i].Type && bytes.Equal(other[i].Value, b.Properties[i].Value) {
			b.Properties[i].Value = other[i].Value
		}
	}
}
