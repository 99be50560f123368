package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/resolve"
)

// The generations of OLM an upgrade finding holds for (Finding.OLM), in fbc/model's words, as
// olmcat validate gives them.
var (
	ForOLMv0   = []model.Generation{model.OLMv0}
	ForOLMv1   = []model.Generation{model.OLMv1}
	ForBothOLM = []model.Generation{model.OLMv0, model.OLMv1}
)

// gen is the generations a comparison is asked about, read for this package.
type gen model.Generations

func (g gen) v0() bool { return model.Generations(g).Includes(model.OLMv0) }
func (g gen) v1() bool { return model.Generations(g).Includes(model.OLMv1) }

// Options choose what Compare speaks for.
type Options struct {
	OLM model.Generations // the zero value is both (--olm v0|v1|both)
}

// Generations says which generations of OLM the finding holds for: "v0", "v1", "both", or ""
// when it does not depend on the generation (catalog findings, most validation findings).
func (f Finding) Generations() string {
	switch {
	case len(f.OLM) == 2:
		return "both"
	case len(f.OLM) == 1:
		return string(f.OLM[0])
	}
	return ""
}

// V1Reach is where OLM v1 takes the users of one bundle that asked for one channel (a
// ClusterExtension with that channel, the CatalogProvided policy and no version range).
type V1Reach struct {
	// Target is v1's pick for them, "" when it keeps them where they are (or refuses: Error).
	Target string `json:"target,omitempty"`
	// Top is what a fresh install of the channel gets (v1's pick with nothing installed).
	Top string `json:"top,omitempty"`
	// End is where v1's upgrades, one resolution after another, end.
	End        string `json:"end"`
	ReachesTop bool   `json:"reachesTop"`
	Hops       int    `json:"hops"`            // upgrades to End
	Error      string `json:"error,omitempty"` // operator-controller's words, when it refuses the first resolution
}

// V1Edge is an upgrade OLM v1 makes that OLM v0 does not: in a channel of one side (or both), v1's
// pick for the users of From is To, where v0 takes them elsewhere or nowhere.
type V1Edge struct {
	Package string `json:"package"`
	Channel string `json:"channel"`
	From    string `json:"from"`
	To      string `json:"to"`
	Side    string `json:"side"` // "old", "new" or "both"
}

// v1Side answers OLM v1's questions on one side for one package, each once.
type v1Side struct {
	pkg      string
	resolver *resolve.Resolver // nil when the side has no such package or it could not be indexed
	answers  map[string]resolve.Answer
}

func newV1Side(pkg string, cat *fbc.Catalog) *v1Side {
	s := &v1Side{pkg: pkg, answers: map[string]resolve.Answer{}}
	if cat != nil {
		if r, err := resolve.New(cat); err == nil && r.HasPackage(pkg) {
			s.resolver = r
		}
	}
	return s
}

func (s *v1Side) resolve(q resolve.Query) resolve.Answer {
	if s.resolver == nil {
		return resolve.Answer{Error: fmt.Sprintf("no package %q", s.pkg)}
	}
	key := strings.Join(q.Channels, "\x00") + "\x01"
	if q.Installed != nil {
		key += q.Installed.Name + "\x00" + q.Installed.Version
	}
	if a, ok := s.answers[key]; ok {
		return a
	}
	q.Package = s.pkg
	a := s.resolver.Resolve(q)
	s.answers[key] = a
	return a
}

// fresh is what a ClusterExtension with nothing installed gets ("" channel: none asked).
func (s *v1Side) fresh(channel string) resolve.Answer {
	return s.resolve(resolve.Query{Channels: channelList(channel)})
}

// upgrade is v1's pick for the users of an installed bundle.
func (s *v1Side) upgrade(channel string, inst resolve.Installed) resolve.Answer {
	return s.resolve(resolve.Query{Channels: channelList(channel), Installed: &inst})
}

func (s *v1Side) version(name string) (string, bool) {
	if s.resolver == nil {
		return "", false
	}
	return s.resolver.BundleVersion(s.pkg, name)
}

func channelList(c string) []string {
	if c == "" {
		return nil
	}
	return []string{c}
}

// moves says where v1 takes the users of inst: its pick when that is another bundle.
func moves(a resolve.Answer, inst string) string {
	if a.Error != "" || a.Bundle == inst {
		return ""
	}
	return a.Bundle
}

