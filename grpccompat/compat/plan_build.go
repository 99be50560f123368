package compat

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Names the plan asks for to probe each method's not-found answer.
const (
	missingPackage = "no-such-package"
	missingChannel = "no-such-channel"
	missingBundle  = "no-such-bundle.v0.0.0"
	missingGroup   = "no-such-group.example.com"
	missingVersion = "v1"
	missingKind    = "NoSuchKind"
)

// BuildPlan surveys the targets (ListPackages, ListBundles, GetPackage of each package; every
// call bounded by timeout) and returns the plan Check would run on them; see buildPlan.
func BuildPlan(ctx context.Context, timeout time.Duration, targets ...Target) (Plan, error) {
	var sides []*facts
	for _, t := range targets {
		f, err := survey(ctx, t, timeout)
		if err != nil {
			return nil, err
		}
		sides = append(sides, f)
	}
	return buildPlan(sides...), nil
}

// buildPlan makes the exhaustive plan of the conformance corpus (README §"Query plan") from what
// the sides list, united:
//  1. ListPackages; ListBundles.
//  2. GetPackage for every listed package, then a missing one.
//  3. GetBundleForChannel for every (package, channel) of GetPackage or ListBundles, then a
//     missing channel of the first package.
//  4. GetBundle for every ListBundles row, then a missing package, channel and bundle.
//  5. GetBundleThatReplaces for every edge (a row's replaces or skips), then the same 3 misses.
//  6. GetChannelEntriesThatReplace for every bundle name seen (rows, heads, edge targets), then a
//     missing one.
//  7. GetChannelEntriesThatProvide, GetLatestChannelEntriesThatProvide and
//     GetDefaultBundleThatProvides for every provided group/version/kind, then a missing one.
//
// Every set is sorted before numbering, so a catalog always gets the same plan.
func buildPlan(sides ...*facts) Plan {
	var (
		packages = map[string]bool{}
		channels = map[chanKey]bool{}
		rows     = map[[3]string]bool{}
		edges    = map[[3]string]bool{}
		names    = map[string]bool{}
		gvks     = map[gvk]bool{}
	)
	for _, f := range sides {
		for _, p := range f.packages {
			packages[p] = true
		}
		for k := range f.channels {
			channels[k] = true
		}
		for _, h := range f.heads {
			if h != "" {
				names[h] = true
			}
		}
		for k, byName := range f.rows {
			for csv, r := range byName {
				rows[[3]string{k.pkg, k.ch, csv}] = true
				names[csv] = true
				for _, target := range append([]string{r.replaces}, r.skips...) {
					if target != "" {
						edges[[3]string{target, k.pkg, k.ch}] = true
						names[target] = true
					}
				}
				for _, id := range r.provides {
					gvks[f.apis[id]] = true
				}
			}
		}
	}
	var p planner
	p.add(ListPackages)
	p.add(ListBundles)
	for _, name := range sortedKeys(packages, cmp.Compare[string]) {
		p.add(GetPackage, "name", name)
	}
	p.add(GetPackage, "name", missingPackage)

	chs := sortedKeys(channels, func(a, b chanKey) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.ch, b.ch))
	})
	for _, k := range chs {
		p.add(GetBundleForChannel, "pkgName", k.pkg, "channelName", k.ch)
	}
	if len(chs) > 0 {
		p.add(GetBundleForChannel, "pkgName", chs[0].pkg, "channelName", missingChannel)
	}

	byTuple := func(a, b [3]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]), cmp.Compare(a[2], b[2]))
	}
	sortedRows := sortedKeys(rows, byTuple)
	for _, r := range sortedRows {
		p.add(GetBundle, "pkgName", r[0], "channelName", r[1], "csvName", r[2])
	}
	if len(sortedRows) > 0 {
		pkg, ch := sortedRows[0][0], sortedRows[0][1]
		p.add(GetBundle, "pkgName", missingPackage, "channelName", ch, "csvName", missingBundle)
		p.add(GetBundle, "pkgName", pkg, "channelName", missingChannel, "csvName", missingBundle)
		p.add(GetBundle, "pkgName", pkg, "channelName", ch, "csvName", missingBundle)
	}
	for _, e := range sortedKeys(edges, byTuple) {
		p.add(GetBundleThatReplaces, "csvName", e[0], "pkgName", e[1], "channelName", e[2])
	}
	if len(sortedRows) > 0 {
		pkg, ch := sortedRows[0][0], sortedRows[0][1]
		p.add(GetBundleThatReplaces, "csvName", missingBundle, "pkgName", missingPackage, "channelName", ch)
		p.add(GetBundleThatReplaces, "csvName", missingBundle, "pkgName", pkg, "channelName", missingChannel)
		p.add(GetBundleThatReplaces, "csvName", missingBundle, "pkgName", pkg, "channelName", ch)
	}
	for _, n := range sortedKeys(names, cmp.Compare[string]) {
		p.add(GetChannelEntriesThatReplace, "csvName", n)
	}
	p.add(GetChannelEntriesThatReplace, "csvName", missingBundle)

	sortedGVKs := sortedKeys(gvks, func(a, b gvk) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.version, b.version), cmp.Compare(a.kind, b.kind))
	})
	sortedGVKs = append(sortedGVKs, gvk{missingGroup, missingVersion, missingKind})
	for _, m := range []string{GetChannelEntriesThatProvide, GetLatestChannelEntriesThatProvide, GetDefaultBundleThatProvides} {
		for _, g := range sortedGVKs {
			p.add(m, "group", g.group, "version", g.version, "kind", g.kind)
		}
	}
	return p.number()
}

type planner struct{ calls Plan }

// add appends a call whose request has the given fields, in the given order.
func (p *planner) add(method string, fields ...string) {
	req, err := jsonObject(fields...)
	if err != nil {
		panic(fmt.Sprintf("compat: building a request of strings cannot fail: %v", err))
	}
	p.calls = append(p.calls, Call{Method: method, Request: req})
}

// number gives ids "0001"... zero-padded to at least 4 digits, as the corpus does.
func (p *planner) number() Plan {
	width := max(4, len(strconv.Itoa(len(p.calls))))
	for i := range p.calls {
		p.calls[i].ID = fmt.Sprintf("%0*d", width, i+1)
	}
	return p.calls
}

// jsonObject writes {"k1":"v1",...} keeping the key order.
func jsonObject(kv ...string) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	out := []byte{'{'}
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			out = append(out, ',')
		}
		for j, s := range kv[i : i+2] {
			b.Reset()
			if err := enc.Encode(s); err != nil {
				return nil, err
			}
			out = append(out, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
			if j == 0 {
				out = append(out, ':')
			}
		}
	}
	return append(out, '}'), nil
}

func sortedKeys[K comparable](m map[K]bool, compare func(a, b K) int) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compare)
	return out
}

// Sample keeps n calls of plan, chosen at random with seed (the same seed, plan and n give the
// same sample), plus ListPackages and ListBundles, in plan order and with their original ids.
// n <= 0 or n >= len(plan) keeps everything.
func (p Plan) Sample(n int, seed uint64) Plan {
	if n <= 0 || n >= len(p) {
		return p
	}
	var always, rest []int
	for i, c := range p {
		if c.Method == ListPackages || c.Method == ListBundles {
			always = append(always, i)
		} else {
			rest = append(rest, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6f6c6d636174)) // second word: a fixed stream id
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	keep := append(always, rest[:max(0, min(len(rest), n-len(always)))]...)
	slices.Sort(keep)
	out := make(Plan, 0, len(keep))
	for _, i := range keep {
		out = append(out, p[i])
	}
	return out
}
