package resolve

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// reviewCatalog builds a catalog of package "p" (default channel defaultCh) from channel lines
// "name: entry, entry<replaces, entry<!skip, entry<~range" (parts of an entry after "<" joined by
// "|"), bundles "name=version" in catalog order, and extra properties per bundle.
func reviewCatalog(t *testing.T, defaultCh string, chans []string, bundles []string, props map[string]string) *fbc.Catalog {
	t.Helper()
	var sb strings.Builder
	fmt.Fprintf(&sb, `{"schema":"olm.package","name":"p","defaultChannel":%q}`+"\n", defaultCh)
	for _, line := range chans {
		name, list, _ := strings.Cut(line, ": ")
		var entries []string
		for _, e := range strings.Split(list, ", ") {
			n, rest, _ := strings.Cut(e, "<")
			ent := fmt.Sprintf(`{"name":%q`, n)
			var skips []string
			for _, part := range strings.Split(rest, "|") {
				switch {
				case part == "":
				case strings.HasPrefix(part, "!"):
					skips = append(skips, fmt.Sprintf("%q", part[1:]))
				case strings.HasPrefix(part, "~"):
					ent += fmt.Sprintf(`,"skipRange":%q`, part[1:])
				default:
					ent += fmt.Sprintf(`,"replaces":%q`, part)
				}
			}
			if len(skips) > 0 {
				ent += `,"skips":[` + strings.Join(skips, ",") + "]"
			}
			entries = append(entries, ent+"}")
		}
		fmt.Fprintf(&sb, `{"schema":"olm.channel","package":"p","name":%q,"entries":[%s]}`+"\n", name, strings.Join(entries, ","))
	}
	for _, b := range bundles {
		name, version, _ := strings.Cut(b, "=")
		extra := props[name]
		if extra != "" {
			extra = "," + extra
		}
		fmt.Fprintf(&sb, `{"schema":"olm.bundle","package":"p","name":%q,"image":"example.com/p@sha256:%064d","properties":[{"type":"olm.package","value":{"packageName":"p","version":%q}}%s]}`+"\n", name, 1, version, extra)
	}
	cat, err := fbc.LoadReader(strings.NewReader(sb.String()), "catalog.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, sb.String())
	}
	return cat
}

// validateFor validates the catalog as olmcat validate does (the streaming validator).
func validateFor(cat *fbc.Catalog, olm model.Generations) model.Issues {
	v := model.NewValidator(model.Options{OLM: olm, Review: ReviewV1})
	v.AddCatalog(cat)
	issues, err := v.Finish(nil)
	if err != nil {
		panic(err)
	}
	return issues
}

func byRule(issues model.Issues, rule string) model.Issues {
	var out model.Issues
	for _, i := range issues {
		if i.Rule == rule {
			out = append(out, i)
		}
	}
	return out
}

func checkIssue(t *testing.T, i *model.Issue, sev model.Severity, ch, bundle string, olm []model.Generation, parts ...string) {
	t.Helper()
	if i.Severity != sev || i.Channel != ch || i.Bundle != bundle || !slices.Equal(i.OLM, olm) || i.Package != "p" {
		t.Errorf("%s: got %s channel %q bundle %q olm %v; want %s channel %q bundle %q olm %v\n%s",
			i.Rule, i.Severity, i.Channel, i.Bundle, i.OLM, sev, ch, bundle, olm, i.Error())
	}
	for _, p := range parts {
		if !strings.Contains(i.Message, p) {
			t.Errorf("%s: message lacks %q:\n%s", i.Rule, p, i.Message)
		}
	}
}

var onlyV1 = []model.Generation{model.OLMv1}
var onlyV0 = []model.Generation{model.OLMv0}

