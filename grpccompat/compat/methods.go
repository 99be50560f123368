package compat

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Method names as plan files spell them (the gRPC full method name without the leading slash).
const (
	ListPackages                         = "api.Registry/ListPackages"
	ListBundles                          = "api.Registry/ListBundles"
	GetPackage                           = "api.Registry/GetPackage"
	GetBundleForChannel                  = "api.Registry/GetBundleForChannel"
	GetBundle                            = "api.Registry/GetBundle"
	GetBundleThatReplaces                = "api.Registry/GetBundleThatReplaces"
	GetChannelEntriesThatReplace         = "api.Registry/GetChannelEntriesThatReplace"
	GetChannelEntriesThatProvide         = "api.Registry/GetChannelEntriesThatProvide"
	GetLatestChannelEntriesThatProvide   = "api.Registry/GetLatestChannelEntriesThatProvide"
	GetDefaultBundleThatProvides         = "api.Registry/GetDefaultBundleThatProvides"
	ExperimentalListPackageCustomSchemas = "api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas"
)

// methodSpec says how to build a method's request and response messages.
type methodSpec struct {
	stream   bool
	request  func() proto.Message
	response func() proto.Message
}

var methods = map[string]methodSpec{
	ListPackages: {true, func() proto.Message { return &api.ListPackageRequest{} }, func() proto.Message { return &api.PackageName{} }},
	ListBundles:  {true, func() proto.Message { return &api.ListBundlesRequest{} }, func() proto.Message { return &api.Bundle{} }},
	GetPackage:   {false, func() proto.Message { return &api.GetPackageRequest{} }, func() proto.Message { return &api.Package{} }},
	GetBundleForChannel: {false, func() proto.Message { return &api.GetBundleInChannelRequest{} },
		func() proto.Message { return &api.Bundle{} }},
	GetBundle: {false, func() proto.Message { return &api.GetBundleRequest{} }, func() proto.Message { return &api.Bundle{} }},
	GetBundleThatReplaces: {false, func() proto.Message { return &api.GetReplacementRequest{} },
		func() proto.Message { return &api.Bundle{} }},
	GetChannelEntriesThatReplace: {true, func() proto.Message { return &api.GetAllReplacementsRequest{} },
		func() proto.Message { return &api.ChannelEntry{} }},
	GetChannelEntriesThatProvide: {true, func() proto.Message { return &api.GetAllProvidersRequest{} },
		func() proto.Message { return &api.ChannelEntry{} }},
	GetLatestChannelEntriesThatProvide: {true, func() proto.Message { return &api.GetLatestProvidersRequest{} },
		func() proto.Message { return &api.ChannelEntry{} }},
	GetDefaultBundleThatProvides: {false, func() proto.Message { return &api.GetDefaultProviderRequest{} },
		func() proto.Message { return &api.Bundle{} }},
	ExperimentalListPackageCustomSchemas: {true, func() proto.Message { return &api.ExperimentalListPackageCustomSchemasRequest{} },
		func() proto.Message { return &structpb.Struct{} }},
}

// methodOrder is the order of the report's per-method table (the plan's order).
var methodOrder = []string{
	ListPackages, ListBundles, GetPackage, GetBundleForChannel, GetBundle, GetBundleThatReplaces,
	GetChannelEntriesThatReplace, GetChannelEntriesThatProvide, GetLatestChannelEntriesThatProvide,
	GetDefaultBundleThatProvides, ExperimentalListPackageCustomSchemas,
}

// shortMethod drops the service name: "GetBundle".
func shortMethod(m string) string {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] == '/' {
			return m[i+1:]
		}
	}
	return m
}
