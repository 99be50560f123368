package input

import (
	"context"
	"sync"

	"github.com/olmcat/olmcat/diff"
)

// OpenPair opens both sides of a diff at the same time (loading is most of a diff's work) and
// decodes and keeps once what the two sides share byte for byte (see sharer), so that two revisions
// of a catalog take little more time and memory than one. The two sides may share memory: treat
// them as read-only. Errors are as for Open; the old side's error is returned first.
func OpenPair(ctx context.Context, oldRef, newRef string, opts Options) (*diff.Side, *diff.Side, error) {
	share := newSharer()
	return both(
		func() (*diff.Side, error) { return (&opener{ctx: ctx, opts: opts, share: share, side: 0}).open(oldRef) },
		func() (*diff.Side, error) { return (&opener{ctx: ctx, opts: opts, share: share, side: 1}).open(newRef) })
}

// OpenGitPair is OpenPair for `--git REV PATH`: PATH at revision rev against PATH in the work tree.
func OpenGitPair(ctx context.Context, rev, catalogPath string, opts Options) (*diff.Side, *diff.Side, error) {
	share := newSharer()
	return both(
		func() (*diff.Side, error) {
			return (&opener{ctx: ctx, opts: opts, share: share, side: 0}).openGit(rev, catalogPath)
		},
		func() (*diff.Side, error) {
			return (&opener{ctx: ctx, opts: opts, share: share, side: 1}).open(catalogPath)
		})
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
