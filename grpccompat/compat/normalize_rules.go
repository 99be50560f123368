package compat

import (
	"cmp"
	"maps"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Normalizations that decide, drop or rewrite whole answers by the rules each backend follows.
// They use what the survey learnt about each side's catalog (facts).

func normExperimental(p *pair) bool {
	sql, _ := p.sqlFBC()
	if sql == nil || p.call.Method != ExperimentalListPackageCustomSchemas || sql.ans.Code != codes.Unimplemented {
		return false
	}
	p.decided = "experimental-service"
	return true
}

func normEmptyPackages(p *pair) bool {
	sql, fbc := p.sqlFBC()
	if sql == nil || p.call.Method != ListPackages {
		return false
	}
	onFBC := map[string]bool{}
	for _, m := range fbc.ans.Messages {
		onFBC[m.(*api.PackageName).GetName()] = true
	}
	return filterMessages(sql.ans, func(m proto.Message) bool {
		name := m.(*api.PackageName).GetName()
		return sql.facts.served[name] || onFBC[name]
	})
}

func normTruncated(p *pair) bool {
	sql, fbc := p.sqlFBC()
	if sql == nil || len(sql.facts.truncated) == 0 {
		return false
	}
	switch p.call.Method {
	case ListBundles:
		return filterMessages(sql.ans, func(m proto.Message) bool { return !hasProperty(m.(*api.Bundle), "olm.deprecated") })
	case GetChannelEntriesThatReplace, GetChannelEntriesThatProvide, GetLatestChannelEntriesThatProvide:
		return filterMessages(sql.ans, func(m proto.Message) bool {
			e := m.(*api.ChannelEntry)
			return !sql.facts.truncated[[2]string{e.GetPackageName(), e.GetBundleName()}]
		})
	case GetBundle, GetBundleThatReplaces, GetDefaultBundleThatProvides, GetBundleForChannel:
		bs := bundlesOf(sql.ans)
		if sql.ans.Code != codes.OK || fbc.ans.Code == codes.OK || len(bs) != 1 ||
			!sql.facts.truncated[[2]string{bs[0].GetPackageName(), bs[0].GetCsvName()}] {
			return false
		}
		// The FBC side cannot have the bundle: its failure is the expected answer.
		*sql.ans = Answer{Code: fbc.ans.Code, Message: fbc.ans.Message}
		return true
	}
	return false
}

func hasProperty(b *api.Bundle, typ string) bool {
	for _, pr := range b.GetProperties() {
		if pr.GetType() == typ {
			return true
		}
	}
	return false
}

func normAnyReplacer(p *pair) bool {
	req, ok := p.req.(*api.GetReplacementRequest)
	if !ok {
		return false
	}
	l, r := bundlesOf(p.sides[0].ans), bundlesOf(p.sides[1].ans)
	if len(l) != 1 || len(r) != 1 || l[0].GetCsvName() == r[0].GetCsvName() {
		return false
	}
	for i, b := range []*api.Bundle{l[0], r[0]} {
		valid := p.sides[i].facts.replacers(req.GetPkgName(), req.GetChannelName(), req.GetCsvName())
		if !valid[b.GetCsvName()] {
			return false
		}
	}
	p.decided = "any-replacer"
	return true
}

func normEntriesReplaces(p *pair) bool {
	if p.call.Method != GetChannelEntriesThatReplace {
		return false
	}
	return p.both(func(s *side) bool {
		changed := false
		seen := map[string]bool{}
		for _, e := range entriesOf(s.ans) {
			changed = changed || e.Replaces != ""
			e.Replaces = ""
		}
		filterMessages(s.ans, func(m proto.Message) bool {
			k := messageKey(m)
			dup := seen[k]
			seen[k] = true
			return !dup
		})
		return changed
	})
}

func normProviderDummies(p *pair) bool {
	sql, _ := p.sqlFBC()
	if sql == nil || p.call.Method != GetChannelEntriesThatProvide {
		return false
	}
	return filterMessages(sql.ans, func(m proto.Message) bool {
		e := m.(*api.ChannelEntry)
		if e.GetReplaces() != "" {
			return true
		}
		r := sql.facts.row(e.GetPackageName(), e.GetChannelName(), e.GetBundleName())
		return r == nil || r.replaces == ""
	})
}

// providerGVK is the group/version/kind a provider call asks for.
func providerGVK(req proto.Message) (gvk, bool) {
	if r, ok := req.(interface {
		GetGroup() string
		GetVersion() string
		GetKind() string
	}); ok {
		return gvk{r.GetGroup(), r.GetVersion(), r.GetKind()}, true
	}
	return gvk{}, false
}

// providingChannels lists the channels where some bundle provides g, sorted.
func (f *facts) providingChannels(g gvk) []chanKey {
	var out []chanKey
	for k, rows := range f.rows {
		for _, r := range rows {
			if f.provides(r, g) {
				out = append(out, k)
				break
			}
		}
	}
	slices.SortFunc(out, compareChanKeys)
	return out
}

func compareChanKeys(a, b chanKey) int {
	return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.ch, b.ch))
}

