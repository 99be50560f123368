package compat

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// testCatalog is one package "p" with channel "c": v3 (head) replaces v2 and skips v1; v2
// replaces v1. Only v1 and v2 provide g/v1/K; every bundle provides g/v1/All.
func testFacts(kind Kind) *facts {
	f := newFacts(kind)
	f.served["p"], f.defaults["p"], f.heads[chanKey{"p", "c"}], f.packages = true, "c", "v3", []string{"p"}
	all, k := &api.GroupVersionKind{Group: "g", Version: "v1", Kind: "All"}, &api.GroupVersionKind{Group: "g", Version: "v1", Kind: "K"}
	for _, b := range []*api.Bundle{
		{CsvName: "v1", ProvidedApis: []*api.GroupVersionKind{all, k}},
		{CsvName: "v2", Replaces: "v1", ProvidedApis: []*api.GroupVersionKind{all, k}},
		{CsvName: "v3", Replaces: "v2", Skips: []string{"v1"}, ProvidedApis: []*api.GroupVersionKind{all}},
	} {
		b.PackageName, b.ChannelName = "p", "c"
		f.addRow(b)
	}
	return f
}

func entry(bundle, replaces string) *api.ChannelEntry {
	return &api.ChannelEntry{PackageName: "p", ChannelName: "c", BundleName: bundle, Replaces: replaces}
}

func streamOf(ms ...proto.Message) *Answer {
	return &Answer{Code: codes.OK, Messages: ms, stream: true}
}

func failed(msg string) *Answer { return &Answer{Code: codes.Unknown, Message: msg} }

// verdictOf compares a SQL answer (left) with an FBC answer (right) for a call.
func verdictOf(t *testing.T, c *Call, sql, fbc *Answer, only ...string) comparison {
	t.Helper()
	var enabled []*Normalization
	for _, n := range only {
		enabled = append(enabled, findNormalization(n))
	}
	cmpr := &comparer{enabled: enabled, crossKind: true, maxDiff: 2000}
	return cmpr.compare(c, &side{kind: KindSQLite, facts: testFacts(KindSQLite), ans: sql}, &side{kind: KindFBC, facts: testFacts(KindFBC), ans: fbc})
}

func gvkCall(method, kind string) *Call {
	req, _ := jsonObject("group", "g", "version", "v1", "kind", kind)
	return &Call{ID: "1", Method: method, Request: req}
}

