package compat

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Normalization is one named, documented way two answers may legitimately differ. Refs are the
// differences of grpc-semantics.md §3 it absorbs; Class is theirs: N cosmetic, P provenance or
// migration, S different semantics (compared by each backend's rule), W service surface.
type Normalization struct {
	Name  string `json:"name"`
	Refs  string `json:"refs"`
	Class string `json:"class"`
	// CrossKind normalizations absorb SQLite-vs-FBC differences: they apply only when one side
	// is an index.db server and the other an FBC server.
	CrossKind bool   `json:"crossKind"`
	Doc       string `json:"doc"`
	apply     func(p *pair) bool
}

// normalizations in the order they are applied: rules that decide or drop whole answers first,
// then field rewrites, then orderings (sorting last, once keys are final).
var normalizations = []Normalization{
	{"experimental-service", "D1", "W", true, "api.ExperimentalRegistry exists only on opm serve: its calls are not compared against an index.db server", normExperimental},
	{"empty-packages", "D4", "P", true, "ListPackages of an index.db may list a package whose channels were all dropped (GetPackage fails for it): such names are ignored", normEmptyPackages},
	{"truncated-bundles", "D16", "P", true, "bundles truncated by `opm registry deprecatetruncate` (olm.deprecated property) are served from an index.db but dropped by opm migrate: they are ignored in streams, and a lookup of one may fail on the FBC side", normTruncated},
	{"any-replacer", "D26", "S", false, "GetBundleThatReplaces may answer any bundle of the channel that replaces or skips the name: two different such bundles are equal", normAnyReplacer},
	{"entries-replaces", "D21", "S", true, "GetChannelEntriesThatReplace on a skip edge reports the queried name (SQL) or the replacer's own replaces (FBC): entries are compared without replaces", normEntriesReplaces},
	{"provider-dummy-entries", "D22", "S", true, "GetChannelEntriesThatProvide on SQL adds {S, replaces: \"\"} for a skipped bundle S that has a replaces: such entries are ignored", normProviderDummies},
	{"latest-provider", "D24", "S", true, "GetLatestChannelEntriesThatProvide: SQL gives the newest providing bundle per channel, FBC the providing heads and their in-channel skips; the SQL answer is checked against the SQL side's catalog and replaced by what FBC's rule gives on it", normLatestProvider},
	{"default-provider", "D25", "S", true, "GetDefaultBundleThatProvides: SQL picks the newest providing bundle of the first default channel, FBC the providing default-channel head of the first package: when the answers differ, the FBC answer must be what FBC's rule gives on the SQL side's catalog", normDefaultProvider},
	{"csv-metadata", "D14", "P", false, "a bundle served from olm.csv.metadata has a synthesized CSV and object == [csvJson]: against real manifests, CSVs are compared by what olm.csv.metadata keeps of them, and object is not compared", normCSVMetadata},
	{"bundle-for-channel", "D13", "S", true, "GetBundleForChannel on SQL fills only csvName and csvJson: the FBC answer's other fields are not compared", normBundleForChannel},
	{"csvjson-trailing-newline", "D13", "N", true, "csvJson ends with a newline on SQL's GetBundleForChannel: trailing whitespace of csvJson is ignored", normCSVNewline},
	{"plural", "D7", "N", true, "providedApis/requiredApis carry plural only on SQL: plural is ignored", normPlural},
	{"required-properties", "D8", "P", true, "FBC bundles also list olm.gvk.required, olm.package.required (olm.label.required, and olm.constraint when rendered from bundle images) properties, which SQL lists as dependencies only: *.required properties, and olm.constraint properties the SQL side does not have, are ignored", normRequiredProperties},
	{"dependency-types", "D10", "P", true, "FBC dependencies hold only olm.gvk and olm.package (made up from *.required properties); migration loses olm.label and olm.constraint dependencies: only olm.gvk and olm.package dependencies are compared", normDependencyTypes},
	{"deprecations", "D6,D15", "P", true, "package, channel and bundle deprecation exist only on FBC: they are ignored", normDeprecations},
	{"number-precision", "D9", "P", true, "FBC decodes property values through float64, so integers beyond 2^53 lose precision: numbers in property values are compared as float64", normNumberPrecision},
	{"property-json", "D9", "N", false, "property and dependency values are JSON text encoded differently (key order, HTML escapes, number spelling): they are compared as parsed JSON", normPropertyJSON},
	{"dedupe", "D20", "N", true, "SQL deduplicates properties and dependencies, FBC keeps duplicates: duplicates are ignored", normDedupe},
	{"property-order", "§7", "N", false, "the order of properties, dependencies, providedApis and requiredApis is SQL row order vs catalog order on FBC, and not part of the API: it is ignored", normPropertyOrder},
	{"object-order", "D11", "N", false, "the order of a bundle's manifests (object) is not part of the API: it is ignored", normObjectOrder},
	{"skips-order", "D18", "N", false, "the order of skips in ListBundles is unspecified on SQL: it is ignored", normSkipsOrder},
	{"channel-order", "D5", "N", false, "GetPackage channel order is SQL join order vs sorted on FBC: it is ignored", normChannelOrder},
	{"stream-order", "D3,D17,D28", "N", false, "streamed answers come in random (FBC map) or unspecified (SQL) order: streams are compared as sorted lists", normStreamOrder},
	{"error-messages", "D2", "N", true, "not-found messages are worded differently by the two servers: failed calls are compared by code only", normErrorMessages},
}