// reach walks v1's upgrades in a channel from an installed bundle, one resolution after another.
func (s *v1Side) reach(channel string, inst resolve.Installed) V1Reach {
	r := V1Reach{End: inst.Name}
	if top := s.fresh(channel); top.Error == "" {
		r.Top = top.Bundle
	}
	first := s.upgrade(channel, inst)
	r.Error = first.Error
	r.Target = moves(first, inst.Name)
	seen := map[string]bool{inst.Name: true}
	for cur, next := inst, r.Target; next != "" && !seen[next]; {
		v, ok := s.version(next)
		if !ok {
			break
		}
		seen[next] = true
		r.End, r.Hops = next, r.Hops+1
		cur = resolve.Installed{Name: next, Version: v}
		next = moves(s.upgrade(channel, cur), cur.Name)
	}
	r.ReachesTop = r.Top != "" && r.End == r.Top
	return r
}

// v1Package is OLM v1's view of one changed package on both sides.
type v1Package struct {
	pkg      string
	old, new *v1Side
	// picksMoved: a change outside the channels' graphs can move v1's picks (a deprecation, a
	// dependency property, a version); without one, a channel whose graph is the same on both
	// sides gets the same answers, and is not asked.
	picksMoved bool
	op, np     *pkgIndex
}

// v1Moving are the catalog findings that can change v1's answers in a channel whose entries,
// edges and versions did not change.
var v1Moving = map[Kind]bool{DeprecationAdded: true, DeprecationRemoved: true, DeprecationChanged: true,
	DependencyAdded: true, DependencyRemoved: true, RequiredAPIAdded: true, RequiredAPIRemoved: true,
	BundleVersionChanged: true, PropertyAdded: true, PropertyRemoved: true, PropertyChanged: true}

func newV1Package(pkg string, oldCat, newCat *fbc.Catalog, op, np *pkgIndex, findings []Finding) *v1Package {
	v := &v1Package{pkg: pkg, old: newV1Side(pkg, oldCat), new: newV1Side(pkg, newCat), op: op, np: np}
	for _, f := range findings {
		v.picksMoved = v.picksMoved || v1Moving[f.Kind]
	}
	return v
}

// settled says v1's answers in the channel are the same on both sides (see picksMoved).
func (v *v1Package) settled(channel string) bool {
	if v.picksMoved {
		return false
	}
	oc, nc := v.op.modelChannel(channel), v.np.modelChannel(channel)
	return oc != nil && nc != nil && sameGraph(oc, nc)
}

// v1Catalogs cuts each side's catalog down to the packages asked for, in one pass each, so that
// fbc/resolve indexes only what changed.
func v1Catalogs(cat *fbc.Catalog, pkgs map[string]bool) map[string]*fbc.Catalog {
	out := map[string]*fbc.Catalog{}
	if cat == nil {
		return out
	}
	sub := func(pkg string) *fbc.Catalog {
		if !pkgs[pkg] {
			return nil
		}
		c := out[pkg]
		if c == nil {
			c = &fbc.Catalog{}
			out[pkg] = c
		}
		return c
	}
	for _, p := range cat.Packages {
		if c := sub(p.Name); c != nil {
			c.Packages = append(c.Packages, p)
		}
	}
	for _, ch := range cat.Channels {
		if c := sub(ch.Package); c != nil {
			c.Channels = append(c.Channels, ch)
		}
	}
	for _, b := range cat.Bundles {
		if c := sub(b.Package); c != nil {
			c.Bundles = append(c.Bundles, b)
		}
	}
	for _, d := range cat.Deprecations {
		if c := sub(d.Package); c != nil {
			c.Deprecations = append(c.Deprecations, d)
		}
	}
	return out
}

