package input

import (
	"context"
	"sync"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/internal/source"
)

// OpenPair opens both sides, then loads them at the same time (loading is most of a diff's work)
// and decodes and keeps once what the two sides share byte for byte (see sharer), so that two
// revisions of a catalog take little more time and memory than one. The two sides may share
// memory: treat them as read-only. The old side's error is returned first.
func OpenPair(ctx context.Context, oldRef, newRef string, opts Options) (*diff.Side, *diff.Side, error) {
	return openPair(ctx, oldRef, newRef, opts.Source, opts.Source)
}

// OpenGitPair is OpenPair for `--git REV PATH`: PATH at revision rev (git:REV:PATH) against PATH in
// the work tree. A PATH that did not exist at rev is an empty old side: everything is new.
func OpenGitPair(ctx context.Context, rev, catalogPath string, opts Options) (*diff.Side, *diff.Side, error) {
	oldOpts := opts.Source
	oldOpts.AllowEmpty = true
	return openPair(ctx, source.GitPrefix+rev+":"+catalogPath, catalogPath, oldOpts, opts.Source)
}

func openPair(ctx context.Context, oldRef, newRef string, oldOpts, newOpts source.Options) (*diff.Side, *diff.Side, error) {
	if oldRef == "-" && newRef == "-" {
		return nil, nil, source.Errorf("-", source.NotHere, "give it for one side at most", "standard input can be read only once")
	}
	oldSrc, err := source.Open(ctx, oldRef, oldOpts)
	if err != nil {
		return nil, nil, err
	}
	defer oldSrc.Close()
	newSrc, err := source.Open(ctx, newRef, newOpts)
	if err != nil {
		return nil, nil, err
	}
	defer newSrc.Close()
	share := newSharer()
	var (
		newSide *diff.Side
		newErr  error
		wg      sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		newSide, newErr = (&loader{ctx: ctx, share: share, side: 1}).load(newSrc)
	}()
	oldSide, oldErr := (&loader{ctx: ctx, share: share, side: 0}).load(oldSrc)
	wg.Wait()
	if oldErr != nil {
		return nil, nil, oldErr
	}
	if newErr != nil {
		return nil, nil, newErr
	}
	return oldSide, newSide, nil
}
