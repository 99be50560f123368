package main

import (
	"context"

	"github.com/olmcat/olmcat/grpccompat/opmcache"
)

// writeOPMCache writes opm's serve cache of the catalog at configsDir into cacheDir, what
// `opm serve configsDir --cache-dir cacheDir --cache-only` writes (grpccompat/opmcache).
func writeOPMCache(ctx context.Context, configsDir, cacheDir string) error {
	return opmcache.Write(ctx, configsDir, cacheDir, opmcache.Options{})
}
