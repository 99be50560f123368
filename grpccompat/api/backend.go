package api

// The backend side of the Registry service: what answers the queries of one catalog. The SQL
// backend (package sqlite) and the FBC backend (package fbcbackend) implement it; the server in
// package grpccompat serves any of them.

import (
	"context"
	"regexp"

	"google.golang.org/protobuf/types/known/structpb"
)

// Backend answers the api.Registry queries from one catalog. Every method is safe for concurrent
// use. Lookup failures are plain errors whose text is the message the backend's opm counterpart
// sends; the server passes them on with gRPC code Unknown, exactly as opm does.
type Backend interface {
	// ListPackages returns every package name; order is the backend's own.
	ListPackages(ctx context.Context) ([]string, error)
	GetPackage(ctx context.Context, name string) (*Package, error)
	GetBundle(ctx context.Context, pkgName, channelName, csvName string) (*Bundle, error)
	GetBundleForChannel(ctx context.Context, pkgName, channelName string) (*Bundle, error)
	// GetChannelEntriesThatReplace returns the channel edges into csvName; an empty result is an error.
	GetChannelEntriesThatReplace(ctx context.Context, csvName string) ([]*ChannelEntry, error)
	GetBundleThatReplaces(ctx context.Context, csvName, pkgName, channelName string) (*Bundle, error)
	GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*ChannelEntry, error)
	GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*ChannelEntry, error)
	GetDefaultBundleThatProvides(ctx context.Context, group, version, kind string) (*Bundle, error)
	// ListBundles calls send once per (bundle, channel), streaming; it stops at the first error
	// send returns and returns it.
	ListBundles(ctx context.Context, send func(*Bundle) error) error
	// Close releases the backend's files.
	Close() error
}

// CustomSchemaLister is implemented by backends that serve api.ExperimentalRegistry: the catalog
// blobs of non-core schemas. packageName "" selects the blobs that belong to no package. The
// schema and package names have already been validated by the caller.
type CustomSchemaLister interface {
	ListPackageCustomSchemas(ctx context.Context, schema, packageName string, send func(*structpb.Struct) error) error
}

// PreEncoded is a message already in protobuf wire form, as parts sent one after the other. A
// backend that keeps its answers encoded can stream them without decoding and re-encoding each one
// (see RawBundleLister); since protobuf allows a message's fields in any order, a part shared by
// many messages (a bundle's fields, beside the fields of each of its channels) is sent as it is,
// not copied into each: a slow client then keeps only what is its own queued. The server may
// read the parts after the send returned: they must not change.
type PreEncoded [][]byte

// Bytes is the message in one piece.
func (m PreEncoded) Bytes() []byte {
	if len(m) == 1 {
		return m[0]
	}
	var out []byte
	for _, p := range m {
		out = append(out, p...)
	}
	return out
}

// RawBundleLister is implemented by backends that can stream ListBundles answers as wire-encoded
// Bundle messages; the server then sends those bytes as they are.
type RawBundleLister interface {
	ListBundlesRaw(ctx context.Context, send func(PreEncoded) error) error
}

// CustomSchemaName matches the schema (and package) names opm serve accepts for
// ExperimentalRegistry.
var CustomSchemaName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]*$`)

// ValidCustomSchemaName reports whether a non-core schema name can be served by
// ExperimentalRegistry; opm serve refuses to start on a catalog with any other.
func ValidCustomSchemaName(s string) bool { return CustomSchemaName.MatchString(s) }
