package diff_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/resolve"
)

// wantV1 lists the OLM v1 findings a comparison must have that ask no channel, derived from
// fbc/resolve's answers on each whole side (resolve is held to operator-controller's recorded
// answers by its conformance test): one v1-install-* finding when a fresh install's pick differs,
// one v1-upgrade-* finding for each bundle of the old side whose users v1 takes elsewhere. Each as
// "kind bundle old->new". The kind follows the documented rules (SCHEMA.md).
func wantV1(t *testing.T, oldSide, newSide *diff.Side) []string {
	t.Helper()
	oldR, err := resolve.New(oldSide.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	newR, err := resolve.New(newSide.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	for _, p := range oldSide.Catalog.Packages {
		pkgs[p.Name] = newR.HasPackage(p.Name)
	}
	var out []string
	for pkg, inBoth := range pkgs {
		if !inBoth {
			continue
		}
		o, n := oldR.Resolve(resolve.Query{Package: pkg}), newR.Resolve(resolve.Query{Package: pkg})
		if o.Bundle != n.Bundle && (o.Bundle != "" || n.Bundle != "") {
			kind := diff.V1InstallChanged
			switch {
			case n.Bundle == "":
				kind = diff.V1InstallLost
			case prerelease(n.BundleVersion) && !prerelease(o.BundleVersion):
				kind = diff.V1InstallPrerelease
			case o.Bundle != "" && lower(n.BundleVersion, o.BundleVersion):
				kind = diff.V1InstallLowered
			}
			out = append(out, pkg+" "+string(kind)+" - "+value(o)+"->"+value(n))
		}
		seen := map[string]bool{}
		for _, b := range oldSide.Catalog.Bundles {
			if b.Package != pkg || seen[b.Name] {
				continue
			}
			seen[b.Name] = true
			version, ok := oldR.BundleVersion(pkg, b.Name)
			if !ok {
				continue
			}
			inst := &resolve.Installed{Name: b.Name, Version: version}
			o := oldR.Resolve(resolve.Query{Package: pkg, Installed: inst})
			n := newR.Resolve(resolve.Query{Package: pkg, Installed: inst})
			before, after := target(o, b.Name), target(n, b.Name)
			if before == after {
				continue
			}
			kind := diff.V1UpgradeChanged
			switch {
			case after == "":
				kind = diff.V1UpgradeLost
			case prerelease(n.BundleVersion) && !prerelease(version) && (before == "" || !prerelease(o.BundleVersion)):
				kind = diff.V1UpgradePrerelease
			case before != "" && lower(n.BundleVersion, o.BundleVersion):
				kind = diff.V1UpgradeLowered
			}
			out = append(out, pkg+" "+string(kind)+" "+b.Name+" "+orNoUpgrade(before)+"->"+orNoUpgrade(after))
		}
	}
	sort.Strings(out)
	return out
}

// gotV1 lists the report's OLM v1 findings that ask no channel, as wantV1 does.
func gotV1(r *diff.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Generations() != "v1" || f.Channel != "" || !strings.HasPrefix(string(f.Kind), "v1-") {
			continue
		}
		b := f.Bundle
		if b == "" {
			b = "-"
		}
		out = append(out, f.Package+" "+string(f.Kind)+" "+b+" "+f.Old+"->"+f.New)
	}
	sort.Strings(out)
	return out
}

func target(a resolve.Answer, installed string) string {
	if a.Error != "" || a.Bundle == installed {
		return ""
	}
	return a.Bundle
}

func orNoUpgrade(s string) string {
	if s == "" {
		return "no upgrade"
	}
	return s
}

func value(a resolve.Answer) string {
	if a.Bundle == "" {
		return "refused: " + a.Error
	}
	return a.Bundle
}

func prerelease(v string) bool {
	sv, err := semver.Parse(v)
	return err == nil && len(sv.Pre) > 0
}

func lower(a, b string) bool {
	va, errA := semver.Parse(a)
	vb, errB := semver.Parse(b)
	return errA == nil && errB == nil && va.LT(vb)
}

// Every revision pair of ../shared/diffpairs: the changes to what OLM v1 picks are exactly those
// fbc/resolve's answers on the two sides differ by. --olm v0 asks OLM v1 nothing.
func TestV1DiffPairs(t *testing.T) {
	var pairs [][2]string
	for _, kind := range []string{"fbc", "sqlite"} {
		dirs, _ := filepath.Glob(filepath.Join(sharedPath(t, "diffpairs"), kind, "*"))
		for _, d := range dirs {
			if kind == "fbc" {
				pairs = append(pairs, [2]string{filepath.Join(d, "old"), filepath.Join(d, "new")})
			} else {
				pairs = append(pairs, [2]string{filepath.Join(d, "old.db"), filepath.Join(d, "new.db")})
			}
		}
	}
	if len(pairs) < 9 {
		t.Fatalf("%d diff pairs found, README lists 9", len(pairs))
	}
	total := 0
	for _, p := range pairs {
		name := filepath.Base(filepath.Dir(p[0])) + "/" + filepath.Base(p[0])
		t.Run(strings.ReplaceAll(filepath.Base(filepath.Dir(p[0])), "/", "_"), func(t *testing.T) {
			oldSide, newSide := openPair(t, p[0], p[1])
			r := diff.Compare(oldSide, newSide)
			want := wantV1(t, oldSide, newSide)
			if d := cmp.Diff(want, gotV1(r)); d != "" {
				t.Errorf("%s: OLM v1 findings (-from resolve +diff):\n%s", name, d)
			}
			total += len(want)
			v0 := diff.CompareWith(oldSide, newSide, diff.Options{OLM: model.OnlyOLMv0})
			for _, f := range v0.Findings {
				if f.Generations() == "v1" || f.Generations() == "both" {
					t.Errorf("--olm v0 has a finding of OLM %s: %+v", f.Generations(), f)
				}
			}
			if len(v0.V1Edges) > 0 {
				t.Errorf("--olm v0 lists v1 edges: %+v", v0.V1Edges)
			}
			v1 := diff.CompareWith(oldSide, newSide, diff.Options{OLM: model.OnlyOLMv1})
			for _, f := range v1.Findings {
				if f.Generations() == "v0" {
					t.Errorf("--olm v1 has a finding of OLM v0 alone: %+v", f)
				}
			}
		})
	}
	if total == 0 {
		t.Error("no pair changes what OLM v1 picks: the test checked nothing")
	}
}

// The recorded answers of operator-controller (../shared/conformance/olmv1): konflux's catalog
// against itself without its highest bundles. The old side of every v1 finding asking no channel
// is the recorded answer to the same query.
func TestV1RecordedKonflux(t *testing.T) {
	dir := sharedPath(t, filepath.Join("conformance", "olmv1", "deprecations-konflux"))
	oldSide := openSide(t, sharedPath(t, filepath.Join("conformance", "fbc", "deprecations-konflux", "catalog")))
	recorded := map[string]string{} // installed name ("" for a fresh install) -> recorded pick or "refused"
	f, err := os.Open(filepath.Join(dir, "resolve.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			resolve.Query
			Bundle string `json:"bundle"`
			Error  string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.Channels) > 0 || rec.Version != "" || rec.Policy == resolve.SelfCertified {
			continue
		}
		key := ""
		if rec.Installed != nil {
			key = rec.Installed.Name
		}
		if rec.Error != "" {
			recorded[key] = "refused"
		} else {
			recorded[key] = rec.Bundle
		}
	}
	if recorded[""] == "" {
		t.Fatal("no recorded fresh install with no channel")
	}
	// the new side: every bundle of the recorded pick's version line (0.2.x) is withdrawn
	newCat := cloneCatalog(oldSide.Catalog)
	for _, b := range oldSide.Catalog.Bundles {
		if strings.Contains(b.Name, ".v0.2.") {
			removeBundle(newCat, b.Package, b.Name)
		}
	}
	newSide := side("new", newCat)
	r := diff.Compare(oldSide, newSide)
	if d := cmp.Diff(wantV1(t, oldSide, newSide), gotV1(r)); d != "" {
		t.Errorf("OLM v1 findings (-from resolve +diff):\n%s", d)
	}
	checked := 0
	for _, f := range r.Findings {
		if f.Generations() != "v1" || f.Channel != "" {
			continue
		}
		rec, ok := recorded[f.Bundle]
		if !ok {
			continue
		}
		checked++
		want := rec
		if f.Bundle != "" && (rec == f.Bundle || rec == "refused") {
			want = "no upgrade"
		}
		if strings.HasPrefix(f.Old, "refused") && rec == "refused" {
			continue
		}
		if f.Old != want {
			t.Errorf("%s %s: old pick %q, operator-controller recorded %q", f.Kind, f.Bundle, f.Old, rec)
		}
	}
	if checked == 0 {
		t.Errorf("no v1 finding meets a recorded answer: %v", gotV1(r))
	}
	t.Logf("%d findings checked against recorded answers", checked)
}

func cloneCatalog(c *fbc.Catalog) *fbc.Catalog {
	return &fbc.Catalog{
		Packages:     append([]fbc.Package(nil), c.Packages...),
		Channels:     cloneChannels(c.Channels),
		Bundles:      append([]fbc.Bundle(nil), c.Bundles...),
		Deprecations: append([]fbc.Deprecation(nil), c.Deprecations...),
		Others:       append([]fbc.Meta(nil), c.Others...),
	}
}

func cloneChannels(chs []fbc.Channel) []fbc.Channel {
	out := make([]fbc.Channel, len(chs))
	for i, c := range chs {
		c.Entries = append([]fbc.ChannelEntry(nil), c.Entries...)
		out[i] = c
	}
	return out
}

// fx is one bundle of a one-package fixture ("p"), an entry of channel ch (default "stable").
type fx struct {
	name, version, replaces, skipRange, ch string
	skips                                  []string
	props                                  []fbc.Property
}

func v1Fixture(entries ...fx) *diff.Side {
	cat := &fbc.Catalog{Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "p", DefaultChannel: "stable"}}}
	channels := map[string]int{}
	seen := map[string]bool{}
	for _, e := range entries {
		ch := e.ch
		if ch == "" {
			ch = "stable"
		}
		i, ok := channels[ch]
		if !ok {
			i = len(cat.Channels)
			channels[ch] = i
			cat.Channels = append(cat.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Name: ch, Package: "p"})
		}
		cat.Channels[i].Entries = append(cat.Channels[i].Entries, fbc.ChannelEntry{Name: e.name, Replaces: e.replaces, Skips: e.skips, SkipRange: e.skipRange})
		if seen[e.name] {
			continue
		}
		seen[e.name] = true
		props := append([]fbc.Property{{Type: "olm.package", Value: json.RawMessage(`{"packageName":"p","version":"` + e.version + `"}`)}}, e.props...)
		cat.Bundles = append(cat.Bundles, fbc.Bundle{Schema: fbc.SchemaBundle, Name: e.name, Package: "p", Image: "img/" + e.name, Properties: props})
	}
	return side("fixture", cat)
}