// headProvides returns the head of channel k when it provides g.
func (f *facts) headProvides(k chanKey, g gvk) (string, *rowFacts) {
	head := f.heads[k]
	if r := f.rows[k][head]; r != nil && f.provides(r, g) {
		return head, r
	}
	return "", nil
}

// latestByFBCRule is what opm serve answers to GetLatestChannelEntriesThatProvide on this catalog:
// each providing head with its replaces, plus one entry per skip of a bundle in the channel.
func (f *facts) latestByFBCRule(g gvk) []proto.Message {
	var out []proto.Message
	for _, k := range f.providingChannels(g) {
		head, r := f.headProvides(k, g)
		if r == nil {
			continue
		}
		out = append(out, &api.ChannelEntry{PackageName: k.pkg, ChannelName: k.ch, BundleName: head, Replaces: r.replaces})
		for _, s := range r.skips {
			if _, inChannel := f.rows[k][s]; s != r.replaces && inChannel {
				out = append(out, &api.ChannelEntry{PackageName: k.pkg, ChannelName: k.ch, BundleName: head, Replaces: s})
			}
		}
	}
	return out
}

func normLatestProvider(p *pair) bool {
	sql, fbc := p.sqlFBC()
	g, ok := providerGVK(p.req)
	if sql == nil || !ok || p.call.Method != GetLatestChannelEntriesThatProvide {
		return false
	}
	// The SQL answer must follow its own rule: one entry for each channel where a bundle
	// provides, and that entry is the head when the head provides.
	want := sql.facts.providingChannels(g)
	got := map[chanKey]string{}
	for _, e := range entriesOf(sql.ans) {
		got[chanKey{e.GetPackageName(), e.GetChannelName()}] = e.GetBundleName()
	}
	if sql.ans.Code != codes.OK && len(want) > 0 || !slices.Equal(want, slices.SortedFunc(maps.Keys(got), compareChanKeys)) {
		return false
	}
	for _, k := range want {
		if head, r := sql.facts.headProvides(k, g); r != nil && got[k] != head {
			return false
		}
	}
	expected := sql.facts.latestByFBCRule(g)
	if len(expected) == 0 {
		*sql.ans = Answer{Code: codes.Unknown, Message: fbc.ans.Message, stream: true}
	} else {
		*sql.ans = Answer{Code: codes.OK, Messages: expected, stream: true}
	}
	return true
}

func normDefaultProvider(p *pair) bool {
	sql, fbc := p.sqlFBC()
	g, ok := providerGVK(p.req)
	if sql == nil || !ok || p.call.Method != GetDefaultBundleThatProvides {
		return false
	}
	sqlB, fbcB := bundlesOf(sql.ans), bundlesOf(fbc.ans)
	if len(sqlB) == 1 && len(fbcB) == 1 && sqlB[0].GetCsvName() == fbcB[0].GetCsvName() {
		return false // same pick: compared field by field
	}
	// The SQL answer must be a providing bundle of a default channel.
	if len(sqlB) == 1 {
		b := sqlB[0]
		k := chanKey{b.GetPackageName(), b.GetChannelName()}
		r := sql.facts.rows[k][b.GetCsvName()]
		if r == nil || !sql.facts.provides(r, g) || sql.facts.defaults[k.pkg] != k.ch {
			return false
		}
	} else if sql.ans.Code == codes.OK || sql.facts.defaultChannelProvides(g) {
		return false // an error is SQL's answer only when no default channel provides
	}
	// The FBC answer must be the providing default-channel head of the first package.
	expected := ""
	for _, e := range sql.facts.latestByFBCRule(g) {
		ce := e.(*api.ChannelEntry)
		if sql.facts.defaults[ce.GetPackageName()] == ce.GetChannelName() {
			expected = ce.GetBundleName()
			break
		}
	}
	switch {
	case expected == "" && fbc.ans.Code == codes.Unknown:
	case expected != "" && len(fbcB) == 1 && fbcB[0].GetCsvName() == expected:
	default:
		return false
	}
	p.decided = "default-provider"
	return true
}

// defaultChannelProvides reports whether a bundle of some default channel provides g.
func (f *facts) defaultChannelProvides(g gvk) bool {
	for _, k := range f.providingChannels(g) {
		if f.defaults[k.pkg] == k.ch {
			return true
		}
	}
	return false
}