// Normalizations lists every normalization, in the order they are applied.
func Normalizations() []Normalization { return slices.Clone(normalizations) }

// ParseNormalizations turns a --normalize value into the set of names to enable: a comma list of
// names; "all" (the default) and "none" are shortcuts, and "-name" removes one ("all,-plural").
func ParseNormalizations(spec string) ([]string, error) {
	set := map[string]bool{}
	for _, word := range strings.Split(spec, ",") {
		word = strings.TrimSpace(word)
		remove := strings.HasPrefix(word, "-")
		name := strings.TrimPrefix(word, "-")
		switch {
		case word == "":
		case name == "all" || name == "none":
			for _, n := range normalizations {
				set[n.Name] = name == "all" && !remove
			}
		case findNormalization(name) != nil:
			set[name] = !remove
		default:
			return nil, fmt.Errorf("unknown normalization %q; known: all, none, %s", name, strings.Join(normalizationNames(), ", "))
		}
	}
	var out []string
	for _, n := range normalizations {
		if set[n.Name] {
			out = append(out, n.Name)
		}
	}
	return out, nil
}

func findNormalization(name string) *Normalization {
	for i := range normalizations {
		if normalizations[i].Name == name {
			return &normalizations[i]
		}
	}
	return nil
}

func normalizationNames() []string {
	out := make([]string, len(normalizations))
	for i, n := range normalizations {
		out[i] = n.Name
	}
	return out
}

// pair is one call with both answers, being normalized.
type pair struct {
	call  *Call
	req   proto.Message
	sides [2]*side
	// decided is set by a rule that found the answers legitimately different: they count as equal.
	decided string
	// codesOnly compares failed calls by code only.
	codesOnly bool
}

type side struct {
	kind  Kind
	facts *facts
	ans   *Answer
}

// sqlFBC returns the SQLite and the FBC side, or nils when the sides are not of those two kinds.
func (p *pair) sqlFBC() (sql, fbc *side) {
	a, b := p.sides[0], p.sides[1]
	switch {
	case a.kind == KindSQLite && b.kind == KindFBC:
		return a, b
	case a.kind == KindFBC && b.kind == KindSQLite:
		return b, a
	}
	return nil, nil
}

func (p *pair) both(fn func(s *side) bool) bool {
	l, r := fn(p.sides[0]), fn(p.sides[1])
	return l || r
}

// bundlesOf lists the bundles of an answer (unary bundle methods and ListBundles).
func bundlesOf(a *Answer) []*api.Bundle {
	var out []*api.Bundle
	for _, m := range a.Messages {
		if b, ok := m.(*api.Bundle); ok {
			out = append(out, b)
		}
	}
	return out
}

func entriesOf(a *Answer) []*api.ChannelEntry {
	var out []*api.ChannelEntry
	for _, m := range a.Messages {
		if e, ok := m.(*api.ChannelEntry); ok {
			out = append(out, e)
		}
	}
	return out
}

// filterMessages keeps the messages for which keep is true and reports whether any was dropped.
func filterMessages(a *Answer, keep func(proto.Message) bool) bool {
	n := len(a.Messages)
	a.Messages = slices.DeleteFunc(a.Messages, func(m proto.Message) bool { return !keep(m) })
	return len(a.Messages) != n
}