// generationBriefs are the upgrade findings with their generation: "olm severity kind ch=C b=B".
func generationBriefs(r *diff.Report) []string {
	var out []string
	for _, f := range r.Findings {
		// (CRD upgrade safety has tests of its own: crdsafety_test.go)
		if f.Category == diff.CategoryGraph && !strings.HasPrefix(string(f.Kind), "crd-") {
			out = append(out, f.Generations()+" "+brief(f))
		}
	}
	return out
}

func assertGenerations(t *testing.T, r *diff.Report, want ...string) {
	t.Helper()
	if d := cmp.Diff(want, generationBriefs(r)); d != "" {
		t.Errorf("upgrade findings (-want +got):\n%s", d)
	}
}

// A nightly channel whose bundle's skipRange covers the stable releases: OLM v1 installs it with no
// channel asked and upgrades every stable user to it (the highest version among the successors);
// OLM v0 sees a new channel and nothing else.
func TestV1NightlyTakesOver(t *testing.T) {
	a, b := fx{name: "p.v1.0.0", version: "1.0.0"}, fx{name: "p.v1.1.0", version: "1.1.0", replaces: "p.v1.0.0"}
	nightly := fx{name: "p.v1.2.0-nightly", version: "1.2.0-nightly", skipRange: "<1.2.0-nightly", ch: "nightly"}
	r := diff.Compare(v1Fixture(a, b), v1Fixture(a, b, nightly))
	assertGenerations(t, r,
		"v1 breaking v1-install-prerelease",
		"v1 breaking v1-upgrade-prerelease b=p.v1.0.0",
		"v1 breaking v1-upgrade-prerelease b=p.v1.1.0",
	)
	if f := findingOf(t, r, diff.V1InstallPrerelease, "", ""); f.Old != "p.v1.1.0" || f.New != "p.v1.2.0-nightly" {
		t.Errorf("fresh install: %s -> %s", f.Old, f.New)
	}
	if f := findingOf(t, r, diff.V1UpgradePrerelease, "", "p.v1.0.0"); f.Old != "p.v1.1.0" || f.New != "p.v1.2.0-nightly" {
		t.Errorf("users of 1.0.0: %s -> %s", f.Old, f.New)
	}
	// asked for stable, nothing changes: no finding per channel
	v0 := diff.CompareWith(v1Fixture(a, b), v1Fixture(a, b, nightly), diff.Options{OLM: model.OnlyOLMv0})
	if len(generationBriefs(v0)) != 0 {
		t.Errorf("--olm v0: %v", generationBriefs(v0))
	}
}

