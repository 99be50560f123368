package resolve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	bsemver "github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/resolve"
)

// TestReviewV1AgainstRecordedAnswers derives, from what operator-controller itself answered on each
// catalog (olmv1/*/resolve.jsonl: fresh installs with no channel and each channel, upgrades from
// each entry with its channel asked, from each bundle with none), the v1-installs-prerelease and
// v1-left-behind findings validate must make, and compares them with what it makes (package,
// channel, bundle). olmcat's resolver answers none of the expected findings.
func TestReviewV1AgainstRecordedAnswers(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "olmv1", "*", "resolve.jsonl"))
	if len(files) == 0 {
		t.Skipf("OLM v1 recordings not found at %s/olmv1 (run with /work/shared present)", conformanceDir)
	}
	sawPre, sawLeft := 0, 0
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		t.Run(name, func(t *testing.T) {
			side, err := input.Open(context.Background(), filepath.Join(conformanceDir, "fbc", name, "catalog"), input.Options{})
			if err != nil {
				t.Fatal(err)
			}
			recs := readRecorded(t, file)
			wantPre, wantLeft := expectedFromRecorded(side.Catalog, recs)
			v := model.NewValidator(model.Options{Review: resolve.ReviewV1})
			v.AddCatalog(side.Catalog)
			issues, err := v.Finish(nil)
			if err != nil {
				t.Fatal(err)
			}
			gotPre, gotLeft := map[string]bool{}, map[string]bool{}
			for _, i := range issues {
				key := i.Package + "/" + i.Channel + "/" + i.Bundle
				switch i.Rule {
				case resolve.RuleV1Prerelease:
					gotPre[key] = true
				case resolve.RuleV1LeftBehind:
					gotLeft[key] = true
				default:
					continue
				}
				if !slices.Equal(i.OLM, []model.Generation{model.OLMv1}) {
					t.Errorf("%s: olm %v, want [v1]", i.Error(), i.OLM)
				}
			}
			compareSets(t, resolve.RuleV1Prerelease, wantPre, gotPre)
			compareSets(t, resolve.RuleV1LeftBehind, wantLeft, gotLeft)
			sawPre += len(wantPre)
			sawLeft += len(wantLeft)
		})
	}
	// the recordings hold both kinds (konflux's candidates, jaeger's 1.51.0-1; ...): a test that
	// expects nothing anywhere would show nothing
	if sawPre == 0 || sawLeft == 0 {
		t.Errorf("recordings gave %d prerelease and %d left-behind findings: want some of each", sawPre, sawLeft)
	}
}

func readRecorded(t *testing.T, file string) []recorded {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec recorded
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

func compareSets(t *testing.T, rule string, want, got map[string]bool) {
	t.Helper()
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s: missing (package/channel/bundle) %v; not expected %v", rule, missing, extra)
	}
}

func channelOf(cat *fbc.Catalog, pkg, ch string) *fbc.Channel {
	for i := range cat.Channels {
		if cat.Channels[i].Package == pkg && cat.Channels[i].Name == ch {
			return &cat.Channels[i]
		}
	}
	return nil
}

func onlyPrereleases(cat *fbc.Catalog, pkg, ch string, version map[string]string) bool {
	for _, e := range channelOf(cat, pkg, ch).Entries {
		if !isPrerelease(version[pkg+"/"+e.Name]) {
			return false
		}
	}
	return true
}

// channelHeadOf is the one entry of the channel that no entry replaces or skips.
func channelHeadOf(cat *fbc.Catalog, pkg, ch string) string {
	c := channelOf(cat, pkg, ch)
	named := map[string]bool{}
	for _, e := range c.Entries {
		named[e.Replaces] = true
		for _, s := range e.Skips {
			named[s] = true
		}
	}
	head := ""
	for _, e := range c.Entries {
		if !named[e.Name] {
			if head != "" {
				return ""
			}
			head = e.Name
		}
	}
	return head
}