// v1Findings are the changes to what OLM v1 picks in one package: for a fresh install (no channel
// asked, then each channel both sides have) and for the users of each bundle of the old side (no
// channel asked, then each channel of the old side that holds it and the new side still has), said
// for a channel only where it changes otherwise than with no channel asked.
func (v *v1Package) findings(op, np *pkgIndex) []Finding {
	var out []Finding
	anyFresh := freshChange{old: v.old.fresh(""), new: v.new.fresh("")}
	if f, ok := anyFresh.finding(v.pkg, ""); ok {
		out = append(out, f)
	}
	for _, ch := range sortedChannelNames(op) {
		if np.channels[ch] == nil {
			continue
		}
		if v.settled(ch) {
			continue
		}
		c := freshChange{old: v.old.fresh(ch), new: v.new.fresh(ch)}
		if c.same(anyFresh) {
			continue
		}
		if f, ok := c.finding(v.pkg, ch); ok {
			out = append(out, f)
		}
	}
	for _, name := range sortedBundleNames(op) {
		version, ok := v.old.version(name)
		if !ok {
			continue // v1 cannot install a bundle whose version it cannot read
		}
		inst := resolve.Installed{Name: name, Version: version}
		any := upgradeChange{inst: inst, old: v.old.upgrade("", inst), new: v.new.upgrade("", inst)}
		if f, ok := any.finding(v.pkg, ""); ok {
			out = append(out, f)
		}
		for _, ch := range channelsHolding(op, name) {
			if np.channels[ch] == nil || v.settled(ch) {
				continue
			}
			c := upgradeChange{inst: inst, old: v.old.upgrade(ch, inst), new: v.new.upgrade(ch, inst)}
			if c.same(any) {
				continue
			}
			if f, ok := c.finding(v.pkg, ch); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// edges are v1's picks in a channel of one side that are not v0's (model.UpgradeGraph.Next), for
// every entry of the channel (each at its own version).
func (s *v1Side) edges(c *model.Channel) map[[2]string]bool {
	out := map[[2]string]bool{}
	if c == nil || s.resolver == nil {
		return out
	}
	g := model.NewUpgradeGraph(c)
	for _, e := range c.SortedEntries() {
		version, ok := s.version(e.Name)
		if !ok {
			continue
		}
		to := moves(s.upgrade(c.Name, resolve.Installed{Name: e.Name, Version: version}), e.Name)
		if to != "" && to != g.Next(e.Name, model.EntryVersion(e)) {
			out[[2]string{e.Name, to}] = true
		}
	}
	return out
}

// v1Edges lists the edges of one channel only v1 takes, on either side; none for a settled channel.
func (v *v1Package) v1Edges(oc, nc *model.Channel, channel string) []V1Edge {
	if v.settled(channel) {
		return nil
	}
	oldEdges, newEdges := v.old.edges(oc), v.new.edges(nc)
	var out []V1Edge
	add := func(e [2]string, side string) {
		out = append(out, V1Edge{Package: v.pkg, Channel: channel, From: e[0], To: e[1], Side: side})
	}
	for _, e := range sortedPairs(oldEdges) {
		if newEdges[e] {
			add(e, "both")
		} else {
			add(e, "old")
		}
	}
	for _, e := range sortedPairs(newEdges) {
		if !oldEdges[e] {
			add(e, "new")
		}
	}
	return out
}

// Kinds of the changes to what OLM v1 picks.
const (
	V1InstallChanged    Kind = "v1-install-changed"
	V1InstallPrerelease Kind = "v1-install-prerelease"
	V1InstallLowered    Kind = "v1-install-lowered"
	V1InstallLost       Kind = "v1-install-lost"
	V1UpgradeChanged    Kind = "v1-upgrade-changed"
	V1UpgradePrerelease Kind = "v1-upgrade-prerelease"
	V1UpgradeLowered    Kind = "v1-upgrade-lowered"
	V1UpgradeLost       Kind = "v1-upgrade-lost"
)

// freshChange is what a fresh install gets, before and after.
type freshChange struct{ old, new resolve.Answer }

func (c freshChange) same(o freshChange) bool {
	return c.old.Bundle == o.old.Bundle && c.new.Bundle == o.new.Bundle &&
		(c.old.Error == "") == (o.old.Error == "") && (c.new.Error == "") == (o.new.Error == "")
}

func (c freshChange) finding(pkg, channel string) (Finding, bool) {
	if c.old.Bundle == c.new.Bundle || c.new.Bundle == "" && c.old.Bundle == "" {
		return Finding{}, false
	}
	where := "a fresh install with no channel"
	if channel != "" {
		where = fmt.Sprintf("a fresh install of channel %q", channel)
	}
	var kind Kind
	var msg string
	switch {
	case c.new.Bundle == "":
		kind = V1InstallLost
		msg = fmt.Sprintf("OLM v1 no longer installs %s for %s: %s", pickLabel(c.old), where, c.new.Error)
	case isPrerelease(c.new.BundleVersion) && !isPrerelease(c.old.BundleVersion):
		kind = V1InstallPrerelease
		msg = fmt.Sprintf("OLM v1 now installs the prerelease %s for %s (before: %s)", pickLabel(c.new), where, pickLabel(c.old))
	case c.old.Bundle != "" && versionLess(c.new.BundleVersion, c.old.BundleVersion):
		kind = V1InstallLowered
		msg = fmt.Sprintf("OLM v1 now installs %s for %s, a lower version than before (%s)", pickLabel(c.new), where, pickLabel(c.old))
	default:
		kind = V1InstallChanged
		msg = fmt.Sprintf("OLM v1 now installs %s for %s (before: %s)", pickLabel(c.new), where, pickLabel(c.old))
	}
	f := newFinding(kind, pkg, channel, "")
	f.OLM = ForOLMv1
	f.Old, f.New, f.Message = answerValue(c.old), answerValue(c.new), msg
	return f, true
}

// upgradeChange is where v1 takes the users of an installed bundle, before and after.
type upgradeChange struct {
	inst     resolve.Installed
	old, new resolve.Answer
}

func (c upgradeChange) same(o upgradeChange) bool {
	return moves(c.old, c.inst.Name) == moves(o.old, o.inst.Name) && moves(c.new, c.inst.Name) == moves(o.new, o.inst.Name)
}

func (c upgradeChange) finding(pkg, channel string) (Finding, bool) {
	before, after := moves(c.old, c.inst.Name), moves(c.new, c.inst.Name)
	if before == after {
		return Finding{}, false
	}
	users := fmt.Sprintf("users of %q", c.inst.Name)
	if channel != "" {
		users += fmt.Sprintf(" in channel %q", channel)
	}
	var kind Kind
	var msg string
	switch {
	case after == "":
		kind = V1UpgradeLost
		why := "it keeps them where they are"
		if c.new.Error != "" {
			why = c.new.Error
		}
		msg = fmt.Sprintf("OLM v1 no longer upgrades %s (it took them to %s): %s", users, pickLabel(c.old), why)
	case isPrerelease(c.new.BundleVersion) && !isPrerelease(c.inst.Version) && (before == "" || !isPrerelease(c.old.BundleVersion)):
		kind = V1UpgradePrerelease
		msg = fmt.Sprintf("OLM v1 now upgrades %s to the prerelease %s (before: %s)", users, pickLabel(c.new), upgradeLabel(before, c.old))
	case before != "" && versionLess(c.new.BundleVersion, c.old.BundleVersion):
		kind = V1UpgradeLowered
		msg = fmt.Sprintf("OLM v1 now upgrades %s to %s, a lower version than before (%s)", users, pickLabel(c.new), pickLabel(c.old))
	default:
		kind = V1UpgradeChanged
		msg = fmt.Sprintf("OLM v1 now upgrades %s to %s (before: %s)", users, pickLabel(c.new), upgradeLabel(before, c.old))
	}
	f := newFinding(kind, pkg, channel, c.inst.Name)
	f.OLM = ForOLMv1
	f.Old, f.New, f.Message = orStays(before), orStays(after), msg
	return f, true
}

func orStays(target string) string {
	if target == "" {
		return "no upgrade"
	}
	return target
}

func upgradeLabel(target string, a resolve.Answer) string {
	if target == "" {
		return "no upgrade"
	}
	return pickLabel(a)
}

func pickLabel(a resolve.Answer) string {
	if a.Bundle == "" {
		return "nothing"
	}
	if a.BundleVersion != "" && !strings.Contains(a.Bundle, a.BundleVersion) {
		return fmt.Sprintf("%s (%s)", a.Bundle, a.BundleVersion)
	}
	return a.Bundle
}

func answerValue(a resolve.Answer) string {
	if a.Bundle == "" {
		return "refused: " + a.Error
	}
	return a.Bundle
}

func isPrerelease(v string) bool {
	sv, err := semver.Parse(v)
	return err == nil && len(sv.Pre) > 0
}

func versionLess(a, b string) bool {
	va, errA := semver.Parse(a)
	vb, errB := semver.Parse(b)
	return errA == nil && errB == nil && va.LT(vb)
}

func sortedChannelNames(p *pkgIndex) []string {
	if p == nil {
		return nil
	}
	return unionKeys(p.channels, map[string]*fbc.Channel{})
}

func sortedBundleNames(p *pkgIndex) []string {
	if p == nil {
		return nil
	}
	return unionKeys(p.bundles, map[string]*fbc.Bundle{})
}

// channelsHolding are the channels of the side with an entry of that name, sorted.
func channelsHolding(p *pkgIndex, name string) []string {
	var out []string
	for _, ch := range sortedChannelNames(p) {
		for _, e := range p.channels[ch].Entries {
			if e.Name == name {
				out = append(out, ch)
				break
			}
		}
	}
	return out
}

func sortedPairs(set map[[2]string]bool) [][2]string {
	out := make([][2]string, 0, len(set))
	for e := range set {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}