// The highest release withdrawn: fresh installs get a lower version (warning), its predecessor's
// users are no longer upgraded under OLM v1 (breaking), and its own users are stranded under both
// generations (one finding).
func TestV1ReleaseWithdrawn(t *testing.T) {
	a := fx{name: "p.v1.0.0", version: "1.0.0"}
	b := fx{name: "p.v1.1.0", version: "1.1.0", replaces: "p.v1.0.0"}
	c := fx{name: "p.v1.2.0", version: "1.2.0", replaces: "p.v1.1.0"}
	r := diff.Compare(v1Fixture(a, b, c), v1Fixture(a, b))
	assertGenerations(t, r,
		"v1 warning v1-install-lowered",
		"v1 breaking v1-upgrade-lost b=p.v1.1.0",
		"v0 warning head-moved-backwards ch=stable",
		"both breaking stranded ch=stable b=p.v1.2.0",
	)
	if f := findingOf(t, r, diff.V1UpgradeLost, "", "p.v1.1.0"); f.Old != "p.v1.2.0" || f.New != "no upgrade" {
		t.Errorf("users of 1.1.0: %s -> %s", f.Old, f.New)
	}
	if f := findingOf(t, r, diff.Stranded, "stable", "p.v1.2.0"); !strings.Contains(f.Message, `(OLM v0; OLM v1 too: it refuses to upgrade them: error upgrading from currently installed version "1.2.0": no bundles found for package "p" in channels [stable])`) {
		t.Errorf("stranded under both: %s", f.Message)
	}
	v1 := diff.CompareWith(v1Fixture(a, b, c), v1Fixture(a, b), diff.Options{OLM: model.OnlyOLMv1})
	assertGenerations(t, v1,
		"v1 warning v1-install-lowered",
		"v1 breaking v1-upgrade-lost b=p.v1.1.0",
		"both breaking stranded ch=stable b=p.v1.2.0",
	)
}

