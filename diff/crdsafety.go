package diff

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/crdsafety"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/resolve"
	"github.com/olmcat/olmcat/internal/plural"
)

// CRD upgrade safety: for every upgrade edge (from, to) of the new catalog that the change adds or
// touches, of either generation of OLM, the CRDs of the to-bundle that the from-bundle installed
// too are judged as OLM judges them when it upgrades (package fbc/crdsafety):
//   - OLM v1's edges are the successors of an installed bundle under CatalogProvided, no channel
//     asked (resolve.UpgradeEdges): its crdupgradesafety preflight refuses the upgrade on any
//     failure (crd-upgrade-unsafe).
//   - OLM v0's edges are, in each channel, the upgrade its resolver takes from each entry
//     (model.UpgradeGraph.Next). Its catalog operator refuses a CRD update that drops a stored
//     version (crd-upgrade-unsafe); the preflight's other failures are crd-upgrade-risky: OLM v0
//     applies the CRD unless an existing custom resource fails the new schema.
//
// An edge is checked when it is new on its side (a new v1 successor, a new v0 upgrade in that
// channel) or the CRDs of either bundle changed. Bundles without manifests (olm.csv.metadata only)
// cannot be checked: one catalog-wide crd-upgrade-unchecked finding says how many edges that left.

// crdEdge is one upgrade (from, to) of one package and the generations that take it.
type crdEdge struct {
	from, to   string
	v1         bool
	v0Channels []string // the channels whose OLM v0 upgrade from "from" is "to", sorted
}

// crdEdges lists the upgrade edges of one package on one side, by (from, to).
func crdEdges(p *pkgIndex, res *resolve.Resolver) map[[2]string]*crdEdge {
	out := map[[2]string]*crdEdge{}
	edge := func(from, to string) *crdEdge {
		k := [2]string{from, to}
		if out[k] == nil {
			out[k] = &crdEdge{from: from, to: to}
		}
		return out[k]
	}
	if res != nil {
		for from, tos := range res.UpgradeEdges(p.name) {
			for _, to := range tos {
				edge(from, to).v1 = true
			}
		}
	}
	if p.model != nil {
		for _, c := range p.model.SortedChannels() {
			g := model.NewUpgradeGraph(c)
			for name, e := range c.Entries {
				if next := g.Next(name, model.EntryVersion(e)); next != "" {
					ed := edge(name, next)
					ed.v0Channels = append(ed.v0Channels, c.Name)
				}
			}
		}
	}
	return out
}

// crdCheck is the verdict of one CRD on one edge, computed once whatever the generations.
type crdCheck struct {
	fails   []crdsafety.Failure
	removed []string // stored versions the to-CRD drops (OLM v0's check)
	err     error    // the CRD could not be judged
}

// crdSafety holds what the check reads, each read once: bundles' CRDs and verdicts of CRD pairs.
type crdSafety struct {
	oldIdx, newIdx *index
	manifests      map[*fbc.Bundle]*crdsafety.Manifests
	fingerprints   map[*fbc.Bundle]string
	same           map[*fbc.Bundle]bool   // new bundle -> it carries what its old self did (sameCRDs)
	verdicts       map[[3]string]crdCheck // (from, to, CRD) of one package
}

func (s *crdSafety) bundleCRDs(b *fbc.Bundle) *crdsafety.Manifests {
	if b == nil {
		return nil
	}
	m, ok := s.manifests[b]
	if !ok {
		if b.Deferred() {
			if err := b.Decode(); err != nil {
				s.manifests[b] = nil
				return nil
			}
		}
		m = crdsafety.FromBundle(b)
		s.manifests[b] = m
	}
	return m
}

// sameCRDs says whether a bundle of the new side carries what its old self carried: the same
// properties (compared as bytes, nothing decoded), or else the same CRDs.
func (s *crdSafety) sameCRDs(old, new *fbc.Bundle) bool {
	if old == nil || new == nil {
		return old == new
	}
	same, ok := s.same[new]
	if !ok {
		if old.Deferred() || new.Deferred() {
			same = old.Decode() == nil && new.Decode() == nil
		} else {
			same = true
		}
		same = same && (propertiesEqual(old.Properties, new.Properties) || s.fingerprint(old) == s.fingerprint(new))
		s.same[new] = same
	}
	return same
}

