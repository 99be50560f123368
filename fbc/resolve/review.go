package resolve

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	bsemver "github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// Rules of the findings ReviewV1 adds (model.Issue.Rule), each holding for OLM v1 only.
const (
	// RuleV1Prerelease: a prerelease (a nightly, a release candidate) that OLM v1 installs, or
	// upgrades users of a release to, when the ClusterExtension sets no version range.
	RuleV1Prerelease = "v1-installs-prerelease"
	// RuleV1LeftBehind: users OLM v1 leaves short of a newer bundle, or short of the bundles the
	// catalog upgrades them to, because every successor has a lower version (or there is none).
	RuleV1LeftBehind = "v1-left-behind"
	// RuleV1DuplicateVersion: bundles OLM v1 takes as one version although opm's check accepts
	// them (build metadata that is not a release is ignored): OLM v1 chooses by file order.
	RuleV1DuplicateVersion = "v1-duplicate-version"
)

// ReviewV1 is a model.Options.Review that speaks for OLM v1 (operator-controller at df2c201d):
// every answer comes from Resolver.Resolve, asked what a ClusterExtension with no version range
// gets: a fresh install with no channel and with each channel, and an upgrade from every entry of
// every channel with that channel asked. It adds RuleV1Prerelease, RuleV1LeftBehind and
// RuleV1DuplicateVersion findings, and, when OLM v0 is asked too, says what OLM v1 does beside
// each OLM v0 graph finding (unreachable-from-head, skipped-on-replaces-chain, upgrade-cycle,
// downgrade-offered, requirement-not-in-catalog) whose wording is OLM v0's. With OLM v1 not
// asked it returns issues as they are.
func ReviewV1(c *fbc.Catalog, issues model.Issues, olm model.Generations) model.Issues {
	if !olm.Includes(model.OLMv1) {
		return issues
	}
	r, err := New(c)
	if err != nil {
		return issues // a bundle that does not decode is reported by validation itself
	}
	rev := &reviewer{r: r, withV0: olm.Includes(model.OLMv0), found: map[findingKey]*model.Issue{}}
	for _, i := range issues {
		rev.found[findingKey{i.Rule, i.Package, i.Channel, i.Bundle}] = i
	}
	names := make([]string, 0, len(r.packages))
	for name, p := range r.packages {
		if len(p.bundles) > 0 && len(p.channels) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var added model.Issues
	for _, name := range names {
		pr := rev.pkg(name)
		added = append(added, pr.prereleases()...)
		added = append(added, pr.leftBehind()...)
		added = append(added, pr.duplicateVersions()...)
	}
	for _, a := range added {
		rev.found[findingKey{a.Rule, a.Package, a.Channel, a.Bundle}] = a
	}
	for _, i := range issues {
		rev.amend(i)
	}
	return append(issues, added...)
}

type findingKey struct{ rule, pkg, channel, bundle string }

type reviewer struct {
	r      *Resolver
	withV0 bool
	found  map[findingKey]*model.Issue
	pkgs   map[string]*pkgReview
}

// pkgReview holds the answers asked about one package, each asked once.
type pkgReview struct {
	rev      *reviewer
	name     string
	view     *pkgView
	byName   map[string]*fbc.Bundle // the first bundle of each name
	answers  map[string]Answer      // by query key
	chNames  []string               // channel names in catalog order, each once
	channels map[string]*fbc.Channel
}

func (rev *reviewer) pkg(name string) *pkgReview {
	if pr := rev.pkgs[name]; pr != nil {
		return pr
	}
	p := rev.r.packages[name]
	pr := &pkgReview{rev: rev, name: name, view: p, byName: map[string]*fbc.Bundle{}, answers: map[string]Answer{}, channels: map[string]*fbc.Channel{}}
	for _, b := range p.bundles {
		if pr.byName[b.Name] == nil {
			pr.byName[b.Name] = b
		}
	}
	for _, ch := range p.channels {
		if pr.channels[ch.Name] == nil {
			pr.channels[ch.Name] = ch
			pr.chNames = append(pr.chNames, ch.Name)
		}
	}
	if rev.pkgs == nil {
		rev.pkgs = map[string]*pkgReview{}
	}
	rev.pkgs[name] = pr
	return pr
}

// ask is what OLM v1 picks for a ClusterExtension of the package asking channel ch ("" none) and
// no version range, with the named bundle installed ("" nothing).
func (pr *pkgReview) ask(ch, installed string) Answer {
	key := ch + "\x00" + installed
	if a, ok := pr.answers[key]; ok {
		return a
	}
	q := Query{Package: pr.name}
	if ch != "" {
		q.Channels = []string{ch}
	}
	if installed != "" {
		v, ok := pr.legacyVersion(installed)
		if !ok {
			a := Answer{Error: "version unreadable"}
			pr.answers[key] = a
			return a
		}
		q.Installed = &Installed{Name: installed, Version: v}
	}
	a := pr.rev.r.Resolve(q)
	pr.answers[key] = a
	return a
}

func (pr *pkgReview) version(name string) (versionRelease, bool) {
	b := pr.byName[name]
	if b == nil {
		return versionRelease{}, false
	}
	vr, err := pr.rev.r.version(b)
	return vr, err == nil
}

func (pr *pkgReview) legacyVersion(name string) (string, bool) {
	vr, ok := pr.version(name)
	if !ok {
		return "", false
	}
	return vr.legacyString(), true
}

func (pr *pkgReview) prerelease(name string) bool {
	vr, ok := pr.version(name)
	return ok && len(vr.Version.Pre) > 0
}

func (pr *pkgReview) deprecated(name string) bool {
	if d := pr.view.deprecation; d != nil {
		for _, e := range d.Entries {
			if e.Reference.Schema == fbc.SchemaBundle && e.Reference.Name == name {
				return true
			}
		}
	}
	return false
}

// entries are the channel's entries whose bundle the package has with a readable version.
func (pr *pkgReview) entries(ch string) []*fbc.ChannelEntry {
	var out []*fbc.ChannelEntry
	c := pr.channels[ch]
	for i := range c.Entries {
		if _, ok := pr.version(c.Entries[i].Name); ok {
			out = append(out, &c.Entries[i])
		}
	}
	return out
}

func (pr *pkgReview) described(name string) string {
	v, _ := pr.legacyVersion(name)
	return fmt.Sprintf("%q (%s)", name, v)
}

func (pr *pkgReview) issue(sev model.Severity, rule string, loc fbc.Location, ch, bundle, hint, format string, args ...any) *model.Issue {
	return (&model.Issue{Severity: sev, Rule: rule, Loc: loc, File: loc.File, Line: loc.Line,
		Package: pr.name, Channel: ch, Bundle: bundle, Message: fmt.Sprintf(format, args...), Hint: hint}).ForOLM(model.OLMv1)
}

// asked words what a ClusterExtension asks: "no channel" or `channel "C"`.
func asked(ch string) string {
	if ch == "" {
		return "no channel"
	}
	return fmt.Sprintf("channel %q", ch)
}

// prereleases finds, for a ClusterExtension asking no channel and each channel (no version range),
// the prereleases OLM v1 installs fresh or upgrades users of a release to. A warning when OLM v0
// picks something else there (the prerelease outranks what the catalog meant: 1.31.0-nightly is
// above the stable head 1.30.3), info when OLM v0 picks the same bundle (it is the channel head,
// as the "1.51.0-1" downstream builds of some catalogs are): a version range naming no prerelease
// then excludes it, which users of such a catalog should know.
func (pr *pkgReview) prereleases() model.Issues {
	anyPrerelease := false
	for _, b := range pr.view.bundles {
		anyPrerelease = anyPrerelease || pr.prerelease(b.Name)
	}
	if !anyPrerelease {
		return nil // most packages: nothing to ask
	}
	var out model.Issues
	for _, ch := range append([]string{""}, pr.chNames...) {
		type group struct {
			fresh     bool
			freshV0   string
			users     []string
			v0Differs []string // users OLM v0 upgrades elsewhere
		}
		groups := map[string]*group{}
		var order []string
		note := func(pick string) *group {
			g := groups[pick]
			if g == nil {
				g = &group{}
				groups[pick] = g
				order = append(order, pick)
			}
			return g
		}
		var subscription []string // what OLM v0 is asked: one channel, or none (the default first)
		if ch != "" {
			subscription = []string{ch}
		}
		if a := pr.ask(ch, ""); a.Error == "" && pr.prerelease(a.Bundle) {
			g := note(a.Bundle)
			g.fresh = true
			if v0 := pr.rev.r.ResolveV0(Query{Package: pr.name, Channels: subscription}); v0.Error == "" {
				g.freshV0 = v0.Bundle
			}
		}
		var installable []string // the bundles a user of this ClusterExtension may have installed
		if ch == "" {
			for _, b := range pr.view.bundles {
				installable = append(installable, b.Name)
			}
		} else {
			for _, e := range pr.entries(ch) {
				installable = append(installable, e.Name)
			}
		}
		seen := map[string]bool{}
		for _, name := range installable {
			if seen[name] {
				continue
			}
			seen[name] = true
			if _, ok := pr.version(name); !ok || pr.prerelease(name) {
				continue
			}
			a := pr.ask(ch, name)
			if a.Error != "" || a.Bundle == name || !pr.prerelease(a.Bundle) {
				continue
			}
			g := note(a.Bundle)
			g.users = append(g.users, name)
			if ch != "" { // a Subscription names a channel: OLM v0's answer with none is its default channel's
				v0 := pr.rev.r.ResolveV0(Query{Package: pr.name, Channels: subscription, Installed: &Installed{Name: name, Version: mustLegacy(pr, name)}})
				if v0.Error == "" && v0.Bundle != a.Bundle {
					g.v0Differs = append(g.v0Differs, name)
				}
			}
		}
		onlyPrereleases := ch != ""
		if ch != "" {
			for _, e := range pr.entries(ch) {
				onlyPrereleases = onlyPrereleases && pr.prerelease(e.Name)
			}
		}
		for _, pick := range order {
			g := groups[pick]
			if onlyPrereleases && pick == channelHead(pr.channels[ch]) {
				continue // a channel of prereleases (a nightly channel): its head is what its users ask for
			}
			var parts []string
			if g.fresh {
				parts = append(parts, "installs prerelease "+pr.described(pick)+" for a new ClusterExtension")
			}
			if len(g.users) > 0 {
				what := "prerelease " + pr.described(pick)
				if g.fresh {
					what = "it"
				}
				parts = append(parts, fmt.Sprintf("upgrades the users of %s to %s", listed(g.users), what))
			}
			msg := fmt.Sprintf("OLM v1 %s when the ClusterExtension asks %s and no version range: it picks the highest version, and semver ranks a prerelease above every lower release",
				strings.Join(parts, " and "), asked(ch))
			freshDiffers := g.fresh && g.freshV0 != "" && g.freshV0 != pick
			sev := model.Info
			if freshDiffers || len(g.v0Differs) > 0 {
				sev = model.Warning
			}
			switch {
			case !pr.rev.withV0:
			case freshDiffers:
				msg += fmt.Sprintf("; OLM v0 installs %s, the head of %s", pr.described(g.freshV0), defaultOr(ch))
			case len(g.v0Differs) > 0:
				msg += fmt.Sprintf("; OLM v0 does not upgrade the users of %s to it", listed(g.v0Differs))
			case sev == model.Info && g.fresh:
				msg += "; OLM v0 installs it too (the head of " + defaultOr(ch) + ")"
			case sev == model.Info && ch != "":
				msg += "; OLM v0 upgrades them to it too"
			}
			if sev == model.Info {
				msg += "; a ClusterExtension whose version range names no prerelease never gets it"
			}
			out = append(out, pr.issue(sev, RuleV1Prerelease, pr.byName[pick].Loc, ch, pick,
				"publish prereleases in a channel of their own, with versions no release channel's bundles are below, or in another package; users can keep them out with a version range naming no prerelease (e.g. \">=1.0.0\")",
				"%s", msg))
		}
	}
	return out
}

func defaultOr(ch string) string {
	if ch == "" {
		return "the default channel"
	}
	return fmt.Sprintf("channel %q", ch)
}

// v1End follows OLM v1's picks from the installed bundle in the channel until it stays: the bundles
// its users go through (the installed one first) and whether the walk ended on a bundle OLM v1
// keeps them on (false: a refusal or a loop).
func (pr *pkgReview) v1End(ch, installed string) ([]string, bool) {
	path := []string{installed}
	seen := map[string]bool{installed: true}
	cur := installed
	for {
		a := pr.ask(ch, cur)
		if a.Error != "" {
			return path, false
		}
		if a.Bundle == cur {
			return path, true
		}
		if seen[a.Bundle] {
			return path, false
		}
		seen[a.Bundle] = true
		path = append(path, a.Bundle)
		cur = a.Bundle
	}
}

// leftBehind finds, channel by channel, the entries whose users OLM v1 (that channel asked, no
// version range) brings to a bundle other than the channel head, where it then keeps them although
// the channel has a higher version (a release, for users of a release), or although entries of the
// channel replace, skip or cover it: OLM v1 never picks a version below the installed one, so a
// successor with a lower version is no way on. Users brought to the head are where the catalog
// means them to be (a higher version below the head, as aws-neuron's v0.1.2 under v0.0.9, is what
// OLM v1 installs fresh, and v1-left-behind names its users). One finding per entry, as
// unreachable-from-head.
func (pr *pkgReview) leftBehind() model.Issues {
	var out model.Issues
	for _, ch := range pr.chNames {
		entries := pr.entries(ch)
		if !pr.mayLeaveBehind(entries) {
			continue
		}
		head := channelHead(pr.channels[ch])
		for _, e := range entries {
			path, stays := pr.v1End(ch, e.Name)
			if !stays {
				continue
			}
			end := path[len(path)-1]
			if end == head {
				continue // where the catalog means its users to be, whatever versions lie below it
			}
			endV, _ := pr.version(end)
			var higher string
			var higherV versionRelease
			for _, o := range entries {
				ov, _ := pr.version(o.Name)
				if ov.compare(endV) <= 0 || pr.deprecated(o.Name) || (len(endV.Version.Pre) == 0 && len(ov.Version.Pre) > 0) {
					continue
				}
				if higher == "" || ov.compare(higherV) > 0 {
					higher, higherV = o.Name, ov
				}
			}
			var lower []string
			succ := pr.ask(ch, end).Successors
			for _, s := range succ {
				if sv, ok := pr.version(s); ok && sv.compare(endV) < 0 {
					lower = append(lower, s)
				}
			}
			if higher == "" && len(lower) == 0 {
				continue
			}
			var msg string
			if len(path) == 1 {
				msg = fmt.Sprintf("OLM v1 leaves the users of %s where they are", pr.described(e.Name))
			} else {
				msg = fmt.Sprintf("OLM v1 upgrades the users of %q through %s and no further", e.Name, strings.Join(path[1:], " -> "))
			}
			var why []string
			if len(lower) > 0 {
				why = append(why, fmt.Sprintf("the entries that replace, skip or cover %s have lower versions (%s), and OLM v1 picks the highest version among the successors, the installed bundle included",
					pr.described(end), listedVersions(pr, lower)))
			}
			if higher != "" {
				why = append(why, fmt.Sprintf("no successor of %q has a higher version, though %s is in the channel", end, pr.described(higher)))
			}
			msg += ": " + strings.Join(why, "; ")
			if pr.rev.withV0 {
				if pr.rev.found[findingKey{"unreachable-from-head", pr.name, ch, e.Name}] != nil {
					msg += "; OLM v0 does not bring them to the channel head either (unreachable-from-head)"
				} else if v0 := pr.v0End(ch, e.Name); v0 != e.Name && v0 != "" {
					msg += fmt.Sprintf("; OLM v0 brings them to %s", pr.described(v0))
				}
			}
			hint := fmt.Sprintf("give the bundles above %q versions higher than %q's, or let an entry with a higher version replace, skip or cover %q", end, end, end)
			if len(lower) == 0 {
				hint = fmt.Sprintf("let %q (or a bundle of a version between) replace, skip or cover %q with a skipRange", higher, end)
			}
			out = append(out, pr.issue(model.Warning, RuleV1LeftBehind, pr.channels[ch].Loc, ch, e.Name, hint, "%s", msg))
		}
	}
	return out
}

// v0End follows OLM v0's picks for a Subscription to the channel from the installed bundle until it
// stays: the bundle its users end on ("" on an error or a loop).
func (pr *pkgReview) v0End(ch, installed string) string {
	seen := map[string]bool{installed: true}
	cur := installed
	for {
		a := pr.rev.r.ResolveV0(Query{Package: pr.name, Channels: []string{ch}, Installed: &Installed{Name: cur, Version: mustLegacy(pr, cur)}})
		switch {
		case a.Error != "":
			return ""
		case a.Bundle == cur:
			return cur
		case seen[a.Bundle]:
			return ""
		}
		seen[a.Bundle] = true
		cur = a.Bundle
	}
}

// mayLeaveBehind is a quick look at a channel before asking a query per entry: it is false when no
// finding is possible, because no bundle of the package is deprecated, no entry replaces, skips or
// covers a bundle of a higher version than its own, and every entry below the highest version has
// an entry of a higher version that replaces, skips or covers it. Then OLM v1's pick from every
// entry is of a higher version until the highest (or a refusal), and nobody is left behind.
// Most channels of a well-kept catalog pass; the queries are asked only for the others.
func (pr *pkgReview) mayLeaveBehind(entries []*fbc.ChannelEntry) bool {
	if d := pr.view.deprecation; d != nil && len(d.Entries) > 0 {
		return true
	}
	var top versionRelease
	for i, e := range entries {
		if v, _ := pr.version(e.Name); i == 0 || v.compare(top) > 0 {
			top = v
		}
	}
	covered := map[string]bool{} // entries with a successor of a higher version
	mark := func(from *fbc.ChannelEntry, to string) bool {
		fv, _ := pr.version(from.Name)
		tv, ok := pr.version(to)
		if !ok {
			return true
		}
		switch c := fv.compare(tv); {
		case c > 0:
			covered[to] = true
		case c < 0:
			return false // a successor of a lower version
		}
		return true
	}
	for _, e := range entries {
		if e.Replaces != "" && !mark(e, e.Replaces) {
			return true
		}
		for _, s := range e.Skips {
			if !mark(e, s) {
				return true
			}
		}
		if e.SkipRange == "" {
			continue
		}
		rng, seen := pr.rev.r.skipRanges[e.SkipRange]
		if !seen {
			rng, _ = bsemver.ParseRange(e.SkipRange)
			pr.rev.r.skipRanges[e.SkipRange] = rng
		}
		if rng == nil {
			continue
		}
		for _, o := range entries {
			if ov, _ := pr.version(o.Name); o != e && rng(ov.Version) && !mark(e, o.Name) {
				return true
			}
		}
	}
	for _, e := range entries {
		if v, _ := pr.version(e.Name); v.compare(top) < 0 && !covered[e.Name] {
			return true
		}
	}
	return false
}

// channelHead is the one entry no other entry of the channel replaces or skips ("" when there is
// not exactly one): the bundle OLM v0 brings its users to, and where the catalog means them to be.
func channelHead(ch *fbc.Channel) string {
	named := map[string]bool{}
	for _, e := range ch.Entries {
		named[e.Replaces] = true
		for _, s := range e.Skips {
			named[s] = true
		}
	}
	head := ""
	for _, e := range ch.Entries {
		if !named[e.Name] {
			if head != "" {
				return ""
			}
			head = e.Name
		}
	}
	return head
}

func mustLegacy(pr *pkgReview, name string) string {
	v, _ := pr.legacyVersion(name)
	return v
}

// duplicateVersions finds the bundles of the package that OLM v1 takes as one version (the same
// version and release; build metadata that is not a release is ignored) while opm's
// duplicate-version check, which compares the version with its build metadata, tells them apart.
// OLM v1 then picks between them by their order in the catalog, and each is a successor of the
// other: a warning when OLM v1 moves users from one to another, info otherwise.
func (pr *pkgReview) duplicateVersions() model.Issues {
	groups := map[string][]*fbc.Bundle{}
	var order []string
	seen := map[string]bool{}
	for _, b := range pr.view.bundles {
		vr, ok := pr.version(b.Name)
		if !ok || seen[b.Name] {
			continue
		}
		seen[b.Name] = true
		key := vr.legacyString() // equal exactly where versionRelease.compare is 0
		if len(vr.Release) == 0 {
			v := vr.Version
			v.Build = nil // build metadata that is not a release takes no part in the order
			key = v.String()
		}
		if groups[key] == nil {
			order = append(order, key)
		}
		groups[key] = append(groups[key], b)
	}
	var out model.Issues
	for _, key := range order {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		texts := map[string]bool{} // opm's key: the version as written (model.bundleVersionKey)
		var names, shown []string
		for _, b := range g {
			raw := rawVersion(b)
			texts[raw] = true
			names = append(names, b.Name)
			shown = append(shown, fmt.Sprintf("%q (%s)", b.Name, raw))
		}
		if len(texts) < 2 {
			continue // opm's duplicate-version already says it, as an error
		}
		var moved []string
		for _, b := range g {
			if a := pr.ask("", b.Name); a.Error == "" && a.Bundle != b.Name && contains(names, a.Bundle) {
				moved = append(moved, fmt.Sprintf("the users of %q to %q", b.Name, a.Bundle))
			}
		}
		msg := fmt.Sprintf("OLM v1 takes %s as one version (it ignores build metadata that is not a release number): it picks between them by their order in the catalog, %q first, and counts each as a successor of the others",
			strings.Join(shown, ", "), g[0].Name)
		sev := model.Info
		if len(moved) > 0 {
			sev = model.Warning
			msg += "; it moves " + strings.Join(moved, ", ") + ", a bundle of the same version"
		}
		out = append(out, pr.issue(sev, RuleV1DuplicateVersion, g[0].Loc, "", g[0].Name,
			"give each bundle a version of its own (a higher patch, or a release number as build metadata, e.g. 1.0.0+2)", "%s", msg))
	}
	return out
}

// rawVersion is the version the bundle's first olm.package property writes.
func rawVersion(b *fbc.Bundle) string {
	for _, p := range b.Properties {
		if p.Type == "olm.package" {
			var pkg Package
			if json.Unmarshal(p.Value, &pkg) == nil {
				return pkg.Version
			}
			return ""
		}
	}
	return ""
}

// listed quotes names, at most five, then how many more.
func listed(names []string) string {
	const shown = 5
	q := make([]string, 0, min(len(names), shown))
	for i, n := range names {
		if i == shown {
			break
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	out := strings.Join(q, ", ")
	if len(names) > shown {
		out += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return out
}

func listedVersions(pr *pkgReview, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = pr.described(n)
	}
	return strings.Join(out, ", ")
}

// amendStranded says, after opm's stranded-bundles error (opm serve refuses the catalog, so OLM v0
// gets nothing from it), where OLM v1, which catalogd serves it to all the same, takes the users of
// each stranded bundle when their ClusterExtension asks this channel.
func (rev *reviewer) amendStranded(i *model.Issue) {
	const marker = "stranded bundles: "
	at := strings.LastIndex(i.Message, marker)
	pr := rev.pkg(i.Package)
	if at < 0 || pr.channels[i.Channel] == nil {
		return
	}
	var said []string
	for _, name := range strings.Split(i.Message[at+len(marker):], ", ") {
		if pr.byName[name] == nil {
			continue
		}
		path, stays := pr.v1End(i.Channel, name)
		switch end := path[len(path)-1]; {
		case !stays:
		case end == name:
			said = append(said, fmt.Sprintf("keeps the users of %q where they are", name))
		default:
			said = append(said, fmt.Sprintf("upgrades the users of %q to %s", name, pr.described(end)))
		}
	}
	if len(said) > 0 {
		i.Message += "; OLM v1, which catalogd serves the catalog to all the same, " + strings.Join(said, ", ")
	}
}

// amend adds to an OLM v0 finding what OLM v1 does there (when both generations are asked), and
// to an invalid skipRange what OLM v1 does with it.
func (rev *reviewer) amend(i *model.Issue) {
	if i.Rule == "skiprange-invalid" {
		i.Message += "; OLM v1's catalogd serves the catalog all the same (opm serve refuses it), and operator-controller takes the range as covering no version"
		return
	}
	if rev.r.packages[i.Package] == nil {
		return
	}
	if i.Rule == "stranded-bundles" {
		rev.amendStranded(i)
		return
	}
	if !rev.withV0 {
		return
	}
	switch i.Rule {
	case "requirement-not-in-catalog":
		i.Message += "; OLM v1 never installs it, whatever the catalogs provide: it refuses every bundle that declares a dependency"
	case "skipped-on-replaces-chain":
		i.Message += "; OLM v1 does upgrade to skipped bundles: its successors of a bundle are every entry that replaces, skips or covers it"
	case "upgrade-cycle":
		i.Message += "; OLM v1 moves nobody down along it unless the installed bundle is deprecated: it picks the highest version among the successors, the installed bundle included"
	case "unreachable-from-head", "downgrade-offered":
		pr := rev.pkg(i.Package)
		if pr.channels[i.Channel] == nil || pr.byName[i.Bundle] == nil {
			return
		}
		path, stays := pr.v1End(i.Channel, i.Bundle)
		end := path[len(path)-1]
		switch {
		case !stays:
			return
		case rev.found[findingKey{RuleV1LeftBehind, i.Package, i.Channel, i.Bundle}] != nil && len(path) == 1:
			i.Message += "; OLM v1 leaves them where they are too (v1-left-behind)"
		case rev.found[findingKey{RuleV1LeftBehind, i.Package, i.Channel, i.Bundle}] != nil:
			i.Message += fmt.Sprintf("; OLM v1 upgrades them to %s and no further (v1-left-behind)", pr.described(end))
		case len(path) == 1:
			i.Message += "; OLM v1 keeps them where they are: no successor has a higher version"
		case len(path) == 2:
			i.Message += fmt.Sprintf("; OLM v1 upgrades them to %s", pr.described(end))
		default:
			i.Message += fmt.Sprintf("; OLM v1 upgrades them to %s (through %s)", pr.described(end), strings.Join(path[1:len(path)-1], " -> "))
		}
	}
}
