package api

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// The wire facts of operator-registry's registry.proto (grpc-semantics.md §0.1): a client or server
// built from either file must interoperate, so every name, number, type and streaming flag is
// checked against them.

type fieldFact struct {
	number   protoreflect.FieldNumber
	kind     protoreflect.Kind
	repeated bool
	message  protoreflect.FullName // for message fields
}

var str = func(n protoreflect.FieldNumber) fieldFact { return fieldFact{number: n, kind: protoreflect.StringKind} }
var strs = func(n protoreflect.FieldNumber) fieldFact {
	return fieldFact{number: n, kind: protoreflect.StringKind, repeated: true}
}
var msg = func(n protoreflect.FieldNumber, m protoreflect.FullName, repeated bool) fieldFact {
	return fieldFact{number: n, kind: protoreflect.MessageKind, repeated: repeated, message: m}
}

var messageFacts = map[protoreflect.FullName]map[protoreflect.Name]fieldFact{
	"api.Channel":          {"name": str(1), "csvName": str(2), "deprecation": msg(3, "api.Deprecation", false)},
	"api.PackageName":      {"name": str(1)},
	"api.Package":          {"name": str(1), "channels": msg(2, "api.Channel", true), "defaultChannelName": str(3), "deprecation": msg(4, "api.Deprecation", false)},
	"api.GroupVersionKind": {"group": str(1), "version": str(2), "kind": str(3), "plural": str(4)},
	"api.Dependency":       {"type": str(1), "value": str(2)},
	"api.Property":         {"type": str(1), "value": str(2)},
	"api.Deprecation":      {"message": str(1)},
	"api.ChannelEntry":     {"packageName": str(1), "channelName": str(2), "bundleName": str(3), "replaces": str(4)},
	"api.Bundle": {
		"csvName": str(1), "packageName": str(2), "channelName": str(3), "csvJson": str(4), "object": strs(5),
		"bundlePath": str(6), "providedApis": msg(7, "api.GroupVersionKind", true), "requiredApis": msg(8, "api.GroupVersionKind", true),
		"version": str(9), "skipRange": str(10), "dependencies": msg(11, "api.Dependency", true),
		"properties": msg(12, "api.Property", true), "replaces": str(13), "skips": strs(14), "deprecation": msg(15, "api.Deprecation", false),
	},
	"api.ListPackageRequest":                          {},
	"api.ListBundlesRequest":                          {},
	"api.GetPackageRequest":                           {"name": str(1)},
	"api.GetBundleRequest":                            {"pkgName": str(1), "channelName": str(2), "csvName": str(3)},
	"api.GetBundleInChannelRequest":                   {"pkgName": str(1), "channelName": str(2)},
	"api.GetAllReplacementsRequest":                   {"csvName": str(1)},
	"api.GetReplacementRequest":                       {"csvName": str(1), "pkgName": str(2), "channelName": str(3)},
	"api.GetAllProvidersRequest":                      {"group": str(1), "version": str(2), "kind": str(3), "plural": str(4)},
	"api.GetLatestProvidersRequest":                   {"group": str(1), "version": str(2), "kind": str(3), "plural": str(4)},
	"api.GetDefaultProviderRequest":                   {"group": str(1), "version": str(2), "kind": str(3), "plural": str(4)},
	"api.ExperimentalListPackageCustomSchemasRequest": {"schema": str(1), "packageName": str(2)},
}

type methodFact struct {
	in, out    protoreflect.FullName
	streaming  bool
	deprecated bool
}

var serviceFacts = map[protoreflect.FullName]map[protoreflect.Name]methodFact{
	"api.Registry": {
		"ListPackages":                       {"api.ListPackageRequest", "api.PackageName", true, false},
		"GetPackage":                         {"api.GetPackageRequest", "api.Package", false, false},
		"GetBundle":                          {"api.GetBundleRequest", "api.Bundle", false, false},
		"GetBundleForChannel":                {"api.GetBundleInChannelRequest", "api.Bundle", false, true},
		"GetChannelEntriesThatReplace":       {"api.GetAllReplacementsRequest", "api.ChannelEntry", true, false},
		"GetBundleThatReplaces":              {"api.GetReplacementRequest", "api.Bundle", false, false},
		"GetChannelEntriesThatProvide":       {"api.GetAllProvidersRequest", "api.ChannelEntry", true, false},
		"GetLatestChannelEntriesThatProvide": {"api.GetLatestProvidersRequest", "api.ChannelEntry", true, false},
		"GetDefaultBundleThatProvides":       {"api.GetDefaultProviderRequest", "api.Bundle", false, false},
		"ListBundles":                        {"api.ListBundlesRequest", "api.Bundle", true, false},
	},
	"api.ExperimentalRegistry": {
		"ExperimentalListPackageCustomSchemas": {"api.ExperimentalListPackageCustomSchemasRequest", "google.protobuf.Struct", true, false},
	},
}

