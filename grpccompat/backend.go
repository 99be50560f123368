// Package grpccompat serves OLM catalogs over the gRPC api.Registry API, wire-compatible with
// operator-registry's `opm serve` (FBC) and `opm registry serve` (SQLite index). A Backend answers
// the queries from one catalog; Registry adapts a Backend to the generated gRPC service; Server
// adds health, reflection, logging, limits and graceful shutdown.
package grpccompat

import (
	"context"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Backend answers the api.Registry queries from one catalog. Every method is safe for concurrent
// use. Lookup failures are plain errors whose text is the message the backend's opm counterpart
// sends; the server passes them on with gRPC code Unknown, exactly as opm does.
type Backend interface {
	// ListPackages returns every package name; order is the backend's own.
	ListPackages(ctx context.Context) ([]string, error)
	GetPackage(ctx context.Context, name string) (*api.Package, error)
	GetBundle(ctx context.Context, pkgName, channelName, csvName string) (*api.Bundle, error)
	GetBundleForChannel(ctx context.Context, pkgName, channelName string) (*api.Bundle, error)
	// GetChannelEntriesThatReplace returns the channel edges into csvName; an empty result is an error.
	GetChannelEntriesThatReplace(ctx context.Context, csvName string) ([]*api.ChannelEntry, error)
	GetBundleThatReplaces(ctx context.Context, csvName, pkgName, channelName string) (*api.Bundle, error)
	GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error)
	GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error)
	GetDefaultBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error)
	// ListBundles calls send once per (bundle, channel), streaming; it stops at the first error
	// send returns and returns it.
	ListBundles(ctx context.Context, send func(*api.Bundle) error) error
	// Close releases the backend's files.
	Close() error
}

// CustomSchemaLister is implemented by backends that serve api.ExperimentalRegistry: the catalog
// blobs of non-core schemas. packageName "" selects the blobs that belong to no package. The
// schema and package names have already been validated by the caller.
type CustomSchemaLister interface {
	ListPackageCustomSchemas(ctx context.Context, schema, packageName string, send func(*structpb.Struct) error) error
}
