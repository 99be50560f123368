package compat

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// facts is what one side lists about its catalog: enough to plan every call and to apply the
// rules of the semantic normalizations (heads, default channels, edges, providers).
type facts struct {
	kind     Kind
	packages []string          // ListPackages, as answered
	served   map[string]bool   // packages GetPackage answers
	defaults map[string]string // package -> default channel
	heads    map[chanKey]string
	channels map[chanKey]bool // from GetPackage and ListBundles
	rows     map[chanKey]map[string]*rowFacts
	// truncated holds the (package, bundle) pairs that have the olm.deprecated property of
	// `opm registry deprecatetruncate`.
	truncated map[[2]string]bool
}

type chanKey struct{ pkg, ch string }

// rowFacts is one ListBundles row (a bundle in a channel).
type rowFacts struct {
	replaces  string
	skips     []string
	provides  []gvk
	truncated bool // has the olm.deprecated property of `opm registry deprecatetruncate`
}

type gvk struct{ group, version, kind string }

func (f *facts) row(pkg, ch, csv string) *rowFacts {
	return f.rows[chanKey{pkg, ch}][csv]
}

// survey asks a side for its package list, its ListBundles rows and each package.
func survey(ctx context.Context, t Target, timeout time.Duration) (*facts, error) {
	f := &facts{kind: t.Kind(), served: map[string]bool{}, defaults: map[string]string{},
		heads: map[chanKey]string{}, channels: map[chanKey]bool{}, rows: map[chanKey]map[string]*rowFacts{},
		truncated: map[[2]string]bool{}}
	call := func(c *Call) (*Answer, error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		a, err := t.Invoke(cctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", t, shortMethod(c.Method), err)
		}
		return a, nil
	}
	a, err := call(&Call{ID: "survey", Method: ListPackages, Request: []byte("{}")})
	if err != nil {
		return nil, err
	}
	if a.Code != codes.OK {
		return nil, fmt.Errorf("%s: ListPackages failed: %s: %s", t, a.Code, a.Message)
	}
	for _, m := range a.Messages {
		f.packages = append(f.packages, m.(*api.PackageName).GetName())
	}
	listBundles := &Call{ID: "survey", Method: ListBundles, Request: []byte("{}")}
	if s, ok := t.(streamer); ok {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		a, err = s.invokeStream(cctx, listBundles, func(m proto.Message) { f.addRow(m.(*api.Bundle)) })
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: ListBundles: %w", t, err)
		}
	} else if a, err = call(listBundles); err == nil {
		for _, m := range a.Messages {
			f.addRow(m.(*api.Bundle))
		}
	} else {
		return nil, err
	}
	if a.Code != codes.OK {
		return nil, fmt.Errorf("%s: ListBundles failed: %s: %s", t, a.Code, a.Message)
	}
	for _, name := range f.packages {
		req, _ := jsonObject("name", name)
		p, err := call(&Call{ID: "survey", Method: GetPackage, Request: req})
		if err != nil {
			return nil, err
		}
		if p.Unreachable() {
			return nil, fmt.Errorf("%s: GetPackage %s failed: %s: %s", t, name, p.Code, p.Message)
		}
		if p.Code != codes.OK || len(p.Messages) != 1 {
			continue
		}
		pkg := p.Messages[0].(*api.Package)
		f.served[name] = true
		f.defaults[name] = pkg.GetDefaultChannelName()
		for _, ch := range pkg.GetChannels() {
			k := chanKey{name, ch.GetName()}
			f.channels[k] = true
			f.heads[k] = ch.GetCsvName()
		}
	}
	return f, nil
}

func (f *facts) addRow(b *api.Bundle) {
	k := chanKey{b.GetPackageName(), b.GetChannelName()}
	f.channels[k] = true
	r := &rowFacts{replaces: b.GetReplaces(), skips: b.GetSkips()}
	for _, g := range b.GetProvidedApis() {
		r.provides = append(r.provides, gvk{g.GetGroup(), g.GetVersion(), g.GetKind()})
	}
	for _, p := range b.GetProperties() {
		if p.GetType() == "olm.deprecated" {
			r.truncated = true
			f.truncated[[2]string{k.pkg, b.GetCsvName()}] = true
		}
	}
	if f.rows[k] == nil {
		f.rows[k] = map[string]*rowFacts{}
	}
	f.rows[k][b.GetCsvName()] = r
}

// replacers lists the bundles of a channel that replace or skip name: every answer
// GetBundleThatReplaces may legitimately give.
func (f *facts) replacers(pkg, ch, name string) map[string]bool {
	out := map[string]bool{}
	for csv, r := range f.rows[chanKey{pkg, ch}] {
		if r.replaces == name {
			out[csv] = true
			continue
		}
		for _, s := range r.skips {
			if s == name {
				out[csv] = true
			}
		}
	}
	return out
}
