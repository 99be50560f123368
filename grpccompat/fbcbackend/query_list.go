package fbcbackend

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// ListBundles streams one bundle per (bundle, channel), sorted by channel, package and bundle name
// as opm does, with the entry's replaces and skips and without manifests for bundles that have an
// image.
func (b *Backend) ListBundles(ctx context.Context, send func(*api.Bundle) error) error {
	for _, k := range b.list {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := b.bundle(k.pkg, k.ch, k.entry, false)
		if err != nil {
			return err
		}
		if err := send(out); err != nil {
			return err
		}
	}
	return nil
}

// ListPackageCustomSchemas sends, in catalog order, the blobs of the schema that belong to the
// package ("" selects blobs with no package), as normalized JSON objects.
func (b *Backend) ListPackageCustomSchemas(ctx context.Context, schema, packageName string, send func(*structpb.Struct) error) error {
	for _, g := range b.ix.Metas {
		if g.Schema != schema || g.Package != packageName {
			continue
		}
		for _, r := range g.Blobs {
			if err := ctx.Err(); err != nil {
				return err
			}
			raw, err := b.store.read(r)
			if err != nil {
				return err
			}
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				return fmt.Errorf("schema %q blob: %w", schema, err)
			}
			s, err := structpb.NewStruct(m)
			if err != nil {
				return fmt.Errorf("schema %q blob: %w", schema, err)
			}
			if err := send(s); err != nil {
				return err
			}
		}
	}
	return nil
}