// A skipRange release withdrawn: OLM v1 still upgrades the oldest users, to a lower version.
func TestV1UpgradeLowered(t *testing.T) {
	a := fx{name: "p.v1.0.0", version: "1.0.0"}
	b := fx{name: "p.v1.1.0", version: "1.1.0", replaces: "p.v1.0.0"}
	c := fx{name: "p.v1.2.0", version: "1.2.0", replaces: "p.v1.1.0", skipRange: "<1.2.0"}
	r := diff.Compare(v1Fixture(a, b, c), v1Fixture(a, b))
	if f := findingOf(t, r, diff.V1UpgradeLowered, "", "p.v1.0.0"); f.Old != "p.v1.2.0" || f.New != "p.v1.1.0" || f.Severity != diff.Warning {
		t.Errorf("users of 1.0.0: %+v", f)
	}
}

// OLM v1 refuses a bundle with a dependency property (NoDependencyValidation): a new head that
// requires a package loses fresh installs and the upgrades to it.
func TestV1DependencyRefused(t *testing.T) {
	a := fx{name: "p.v1.0.0", version: "1.0.0"}
	b := fx{name: "p.v1.1.0", version: "1.1.0", replaces: "p.v1.0.0"}
	bDep := b
	bDep.props = []fbc.Property{{Type: "olm.package.required", Value: json.RawMessage(`{"packageName":"q","versionRange":">=1.0.0"}`)}}
	r := diff.Compare(v1Fixture(a, b), v1Fixture(a, bDep))
	f := findingOf(t, r, diff.V1InstallLost, "", "")
	if f.Severity != diff.Breaking || !strings.Contains(f.New, "refused: validating bundle \"p.v1.1.0\"") {
		t.Errorf("fresh install: %+v", f)
	}
	if f := findingOf(t, r, diff.V1UpgradeLost, "", "p.v1.0.0"); !strings.Contains(f.Message, "currently not supported") {
		t.Errorf("users of 1.0.0: %s", f.Message)
	}
}