func TestRuleNormalizations(t *testing.T) {
	replacesV1 := &Call{ID: "1", Method: GetBundleThatReplaces, Request: []byte(`{"csvName":"v1","pkgName":"p","channelName":"c"}`)}
	for _, tc := range []struct {
		name     string
		call     *Call
		sql, fbc *Answer
		norm     string
		want     string
	}{
		// D26: v2 and v3 both replace or skip v1; either is a valid answer on either side.
		{"any valid replacer", replacesV1, &Answer{Messages: []proto.Message{&api.Bundle{CsvName: "v2"}}},
			&Answer{Messages: []proto.Message{&api.Bundle{CsvName: "v3"}}}, "any-replacer", VerdictNormalized},
		{"replacer outside the valid set", replacesV1, &Answer{Messages: []proto.Message{&api.Bundle{CsvName: "v2"}}},
			&Answer{Messages: []proto.Message{&api.Bundle{CsvName: "v9"}}}, "any-replacer", VerdictDifferent},
		// D21: skip edge into v1: SQL says replaces v1, FBC the replacer's own replaces.
		{"entries replaces", &Call{ID: "1", Method: GetChannelEntriesThatReplace, Request: []byte(`{"csvName":"v1"}`)},
			streamOf(entry("v2", "v1"), entry("v3", "v1")), streamOf(entry("v2", "v1"), entry("v3", "v2")), "entries-replaces", VerdictNormalized},
		{"entries replaces, missing entry", &Call{ID: "1", Method: GetChannelEntriesThatReplace, Request: []byte(`{"csvName":"v1"}`)},
			streamOf(entry("v2", "v1"), entry("v3", "v1")), streamOf(entry("v2", "v1")), "entries-replaces", VerdictDifferent},
		// D22: SQL's dummy row {v2, ""} of a providing bundle that has a replaces is dropped; the
		// tail v1 legitimately has replaces "" on both sides.
		{"provider dummy entry", gvkCall(GetChannelEntriesThatProvide, "All"),
			streamOf(entry("v1", ""), entry("v2", "v1"), entry("v2", ""), entry("v3", "v2"), entry("v3", "v1")),
			streamOf(entry("v1", ""), entry("v2", "v1"), entry("v3", "v2"), entry("v3", "v1")), "provider-dummy-entries", VerdictNormalized},
		// D24: the head v3 does not provide K; SQL answers the newest provider v2, FBC fails.
		{"latest provider, head does not provide", gvkCall(GetLatestChannelEntriesThatProvide, "K"),
			streamOf(entry("v2", "v1")), failed("no channel entries found that provide"), "latest-provider", VerdictNormalized},
		{"latest provider, SQL answers a non-newest bundle", gvkCall(GetLatestChannelEntriesThatProvide, "All"),
			streamOf(entry("v2", "v1")), streamOf(entry("v3", "v2"), entry("v3", "v1")), "latest-provider", VerdictDifferent},
		// FBC adds an entry per in-channel skip of the providing head.
		{"latest provider, head provides", gvkCall(GetLatestChannelEntriesThatProvide, "All"),
			streamOf(entry("v3", "v2")), streamOf(entry("v3", "v2"), entry("v3", "v1")), "latest-provider", VerdictNormalized},
		// D25: SQL answers v2 (newest provider of K in the default channel), FBC fails (no head provides).
		{"default provider", gvkCall(GetDefaultBundleThatProvides, "K"),
			&Answer{Messages: []proto.Message{&api.Bundle{CsvName: "v2", PackageName: "p", ChannelName: "c"}}},
			failed("no channel entries found"), "default-provider", VerdictNormalized},
		{"default provider, FBC answers a non-head", gvkCall(GetDefaultBundleThatProvides, "All"),
			&Answer{Messages: []proto.Message{&api.Bundle{CsvName: "v3", PackageName: "p", ChannelName: "c"}}},
			&Answer{Messages: []proto.Message{&api.Bundle{CsvName: "v2", PackageName: "p", ChannelName: "c"}}}, "default-provider", VerdictDifferent},
		// D4: a package SQL lists but cannot serve.
		{"empty package", &Call{ID: "1", Method: ListPackages, Request: []byte(`{}`)},
			streamOf(&api.PackageName{Name: "p"}, &api.PackageName{Name: "ghost"}), streamOf(&api.PackageName{Name: "p"}), "empty-packages", VerdictNormalized},
		// D1: no experimental service on SQL.
		{"experimental service", &Call{ID: "1", Method: ExperimentalListPackageCustomSchemas, Request: []byte(`{"schema":"x"}`)},
			&Answer{Code: codes.Unimplemented, Message: "unknown service api.ExperimentalRegistry", stream: true}, streamOf(), "experimental-service", VerdictNormalized},
		// D2: messages differ, codes agree.
		{"error messages", &Call{ID: "1", Method: GetPackage, Request: []byte(`{"name":"x"}`)},
			failed("package x not found"), failed(`package "x" not found`), "error-messages", VerdictNormalized},
		{"error codes", &Call{ID: "1", Method: GetPackage, Request: []byte(`{"name":"x"}`)},
			failed("package x not found"), &Answer{Code: codes.NotFound, Message: "package x not found"}, "error-messages", VerdictDifferent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clone := func(a *Answer) *Answer {
				c := *a
				c.Messages = nil
				for _, m := range a.Messages {
					c.Messages = append(c.Messages, proto.Clone(m))
				}
				return &c
			}
			got := verdictOf(t, tc.call, clone(tc.sql), clone(tc.fbc), tc.norm, "stream-order")
			if got.verdict != tc.want {
				t.Errorf("with %s: %s, want %s\n%s", tc.norm, got.verdict, tc.want, got.diff)
			}
			if tc.want == VerdictNormalized {
				// Each normalization is what makes the answers equal: without it they differ.
				if without := verdictOf(t, tc.call, clone(tc.sql), clone(tc.fbc), "stream-order"); without.verdict != VerdictDifferent {
					t.Errorf("without %s: %s", tc.norm, without.verdict)
				}
			}
		})
	}
}

func TestCanonicalJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1,"a":"x\u003cy"}`:              `{"a":"x<y","b":1}`,
		`{"n":1.0,"m":1e3}`:                   `{"m":1000,"n":1}`,
		`{"big":12345678901234567890}`:        `{"big":12345678901234567890}`,
		`not json`:                            `not json`,
		`{"a":[{"z":true,"y":null}]}  `:       `{"a":[{"y":null,"z":true}]}`,
		`{"a":1} {"b":2}`:                     `{"a":1} {"b":2}`,
		`{"x":"\u0026 \u003e","n":-0.5e-1}`:   `{"n":-0.05,"x":"& >"}`,
		`[1, 2.50, 3e0]`:                      `[1,2.5,3]`,
		`{"packageName":"p","version":"1.0"}`: `{"packageName":"p","version":"1.0"}`,
	} {
		if got := canonicalJSON(in, false); got != want {
			t.Errorf("canonicalJSON(%s) = %s, want %s", in, got, want)
		}
	}
	if got := canonicalJSON(`{"big":12345678901234567890}`, true); got != `{"big":12345678901234567000}` {
		t.Errorf("via float64: %s", got)
	}
}