// sailoperator on community v4.18: a nightly in a channel of its own, above every stable release.
// OLM v1 asked no channel installs it and upgrades the stable users to it (its skipRange covers
// them); OLM v0 installs the default channel's head. Asked the stable channel, OLM v1 never sees it.
func TestReviewPrereleaseInstalled(t *testing.T) {
	cat := reviewCatalog(t, "stable-1.30",
		[]string{
			"stable-1.30: p.v1.30.0, p.v1.30.3<p.v1.30.0",
			"nightly: p.v1.31.0-nightly<~>=1.0.0 <1.31.0-nightly-2026-08-22",
		},
		[]string{"p.v1.30.0=1.30.0", "p.v1.30.3=1.30.3", "p.v1.31.0-nightly=1.31.0-nightly-2026-08-22"}, nil)
	issues := validateFor(cat, model.BothOLM)
	if errs := issues.Errors(); len(errs) > 0 {
		t.Fatalf("fixture invalid: %v", errs)
	}
	pre := byRule(issues, RuleV1Prerelease)
	if len(pre) != 1 {
		t.Fatalf("want 1 %s finding (no channel; the nightly channel's head is what its users ask for), got %d:\n%v", RuleV1Prerelease, len(pre), pre)
	}
	checkIssue(t, pre[0], model.Warning, "", "p.v1.31.0-nightly", onlyV1,
		`installs prerelease "p.v1.31.0-nightly" (1.31.0-nightly-2026-08-22) for a new ClusterExtension`,
		`upgrades the users of "p.v1.30.0", "p.v1.30.3" to it`, `asks no channel and no version range`,
		`OLM v0 installs "p.v1.30.3" (1.30.3), the head of the default channel`)

	// a release channel whose head is a downstream build "1.51.0-1" (jaeger-product): OLM v0
	// installs it too, and a version range naming no prerelease never matches it (info)
	cat2 := reviewCatalog(t, "stable", []string{"stable: p.v1.30.2, p.v1.51.0-1<p.v1.30.2"},
		[]string{"p.v1.30.2=1.30.2", "p.v1.51.0-1=1.51.0-1"}, nil)
	pre = byRule(validateFor(cat2, model.BothOLM), RuleV1Prerelease)
	if len(pre) != 2 {
		t.Fatalf("want 2 %s findings (no channel, channel stable), got %v", RuleV1Prerelease, pre)
	}
	checkIssue(t, pre[0], model.Info, "", "p.v1.51.0-1", onlyV1, `asks no channel`, `OLM v0 installs it too (the head of the default channel)`)
	checkIssue(t, pre[1], model.Info, "stable", "p.v1.51.0-1", onlyV1,
		`installs prerelease "p.v1.51.0-1" (1.51.0-1) for a new ClusterExtension and upgrades the users of "p.v1.30.2" to it`,
		`asks channel "stable"`, `OLM v0 installs it too (the head of channel "stable")`, `version range names no prerelease never gets it`)

	// --olm v0 prints no v1 finding; --olm v1 mentions no OLM v0 answer
	if got := byRule(validateFor(cat, model.OnlyOLMv0), RuleV1Prerelease); len(got) != 0 {
		t.Errorf("--olm v0 printed %v", got)
	}
	for _, i := range validateFor(cat, model.OnlyOLMv1) {
		if strings.Contains(i.Message, "OLM v0") {
			t.Errorf("--olm v1 message names OLM v0: %s", i.Error())
		}
	}
}

// aws-neuron on community v4.18: v0.0.5 replaces v0.1.2. OLM v0 follows the chain to the head
// v0.0.9; OLM v1 never picks a version below the installed one, so the users of v0.1.2 (and of
// v0.0.4, brought to v0.1.2) stay there.
func TestReviewLeftBehindByALowerSuccessor(t *testing.T) {
	cat := reviewCatalog(t, "stable",
		[]string{"stable: p.v0.0.4, p.v0.1.2<p.v0.0.4, p.v0.0.5<p.v0.1.2, p.v0.0.6<p.v0.0.5, p.v0.0.9<p.v0.0.6"},
		[]string{"p.v0.0.4=0.0.4", "p.v0.1.2=0.1.2", "p.v0.0.5=0.0.5", "p.v0.0.6=0.0.6", "p.v0.0.9=0.0.9"}, nil)
	issues := validateFor(cat, model.BothOLM)
	left := byRule(issues, RuleV1LeftBehind)
	if len(left) != 2 {
		t.Fatalf("want 2 %s findings, got %d:\n%v", RuleV1LeftBehind, len(left), left)
	}
	slices.SortFunc(left, func(a, b *model.Issue) int { return strings.Compare(a.Bundle, b.Bundle) })
	checkIssue(t, left[0], model.Warning, "stable", "p.v0.0.4", onlyV1,
		`OLM v1 upgrades the users of "p.v0.0.4" through p.v0.1.2 and no further`,
		`replace, skip or cover "p.v0.1.2" (0.1.2) have lower versions ("p.v0.0.5" (0.0.5))`)
	checkIssue(t, left[1], model.Warning, "stable", "p.v0.1.2", onlyV1,
		`OLM v1 leaves the users of "p.v0.1.2" (0.1.2) where they are`, `OLM v0 brings them to "p.v0.0.9" (0.0.9)`)
	if !strings.Contains(left[0].Message, `OLM v0 brings them to "p.v0.0.9" (0.0.9)`) {
		t.Errorf("p.v0.0.4: want OLM v0's end, the head: %s", left[0].Message)
	}
	// the entries above the lower successor upgrade to the head under both generations: nothing said
	for _, i := range issues {
		if i.Bundle == "p.v0.0.5" || i.Bundle == "p.v0.0.6" {
			t.Errorf("unexpected finding: %s", i.Error())
		}
	}
}