// A skipped entry: OLM v0 never upgrades to it (its users are stranded), OLM v1 does and goes on to
// the head: the stranded finding is OLM v0's, says what v1 does, and v1's edge is listed.
func TestV1UpgradesWhereV0Strands(t *testing.T) {
	a := fx{name: "p.a", version: "1.0.0"}
	b := fx{name: "p.b", version: "1.1.0", replaces: "p.a"}
	c := fx{name: "p.c", version: "1.2.0", replaces: "p.b", skips: []string{"p.b"}}
	r := diff.Compare(v1Fixture(a, b), v1Fixture(a, b, c))
	f := findingOf(t, r, diff.Stranded, "stable", "p.a")
	if f.Generations() != "v0" || !strings.HasSuffix(f.Message, "(OLM v0; OLM v1 upgrades them to p.c in 2 upgrades)") {
		t.Errorf("stranded: %s %s", f.Generations(), f.Message)
	}
	u := upgradeOf(t, r, "stable", "p.a")
	if u.New.V1 == nil || u.New.V1.Target != "p.b" || !u.New.V1.ReachesTop || u.New.V1.Top != "p.c" || u.New.ReachesHead {
		t.Errorf("upgrades: %+v / %+v", u.New, u.New.V1)
	}
	want := []diff.V1Edge{{Package: "p", Channel: "stable", From: "p.a", To: "p.b", Side: "new"}}
	if d := cmp.Diff(want, r.V1Edges); d != "" {
		t.Errorf("v1 edges (-want +got):\n%s", d)
	}
}

// A skipped release with a higher version: OLM v0's users still reach the head, OLM v1 installs the
// skipped release fresh but never upgrades anyone to it: stranded under OLM v1 alone.
func TestV1StrandsWhereV0Upgrades(t *testing.T) {
	a := fx{name: "p.a", version: "1.0.0"}
	b := fx{name: "p.b", version: "1.1.0", replaces: "p.a"}
	x := fx{name: "p.x", version: "2.0.0"}
	bSkipsX := b
	bSkipsX.skips = []string{"p.x"}
	r := diff.Compare(v1Fixture(a, b), v1Fixture(a, bSkipsX, x))
	assertGenerations(t, r,
		"v1 info v1-install-changed",
		"v1 breaking stranded ch=stable b=p.a",
		"v1 breaking stranded ch=stable b=p.b",
	)
	f := v1Finding(t, r, diff.Stranded, "p.a")
	if f.Generations() != "v1" || f.Old != "reaches p.b in 1 upgrade" || f.New != "upgrades end at p.b" ||
		!strings.Contains(f.Message, "OLM v0 takes them to the head p.b") {
		t.Errorf("stranded: %+v", f)
	}
	if f := findingOf(t, r, diff.V1InstallChanged, "", ""); f.New != "p.x" {
		t.Errorf("fresh install: %+v", f)
	}
}

// v1Finding is the one finding of OLM v1 alone of that kind for that bundle.
func v1Finding(t *testing.T, r *diff.Report, kind diff.Kind, bundle string) diff.Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Kind == kind && f.Bundle == bundle && f.Generations() == "v1" {
			return f
		}
	}
	t.Fatalf("no OLM v1 %s finding for %s: %v", kind, bundle, generationBriefs(r))
	return diff.Finding{}
}

// A deprecation moves OLM v1's picks in a channel whose graph did not change (deprecated bundles
// sort last): the channel is asked again, and its own change is a finding.
func TestV1DeprecationMovesPicks(t *testing.T) {
	a := fx{name: "p.a", version: "1.0.0"}
	b := fx{name: "p.b", version: "1.1.0", replaces: "p.a"}
	ca, cb := a, b
	ca.ch, cb.ch = "candidate", "candidate"
	c := fx{name: "p.c", version: "1.2.0", replaces: "p.b", ch: "candidate"}
	oldSide, newSide := v1Fixture(a, b, ca, cb, c), v1Fixture(a, b, ca, cb, c)
	newSide.Catalog.Deprecations = []fbc.Deprecation{{Schema: fbc.SchemaDeprecations, Package: "p",
		Entries: []fbc.DeprecationEntry{{Reference: fbc.Reference{Schema: fbc.SchemaBundle, Name: "p.b"}, Message: "use p.c"}}}}
	r := diff.Compare(oldSide, newSide)
	// with no channel p.c stays the pick; in stable, p.b (deprecated) now sorts after p.a
	f := findingOf(t, r, diff.V1InstallLowered, "stable", "")
	if f.Old != "p.b" || f.New != "p.a" {
		t.Errorf("fresh install of stable: %s -> %s", f.Old, f.New)
	}
	want := oldR(t, newSide).Resolve(resolve.Query{Package: "p", Channels: []string{"stable"}})
	if want.Bundle != f.New {
		t.Errorf("resolve picks %s in stable, diff says %s", want.Bundle, f.New)
	}
}

func oldR(t *testing.T, s *diff.Side) *resolve.Resolver {
	t.Helper()
	r, err := resolve.New(s.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
