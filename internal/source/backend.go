package source

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/sqlite"
)

// BackendOptions configure Backend.
type BackendOptions struct {
	// CacheDir keeps an FBC backend's index between runs (see fbcbackend.Options).
	CacheDir string
	// EnforceCache serves an FBC only from an intact cache built from it (fbcbackend.Options).
	EnforceCache bool
	Logger       *slog.Logger
	// Reproducible builds an FBC's cache in catalog order: the same catalog, the same bytes
	// (fbcbackend.Options.Reproducible).
	Reproducible bool
	// Tee, for an FBC, sees every blob the backend reads, before the backend does, so that another
	// index can be built from the very same walk. It is not called when the backend loads from
	// a cache or serves an index.db: then nothing is walked.
	Tee func(fbc.Blob) error
}

// Backend is the api.Registry backend that answers for the catalog as opm would: an index.db
// straight from SQL, as `opm registry serve` does; an FBC through the FBC backend, as `opm serve`
// does (an unpacked catalog with its refs resolved). Close the backend before the source.
func (s *Source) Backend(ctx context.Context, o BackendOptions) (api.Backend, error) {
	if s.format == FormatSQLite {
		q, err := sqlite.NewQuerier(s.path)
		if err != nil {
			return nil, classify(s.ref.Raw, err)
		}
		return q, nil
	}
	b, err := fbcbackend.Open(ctx, s.backendInput(o.Tee), fbcbackend.Options{CacheDir: o.CacheDir, EnforceIntegrity: o.EnforceCache, Logger: o.Logger, Reproducible: o.Reproducible})
	if err != nil {
		return nil, classifyWalk(s.ref.Raw, err)
	}
	return b, nil
}

// backendInput is the source as the FBC backend reads it. Its digest covers every file under the
// catalog (object files of an unpacked catalog included), the bytes of a stream, or an image's
// config and catalog path.
func (s *Source) backendInput(tee func(fbc.Blob) error) fbcbackend.Input {
	walk := s.Walk
	if tee != nil {
		walk = func(ctx context.Context, fn func(fbc.Blob) error) error {
			return s.Walk(ctx, func(b fbc.Blob) error {
				if err := tee(b); err != nil {
					return err
				}
				return fn(b)
			})
		}
	}
	return fbcbackend.Input{
		Name: s.ref.Raw,
		Walk: walk,
		Digest: func() (string, error) {
			if s.stream != nil {
				return s.stream.digest(), nil
			}
			if s.files != nil {
				// The layers read were checked against the config's diff IDs, so the config's
				// digest (hashed here, not taken from the manifest) names the catalog exactly.
				config, err := s.image.Image.RawConfigFile()
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("image:%x:%s", sha256.Sum256(config), s.image.ImagePath), nil
			}
			return fbcbackend.FilesDigest(s.path)
		},
	}
}
