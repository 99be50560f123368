package main

import (
	"context"
	"errors"
)

// writeOPMCache writes opm's serve cache of the catalog at configsDir into cacheDir, byte for byte
// what `opm serve configsDir --cache-dir cacheDir --cache-only` writes (grpccompat/opmcache).
var writeOPMCache = func(ctx context.Context, configsDir, cacheDir string) error {
	return errors.New("opm's serve cache format (grpccompat/opmcache) is not in this build yet")
}