// clusterpulse on community v4.20: each entry replaces and skips the one below. OLM v0 never
// upgrades to a skipped bundle, so the users of p.v1.0.0 are unreachable-from-head; OLM v1 takes
// skipped entries as successors and brings them to the head, which the OLM v0 findings now say.
// Then a higher version no edge reaches: OLM v1 leaves the users below it where they are.
func TestReviewLeftBehindBelowAHigherVersion(t *testing.T) {
	cat := reviewCatalog(t, "stable",
		[]string{"stable: p.v1.0.0, p.v1.1.0<p.v1.0.0|!p.v1.0.0, p.v1.2.0<p.v1.1.0|!p.v1.1.0"},
		[]string{"p.v1.0.0=1.0.0", "p.v1.1.0=1.1.0", "p.v1.2.0=1.2.0"}, nil)
	issues := validateFor(cat, model.BothOLM)
	// OLM v1 upgrades p.v1.0.0 to p.v1.1.0, then to p.v1.2.0: nobody is left behind
	if left := byRule(issues, RuleV1LeftBehind); len(left) != 0 {
		t.Errorf("want no %s, got %v", RuleV1LeftBehind, left)
	}
	var unreachable *model.Issue
	for _, i := range issues {
		if i.Rule == "unreachable-from-head" && i.Bundle == "p.v1.0.0" {
			unreachable = i
		}
	}
	if unreachable == nil {
		t.Fatalf("want OLM v0's unreachable-from-head for p.v1.0.0, got %v", issues)
	}
	checkIssue(t, unreachable, model.Warning, "stable", "p.v1.0.0", onlyV0,
		`OLM v0 offers the users of "p.v1.0.0" no upgrade`, `OLM v1 upgrades them to "p.v1.2.0" (1.2.0)`)
	var skipped *model.Issue
	for _, i := range issues {
		if i.Rule == "skipped-on-replaces-chain" {
			skipped = i
		}
	}
	if skipped == nil {
		t.Fatalf("want skipped-on-replaces-chain, got %v", issues)
	}
	checkIssue(t, skipped, model.Warning, "stable", "p.v1.1.0", onlyV0, "OLM v0 never upgrades to a skipped bundle", "OLM v1 does upgrade to skipped bundles")

	// now a higher version that nothing leads to: p.v2.0.0 names nobody
	cat = reviewCatalog(t, "stable",
		[]string{"stable: p.v1.0.0, p.v1.1.0<p.v1.0.0, p.v2.0.0<~<1.0.0"},
		[]string{"p.v1.0.0=1.0.0", "p.v1.1.0=1.1.0", "p.v2.0.0=2.0.0"}, nil)
	left := byRule(validateFor(cat, model.OnlyOLMv1), RuleV1LeftBehind)
	if len(left) != 2 {
		t.Fatalf("want 2 %s findings, got %v", RuleV1LeftBehind, left)
	}
	checkIssue(t, left[0], model.Warning, "stable", "p.v1.0.0", onlyV1, `through p.v1.1.0 and no further`, `though "p.v2.0.0" (2.0.0) is in the channel`)
	checkIssue(t, left[1], model.Warning, "stable", "p.v1.1.0", onlyV1, `leaves the users of "p.v1.1.0" (1.1.0) where they are`)
}

