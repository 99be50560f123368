package compat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/sqlite"
)

// OpenOptions configure OpenTarget.
type OpenOptions struct {
	Dial   DialOptions
	Images indeximage.Options
	// Logger receives the backends' progress records (catalog loading); nil discards.
	Logger *slog.Logger
}

// OpenTarget opens one side from how a user names it:
//   - grpc://HOST:PORT or grpcs://HOST:PORT: a live server (see Dial);
//   - a directory holding plan.json and recorded answers: a recording (see OpenRecording);
//   - an index.db (recognized by its SQLite header): served in-process like `opm registry serve`;
//   - any other file or directory: a File-Based Catalog served in-process like `opm serve`;
//   - an index image reference (registry, oci-layout:DIR, docker-archive:FILE): its catalog,
//     extracted to a temporary directory and served as above.
func OpenTarget(ctx context.Context, spec string, o OpenOptions) (Target, error) {
	if IsAddress(spec) {
		return Dial(ctx, spec, o.Dial)
	}
	fi, err := os.Stat(spec)
	if err != nil {
		if indeximage.IsImageRef(spec) {
			return openImage(ctx, spec, o)
		}
		return nil, fmt.Errorf("cannot read %s: %w (give an FBC directory or file, an index.db, grpc://HOST:PORT, a recording directory or an index image)", spec, err)
	}
	if fi.IsDir() && isRecording(spec) {
		return OpenRecording(spec, KindUnknown)
	}
	return openCatalog(ctx, spec, spec, o)
}

func isRecording(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "plan.json")); err != nil {
		return false
	}
	for _, name := range []string{"answers.json.gz", "0001.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// openCatalog serves the index.db or FBC at path in-process; name is how reports call it.
func openCatalog(ctx context.Context, name, path string, o OpenOptions) (Target, error) {
	isDB, err := sqlite.IsSQLiteFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, err)
	}
	if isDB {
		q, err := sqlite.NewQuerier(path)
		if err != nil {
			return nil, err
		}
		return ServeBackend(name, KindSQLite, q)
	}
	b, err := fbcbackend.Open(ctx, path, fbcbackend.Options{Logger: o.Logger})
	if err != nil {
		var invalid *fbcbackend.InvalidCatalogError
		if errors.As(err, &invalid) {
			return nil, fmt.Errorf("%s cannot be served (opm serve would refuse it too; olmcat validate shows every problem): %w", name, err)
		}
		return nil, err
	}
	return ServeBackend(name, KindFBC, b)
}

func openImage(ctx context.Context, ref string, o OpenOptions) (Target, error) {
	img, err := indeximage.Fetch(ctx, ref, o.Images)
	if err != nil {
		return nil, err
	}
	t, err := openCatalog(ctx, ref, img.Path, o)
	if err != nil {
		img.Cleanup()
		return nil, err
	}
	return &cleanupTarget{Target: t, cleanup: img.Cleanup}, nil
}

// cleanupTarget runs cleanup after closing its target (e.g. removes an extracted image catalog).
type cleanupTarget struct {
	Target
	cleanup func()
}

func (t *cleanupTarget) Close() error {
	err := t.Target.Close()
	t.cleanup()
	return err
}

// WithKind overrides the kind of catalog t serves, for servers whose kind cannot be told from
// their answers (KindUnknown leaves t as it is).
func WithKind(t Target, k Kind) Target {
	if k == KindUnknown {
		return t
	}
	return &kindTarget{Target: t, kind: k}
}

type kindTarget struct {
	Target
	kind Kind
}

func (t *kindTarget) Kind() Kind { return t.kind }

// ParseKind accepts "sqlite", "fbc" and "auto" (KindUnknown: told from the target).
func ParseKind(s string) (Kind, error) {
	switch s {
	case "sqlite":
		return KindSQLite, nil
	case "fbc":
		return KindFBC, nil
	case "auto", "":
		return KindUnknown, nil
	}
	return KindUnknown, fmt.Errorf("unknown catalog kind %q (use sqlite, fbc or auto)", s)
}