// isPrerelease reads a version as OLM v1 reports it (release as build metadata).
func isPrerelease(v string) bool {
	sv, err := bsemver.Parse(v)
	return err == nil && len(sv.Pre) > 0
}

// expectedFromRecorded applies the rules of the two findings to the recorded answers:
//   - v1-installs-prerelease, keyed by (package, channel asked or "", pick): a fresh install whose
//     pick is a prerelease, or an upgrade of a release to a prerelease;
//   - v1-left-behind, keyed by (package, channel, installed entry): following the recorded picks
//     from the entry with its channel asked ends on a bundle F that is not the channel head, that
//     OLM v1 keeps (its own pick), and below a higher non-deprecated version of the channel (a
//     release, when F is one) or with a recorded successor of a lower version.
func expectedFromRecorded(cat *fbc.Catalog, recs []recorded) (pre, left map[string]bool) {
	pre, left = map[string]bool{}, map[string]bool{}
	version := map[string]string{} // package/bundle -> version as OLM v1 reports it
	next := map[string]recorded{}  // package/channel/installed -> the recorded answer
	for _, r := range recs {
		if r.Installed != nil {
			version[r.Package+"/"+r.Installed.Name] = r.Installed.Version
		}
		if r.Bundle != "" {
			version[r.Package+"/"+r.Bundle] = r.BundleVersion
		}
	}
	for _, r := range recs {
		ch := ""
		if len(r.Channels) == 1 {
			ch = r.Channels[0]
		}
		switch r.Tag {
		case "install", "install-channel":
			if r.Tag == "install-channel" && onlyPrereleases(cat, r.Package, ch, version) && r.Bundle == channelHeadOf(cat, r.Package, ch) {
				continue // a nightly channel's head is what its users ask for
			}
			if r.Error == "" && isPrerelease(r.BundleVersion) {
				pre[r.Package+"/"+ch+"/"+r.Bundle] = true
			}
		case "upgrade-channel", "upgrade-anychannel":
			if r.Error == "" && r.Bundle != r.Installed.Name && isPrerelease(r.BundleVersion) && !isPrerelease(r.Installed.Version) {
				pre[r.Package+"/"+ch+"/"+r.Bundle] = true
			}
			if r.Tag == "upgrade-channel" {
				next[r.Package+"/"+ch+"/"+r.Installed.Name] = r
			}
		}
	}
	deprecated := map[string]bool{}
	for _, d := range cat.Deprecations {
		for _, e := range d.Entries {
			if e.Reference.Schema == fbc.SchemaBundle {
				deprecated[d.Package+"/"+e.Reference.Name] = true
			}
		}
	}
	// versions compared by semver (build metadata, where these catalogs have a release, ignored:
	// an equal version is neither higher nor lower)
	cmp := func(a, b string) int { return bsemver.MustParse(a).Compare(bsemver.MustParse(b)) }
	for _, ch := range cat.Channels {
		named := map[string]bool{}
		for _, e := range ch.Entries {
			named[e.Replaces] = true
			for _, s := range e.Skips {
				named[s] = true
			}
		}
		var heads []string
		for _, e := range ch.Entries {
			if !named[e.Name] {
				heads = append(heads, e.Name)
			}
		}
		for _, e := range ch.Entries {
			key := func(b string) string { return ch.Package + "/" + ch.Name + "/" + b }
			cur, seen := e.Name, map[string]bool{e.Name: true}
			stays := false
			for {
				r, ok := next[key(cur)]
				if !ok || r.Error != "" {
					break
				}
				if r.Bundle == cur {
					stays = true
					break
				}
				if seen[r.Bundle] {
					break
				}
				seen[r.Bundle] = true
				cur = r.Bundle
			}
			if !stays || (len(heads) == 1 && cur == heads[0]) {
				continue
			}
			curV := version[ch.Package+"/"+cur]
			behind := false
			for _, o := range ch.Entries {
				ov, ok := version[ch.Package+"/"+o.Name]
				if !ok || deprecated[ch.Package+"/"+o.Name] || (!isPrerelease(curV) && isPrerelease(ov)) {
					continue
				}
				behind = behind || cmp(ov, curV) > 0
			}
			for _, s := range next[key(cur)].Successors {
				if sv, ok := version[ch.Package+"/"+s]; ok && cmp(sv, curV) < 0 {
					behind = true
				}
			}
			if behind {
				left[key(e.Name)] = true
			}
		}
	}
	return pre, left
}