func TestFileMatchesOpm(t *testing.T) {
	fd := File_registry_proto
	if fd.Path() != "registry.proto" || fd.Package() != "api" || fd.Syntax() != protoreflect.Proto3 {
		t.Fatalf("file %s, package %s, %v; opm's is registry.proto, package api, proto3", fd.Path(), fd.Package(), fd.Syntax())
	}
	if fd.Imports().Len() != 1 || fd.Imports().Get(0).Path() != "google/protobuf/struct.proto" {
		t.Errorf("imports differ from opm's single google/protobuf/struct.proto")
	}
}

func TestMessagesMatchOpm(t *testing.T) {
	msgs := File_registry_proto.Messages()
	if msgs.Len() != len(messageFacts) {
		t.Errorf("%d messages, opm has %d", msgs.Len(), len(messageFacts))
	}
	for name, fields := range messageFacts {
		md := msgs.ByName(name.Name())
		if md == nil {
			t.Errorf("message %s missing", name)
			continue
		}
		if md.FullName() != name {
			t.Errorf("message %s has full name %s", name, md.FullName())
		}
		if md.Fields().Len() != len(fields) {
			t.Errorf("%s has %d fields, opm's has %d", name, md.Fields().Len(), len(fields))
		}
		for fname, want := range fields {
			f := md.Fields().ByName(fname)
			if f == nil {
				t.Errorf("%s.%s missing", name, fname)
				continue
			}
			if f.Number() != want.number || f.Kind() != want.kind || (f.Cardinality() == protoreflect.Repeated) != want.repeated {
				t.Errorf("%s.%s = #%d %v repeated=%v, opm: #%d %v repeated=%v", name, fname, f.Number(), f.Kind(),
					f.Cardinality() == protoreflect.Repeated, want.number, want.kind, want.repeated)
			}
			if want.kind == protoreflect.MessageKind && f.Message().FullName() != want.message {
				t.Errorf("%s.%s is a %s, opm's is a %s", name, fname, f.Message().FullName(), want.message)
			}
			if f.JSONName() != string(fname) {
				t.Errorf("%s.%s has JSON name %q; protojson clients expect %q", name, fname, f.JSONName(), fname)
			}
		}
	}
}

func TestServicesMatchOpm(t *testing.T) {
	services := File_registry_proto.Services()
	if services.Len() != len(serviceFacts) {
		t.Errorf("%d services, opm has %d", services.Len(), len(serviceFacts))
	}
	for name, methods := range serviceFacts {
		sd := services.ByName(name.Name())
		if sd == nil {
			t.Errorf("service %s missing", name)
			continue
		}
		if sd.Methods().Len() != len(methods) {
			t.Errorf("%s has %d methods, opm's has %d", name, sd.Methods().Len(), len(methods))
		}
		for mname, want := range methods {
			m := sd.Methods().ByName(mname)
			if m == nil {
				t.Errorf("%s/%s missing", name, mname)
				continue
			}
			if m.Input().FullName() != want.in || m.Output().FullName() != want.out {
				t.Errorf("%s/%s: %s -> %s, opm: %s -> %s", name, mname, m.Input().FullName(), m.Output().FullName(), want.in, want.out)
			}
			if m.IsStreamingServer() != want.streaming || m.IsStreamingClient() {
				t.Errorf("%s/%s: server streaming %v, client streaming %v; opm: server streaming %v only", name, mname,
					m.IsStreamingServer(), m.IsStreamingClient(), want.streaming)
			}
			opts, _ := m.Options().(*descriptorpb.MethodOptions)
			if opts.GetDeprecated() != want.deprecated {
				t.Errorf("%s/%s: deprecated=%v, opm: %v", name, mname, opts.GetDeprecated(), want.deprecated)
			}
		}
	}
}