// Build metadata that is no release (longer than 20 characters) takes no part in OLM v1's order:
// the two bundles are one version to it, though opm's duplicate-version tells them apart. The
// first in the catalog wins, so OLM v1 moves the users of the second to the first.
func TestReviewDuplicateVersion(t *testing.T) {
	cat := reviewCatalog(t, "stable",
		[]string{"stable: p.a, p.b<p.a"},
		[]string{"p.a=1.0.0+build.2026.08.22.abcdef0", "p.b=1.0.0+build.2026.08.23.1234567"}, nil)
	issues := validateFor(cat, model.BothOLM)
	if errs := issues.Errors(); len(errs) > 0 {
		t.Fatalf("opm's rules accept the fixture, olmcat said %v", errs)
	}
	dup := byRule(issues, RuleV1DuplicateVersion)
	if len(dup) != 1 {
		t.Fatalf("want one %s, got %v", RuleV1DuplicateVersion, issues)
	}
	checkIssue(t, dup[0], model.Warning, "", "p.a", onlyV1, `by their order in the catalog, "p.a" first`, `it moves the users of "p.b" to "p.a"`)

	// build metadata that is a release orders the two: nothing to say
	cat = reviewCatalog(t, "stable", []string{"stable: p.a, p.b<p.a"}, []string{"p.a=1.0.0+1", "p.b=1.0.0+2"}, nil)
	if dup := byRule(validateFor(cat, model.BothOLM), RuleV1DuplicateVersion); len(dup) != 0 {
		t.Errorf("releases 1 and 2 are distinct to OLM v1, got %v", dup)
	}
}

// requirement-not-in-catalog is OLM v0's: under OLM v1 no catalog helps; an invalid skipRange is
// opm's error for both, and says what OLM v1 does with it.
func TestReviewAmendsRequirementAndSkipRange(t *testing.T) {
	cat := reviewCatalog(t, "stable", []string{"stable: p.v1, p.v2<p.v1, p.v3<p.v2|~not a range"},
		[]string{"p.v1=1.0.0", "p.v2=2.0.0", "p.v3=3.0.0"},
		map[string]string{"p.v2": `{"type":"olm.package.required","value":{"packageName":"q","versionRange":">=1.0.0"}}`})
	issues := validateFor(cat, model.BothOLM)
	var req, rng *model.Issue
	for _, i := range issues {
		switch i.Rule {
		case "requirement-not-in-catalog":
			req = i
		case "skiprange-invalid":
			rng = i
		}
	}
	if req == nil || rng == nil {
		t.Fatalf("want requirement-not-in-catalog and skiprange-invalid, got %v", issues)
	}
	checkIssue(t, req, model.Info, "", "p.v2", onlyV0, "OLM v0 installs it, or upgrades to it, only where another catalog provides that", "OLM v1 never installs it")
	if len(rng.OLM) != 0 || !strings.Contains(rng.Message, "operator-controller takes the range as covering no version") {
		t.Errorf("skiprange-invalid: %v %s", rng.OLM, rng.Error())
	}
	if got := validateFor(cat, model.OnlyOLMv1); slices.ContainsFunc(got, func(i *model.Issue) bool { return i.Rule == "requirement-not-in-catalog" }) {
		t.Errorf("--olm v1 printed OLM v0's requirement-not-in-catalog")
	}
	for _, i := range validateFor(cat, model.OnlyOLMv0) {
		if i.Rule == "requirement-not-in-catalog" && strings.Contains(i.Message, "OLM v1") {
			t.Errorf("--olm v0 speaks of OLM v1: %s", i.Error())
		}
	}
}

// A stranded bundle is opm's error (opm serve refuses the catalog); catalogd serves it to OLM v1
// all the same, and the error says where OLM v1 takes the stranded bundle's users.
func TestReviewAmendsStranded(t *testing.T) {
	cat := reviewCatalog(t, "stable", []string{"stable: p.v1, p.v2<p.v1, p.v3<p.v2|!p.v2"},
		[]string{"p.v1=1.0.0", "p.v2=2.0.0", "p.v3=3.0.0"}, nil)
	var stranded *model.Issue
	for _, i := range validateFor(cat, model.BothOLM) {
		if i.Rule == "stranded-bundles" {
			stranded = i
		}
	}
	if stranded == nil {
		t.Fatal("want opm's stranded-bundles error")
	}
	if len(stranded.OLM) != 0 || !strings.Contains(stranded.Message, `stranded bundles: p.v1; OLM v1, which catalogd serves the catalog to all the same, upgrades the users of "p.v1" to "p.v3" (3.0.0)`) {
		t.Errorf("olm %v: %s", stranded.OLM, stranded.Error())
	}
}