// TestReviewGenerationsOnDiffPairs validates both sides of every real diff pair for each --olm
// choice: OLM v0's graph findings carry olm [v0] and OLM v1's [v1]; --olm v0 prints no v1 finding
// and no word of OLM v1's, --olm v1 no v0-only finding; both prints the findings of each, no more.
func TestReviewGenerationsOnDiffPairs(t *testing.T) {
	sides, _ := filepath.Glob(filepath.Join(conformanceDir, "..", "diffpairs", "fbc", "*", "*"))
	sides = slices.DeleteFunc(sides, func(s string) bool { return filepath.Ext(s) == ".json" })
	if len(sides) == 0 {
		t.Skip("diff pairs not found under ../shared/diffpairs/fbc (run with /work/shared present)")
	}
	v0Rules := map[string]bool{"unreachable-from-head": true, "skipped-on-replaces-chain": true, "downgrade-offered": true,
		"upgrade-cycle": true, "requirement-not-in-catalog": true}
	v1Rules := map[string]bool{resolve.RuleV1Prerelease: true, resolve.RuleV1LeftBehind: true, resolve.RuleV1DuplicateVersion: true}
	v1Findings := 0
	for _, dir := range sides {
		name, _ := filepath.Rel(filepath.Join(conformanceDir, "..", "diffpairs", "fbc"), dir)
		t.Run(name, func(t *testing.T) {
			run := func(g model.Generations) model.Issues {
				side, err := input.Open(context.Background(), dir, input.Options{})
				if err != nil {
					t.Fatal(err)
				}
				v := model.NewValidator(model.Options{OLM: g, Review: resolve.ReviewV1})
				v.AddCatalog(side.Catalog)
				issues, err := v.Finish(nil)
				if err != nil {
					t.Fatal(err)
				}
				return issues
			}
			keys := func(is model.Issues) map[string]bool {
				out := map[string]bool{}
				for _, i := range is {
					out[i.Rule+"/"+i.Package+"/"+i.Channel+"/"+i.Bundle] = true
				}
				return out
			}
			both, v0, v1 := run(model.BothOLM), run(model.OnlyOLMv0), run(model.OnlyOLMv1)
			for _, i := range both {
				switch {
				case v0Rules[i.Rule] && !slices.Equal(i.OLM, []model.Generation{model.OLMv0}):
					t.Errorf("OLM v0 finding without olm [v0]: %v %s", i.OLM, i.Error())
				case v1Rules[i.Rule] && !slices.Equal(i.OLM, []model.Generation{model.OLMv1}):
					t.Errorf("OLM v1 finding without olm [v1]: %v %s", i.OLM, i.Error())
				}
				if v1Rules[i.Rule] {
					v1Findings++
				}
			}
			for _, i := range v0 {
				if v1Rules[i.Rule] || strings.Contains(i.Message, "OLM v1") {
					t.Errorf("--olm v0 printed OLM v1: %s", i.Error())
				}
			}
			for _, i := range v1 {
				if v0Rules[i.Rule] || strings.Contains(i.Message, "OLM v0") {
					t.Errorf("--olm v1 printed OLM v0: %s", i.Error())
				}
			}
			union := keys(v0)
			for k := range keys(v1) {
				union[k] = true
			}
			compareSets(t, "both = v0 + v1", union, keys(both))
		})
	}
	if v1Findings == 0 {
		t.Errorf("no OLM v1 finding on any side: sailoperator's nightly should be one")
	}
}