// fingerprint tells whether a bundle's CRDs are the same on both sides ("" for no manifests).
func (s *crdSafety) fingerprint(b *fbc.Bundle) string {
	if fp, ok := s.fingerprints[b]; ok {
		return fp
	}
	m := s.bundleCRDs(b)
	var sb strings.Builder
	if m != nil && m.Present {
		sb.WriteString("manifests")
		for _, name := range m.Names {
			fp := m.CRDs[name].Fingerprint
			sb.WriteString("\x00" + name + "\x00" + string(fp[:]))
		}
	}
	s.fingerprints[b] = sb.String()
	return sb.String()
}

// crdUpgradeFindings checks the upgrade edges of every package the change touched.
func crdUpgradeFindings(oldIdx, newIdx *index, unchanged map[string]bool) []Finding {
	var pkgs []string
	for name := range newIdx.packages {
		if !unchanged[name] {
			pkgs = append(pkgs, name)
		}
	}
	if len(pkgs) == 0 {
		return nil
	}
	sort.Strings(pkgs)
	s := &crdSafety{oldIdx: oldIdx, newIdx: newIdx, manifests: map[*fbc.Bundle]*crdsafety.Manifests{},
		fingerprints: map[*fbc.Bundle]string{}, same: map[*fbc.Bundle]bool{}}
	newRes, _ := resolve.New(newIdx.catalog) // a catalog it cannot read gives no v1 edges
	oldRes, _ := resolve.New(oldIdx.catalog)
	var findings []Finding
	uncheckedEdges := 0
	var uncheckedPkgs []string
	for _, pkg := range pkgs {
		f, unchecked := s.packageFindings(pkg, oldRes, newRes)
		findings = append(findings, f...)
		if unchecked > 0 {
			uncheckedEdges += unchecked
			uncheckedPkgs = append(uncheckedPkgs, pkg)
		}
	}
	if uncheckedEdges > 0 {
		f := newFinding(CRDUpgradeUnchecked, "", "", "")
		f.Message = fmt.Sprintf("CRD upgrade safety was not checked on %s that the change adds or touches, in %s (%s): their bundles carry no manifests (no olm.bundle.object properties; olm.csv.metadata holds no CRDs), so their CRDs are not in the catalog",
			plural.Of(uncheckedEdges, "upgrade edge"), plural.Of(len(uncheckedPkgs), "package"), listSome(uncheckedPkgs, 5))
		findings = append(findings, f)
	}
	return findings
}

