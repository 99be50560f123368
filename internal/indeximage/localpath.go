package indeximage

import (
	"context"
	"os"
)

// LocalPath is the hook for commands that accept "any catalog": it returns arg itself when arg
// exists locally or is not an image reference (cleanup does nothing), and otherwise fetches the
// image and returns its extracted catalog: an index.db file (Kind SQLite) or an FBC directory
// (Kind FBC), for the caller's usual index.db-or-FBC detection. Call cleanup when done.
func LocalPath(ctx context.Context, arg string, opts Options) (path string, cleanup func(), err error) {
	if _, statErr := os.Stat(arg); statErr == nil || !IsImageRef(arg) {
		return arg, func() {}, nil
	}
	cat, err := Fetch(ctx, arg, opts)
	if err != nil {
		return "", func() {}, err
	}
	return cat.Path, cat.Cleanup, nil
}