// listSome names up to n items, and how many more.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// packageFindings checks the new or touched edges of one package; unchecked counts those whose
// bundles carry no manifests.
func (s *crdSafety) packageFindings(pkg string, oldRes, newRes *resolve.Resolver) (findings []Finding, unchecked int) {
	np := s.newIdx.packages[pkg]
	if np == nil {
		return nil, 0
	}
	op := s.oldIdx.packages[pkg]
	newEdges := crdEdges(np, newRes)
	oldEdges := map[[2]string]*crdEdge{}
	if op != nil {
		oldEdges = crdEdges(op, oldRes)
	}
	keys := make([][2]string, 0, len(newEdges))
	for k := range newEdges {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	s.verdicts = map[[3]string]crdCheck{}
	for _, k := range keys {
		e := newEdges[k]
		from, to := np.bundles[e.from], np.bundles[e.to]
		if from == nil || to == nil {
			continue // an entry with no bundle: nothing is installed from it
		}
		// What is new: the generations' edges the old side lacks, or all of them when either
		// bundle's CRDs changed.
		var oldFrom, oldTo *fbc.Bundle
		if op != nil {
			oldFrom, oldTo = op.bundles[e.from], op.bundles[e.to]
		}
		touched := !s.sameCRDs(oldFrom, from) || !s.sameCRDs(oldTo, to)
		old := oldEdges[k]
		if old == nil {
			old = &crdEdge{}
		}
		checkV1 := e.v1 && (touched || !old.v1)
		var v0Channels []string
		for _, c := range e.v0Channels {
			if touched || !slices.Contains(old.v0Channels, c) {
				v0Channels = append(v0Channels, c)
			}
		}
		if !checkV1 && len(v0Channels) == 0 {
			continue
		}
		fm, tm := s.bundleCRDs(from), s.bundleCRDs(to)
		if fm == nil || tm == nil || !fm.Present || !tm.Present {
			unchecked++
			continue
		}
		for _, crd := range tm.Names {
			installed := fm.CRDs[crd]
			if installed == nil {
				continue // not on the cluster before: the preflight has nothing to compare
			}
			v := s.verdict(e.from, e.to, installed, tm.CRDs[crd])
			findings = append(findings, edgeFindings(pkg, e.from, e.to, crd, v, checkV1, v0Channels)...)
		}
	}
	return findings, unchecked
}

func (s *crdSafety) verdict(from, to string, installed, next *crdsafety.CRD) crdCheck {
	k := [3]string{from, to, next.Name}
	if v, ok := s.verdicts[k]; ok {
		return v
	}
	var v crdCheck
	v.fails, v.err = crdsafety.Check(installed, next)
	if v.err == nil {
		v.removed = crdsafety.RemovedStoredVersions(installed, next)
	}
	s.verdicts[k] = v
	return v
}

// maxFailuresShown bounds the preflight failures one finding's message quotes.
const maxFailuresShown = 12

// edgeFindings words the verdict of one CRD on one edge for each generation that takes the edge.
func edgeFindings(pkg, from, to, crd string, v crdCheck, v1 bool, v0Channels []string) []Finding {
	field := "CustomResourceDefinition/" + crd
	mk := func(kind Kind, channel string, gens ...model.Generation) Finding {
		f := newFinding(kind, pkg, channel, to)
		f.Field, f.Old, f.New, f.OLM = field, from, to, gens
		return f
	}
	var out []Finding
	if v.err != nil {
		f := mk(CRDUpgradeUnchecked, "")
		f.Message = fmt.Sprintf("the upgrade from %q to %q keeps CRD %q, whose upgrade safety could not be checked: %v", from, to, crd, v.err)
		return append(out, f)
	}
	if len(v.fails) == 0 {
		return nil
	}
	if v1 {
		f := mk(CRDUpgradeUnsafe, "", model.OLMv1)
		f.Message = fmt.Sprintf("OLM v1 refuses to upgrade %q to %q: %s", from, to, preflightError(crd, v.fails))
		out = append(out, f)
	}
	for _, c := range v0Channels {
		if len(v.removed) > 0 {
			msgs := make([]string, len(v.removed))
			for i, r := range v.removed {
				msgs[i] = crdsafety.V0Message(crd, r)
			}
			f := mk(CRDUpgradeUnsafe, c, model.OLMv0)
			f.Message = fmt.Sprintf("OLM v0 refuses to upgrade %q to %q in channel %q: %s", from, to, c, strings.Join(msgs, "; "))
			out = append(out, f)
		}
		var others []crdsafety.Failure
		for _, fl := range v.fails {
			if fl.Check != "storedVersionRemoval" {
				others = append(others, fl)
			}
		}
		if len(others) > 0 {
			f := mk(CRDUpgradeRisky, c, model.OLMv0)
			f.Message = fmt.Sprintf("OLM v0 upgrades %q to %q in channel %q unless an existing %s object fails the new schema (it runs no preflight); OLM v1's preflight refuses this change: %s",
				from, to, c, crd, preflightError(crd, others))
			out = append(out, f)
		}
	}
	return out
}

// preflightError is the preflight's error for one CRD, its failures joined by "; " (the preflight
// puts each on a line of its own), at most maxFailuresShown of them.
func preflightError(crd string, fails []crdsafety.Failure) string {
	msgs := make([]string, 0, min(len(fails), maxFailuresShown))
	for i, f := range fails {
		if i == maxFailuresShown {
			break
		}
		msgs = append(msgs, f.Message)
	}
	text := fmt.Sprintf("validating upgrade for CRD %q: %s", crd, strings.Join(msgs, "; "))
	if len(fails) > maxFailuresShown {
		text += fmt.Sprintf("; and %d more", len(fails)-maxFailuresShown)
	}
	return text
}
