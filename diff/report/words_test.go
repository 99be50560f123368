package report

import (
	"testing"

	"github.com/olmcat/olmcat/diff"
)

// The findings' values read as sentences, never as "- → X" or "X → -".
func TestChangeInWords(t *testing.T) {
	for _, c := range []struct {
		f    diff.Finding
		want string
	}{
		{diff.Finding{Kind: diff.ReplacesChanged, New: "a.v1"}, "now replaces a.v1"},
		{diff.Finding{Kind: diff.ReplacesChanged, Old: "a.v1"}, "no longer replaces a.v1"},
		{diff.Finding{Kind: diff.ReplacesChanged, Old: "a.v1", New: "a.v2"}, "replaces changed from a.v1 to a.v2"},
		{diff.Finding{Kind: diff.SkipsChanged, Old: "a.v1 a.v2", New: "a.v2 a.v3"}, "now skips a.v3; no longer skips a.v1"},
		{diff.Finding{Kind: diff.SkipRangeChanged, New: "<1.2.0"}, "now has skipRange <1.2.0"},
		{diff.Finding{Kind: diff.SkipRangeChanged, Old: "<1.2.0", New: "<1.3.0"}, "skipRange changed from <1.2.0 to <1.3.0"},
		{diff.Finding{Kind: diff.CycleIntroduced, New: "a -> b -> a"}, "upgrade cycle introduced: a, then b, and back to a"},
		{diff.Finding{Kind: diff.PackageRemoved, Old: "stable", Message: `package "p" removed with its 2 channels and 3 bundles`},
			`package "p" removed with its 2 channels and 3 bundles (default channel "stable")`},
		{diff.Finding{Kind: diff.Stranded, Bundle: "p.v1", Old: "reaches p.v3 in 2 upgrades", New: "upgrades end at p.v1",
			Message: `users of "p.v1" can no longer upgrade to the head p.v4; upgrades end at p.v1`},
			"users of p.v1 can no longer upgrade to the head p.v4: OLM v0 offers them no upgrade now; before, it reached p.v3 in 2 upgrades"},
		{diff.Finding{Kind: diff.Stranded, Bundle: "p.v1", Old: "reaches p.v3 in 2 upgrades", New: "upgrades end at p.v2",
			Message: `users of "p.v1" can no longer upgrade to the head p.v4; upgrades end at p.v2`},
			"users of p.v1 can no longer upgrade to the head p.v4: upgrades now end at p.v2; before, it reached p.v3 in 2 upgrades"},
		{diff.Finding{Kind: diff.NewPath, Old: "upgrades end at p.v1", Message: `users of "p.v1" can now upgrade to the head p.v4`},
			`users of "p.v1" can now upgrade to the head p.v4; before, its upgrades ended at p.v1`},
		{diff.Finding{Kind: diff.LongerPath, Bundle: "p.v1", Old: "1 upgrade to p.v3", New: "3 upgrades to p.v4"},
			"users of p.v1 now need 3 upgrades to p.v4 (before, 1 upgrade to p.v3)"},
		{diff.Finding{Kind: diff.RemovedFromPath, Old: "2 hops to p.v4", Message: "removed bundle was a step"},
			"removed bundle was a step (it was 2 upgrades from the head p.v4)"},
		{diff.Finding{Kind: diff.HeadMovedBackwards, Message: "channel head changed from p.v2 (2.0.0) to p.v1 (1.0.0)"},
			"head moved back from p.v2 (2.0.0) to p.v1 (1.0.0), a lower version"},
		{diff.Finding{Kind: diff.ChannelRemoved, Old: "p.v2", Message: `channel "c" removed`}, `channel "c" removed; its head was p.v2`},
		{diff.Finding{Kind: diff.RelatedImageAdded, New: "quay.io/x:1", Message: "unnamed related image added"},
			"unnamed related image added: quay.io/x:1"},
		{diff.Finding{Kind: diff.BundleImageChanged, Old: "quay.io/x:1", New: "quay.io/x:2", Message: "bundle image changed"},
			"bundle image changed: from quay.io/x:1 to quay.io/x:2"},
		{diff.Finding{Kind: diff.DefaultChannelChanged, Old: "a", New: "b", Message: `default channel changed from "a" to "b"`},
			`default channel changed from "a" to "b"`},
	} {
		if got := change(c.f); got != c.want {
			t.Errorf("%s %+v:\n got  %s\n want %s", c.f.Kind, c.f, got, c.want)
		}
	}
}

func TestWhere(t *testing.T) {
	for _, c := range []struct {
		f         diff.Finding
		where, in string
	}{
		{diff.Finding{Package: "p"}, "package p", "package p"},
		{diff.Finding{Package: "p", Field: "olm.package"}, "package p", "package p"},
		{diff.Finding{Package: "p", Field: "icon"}, "package p\nicon", "package p\nicon"},
		{diff.Finding{Package: "p", Channel: "c", Bundle: "b"}, "channel c\nbundle b", "package p\nchannel c\nbundle b"},
		{diff.Finding{Category: diff.CategoryValidation, Field: "load-error"}, "rule load-error", "(catalog)\nrule load-error"},
	} {
		if got := where(c.f); got != c.where {
			t.Errorf("where %+v = %q, want %q", c.f, got, c.where)
		}
		if got := whereInCatalog(c.f); got != c.in {
			t.Errorf("whereInCatalog %+v = %q, want %q", c.f, got, c.in)
		}
	}
}

func TestWrapAndFit(t *testing.T) {
	if got := wrap("users of a-very-long-bundle-name can upgrade", 10); got != "users of\na-very-\nlong-\nbundle-\nname can\nupgrade" {
		t.Errorf("wrap: %q", got)
	}
	if got := wrap("abcdefghijklmnop", 10); got != "abcdefghij\nklmnop" {
		t.Errorf("wrap: %q", got)
	}
	if got := fitColumns([]int{8, 20, 40, 80}, 100); got[0] != 8 || got[1] != 20 || got[2]+got[3] > 72 || got[2] != got[3] {
		t.Errorf("fit: %v", got)
	}
	if got := fitColumns([]int{8, 20, 30}, 100); got[2] != 30 {
		t.Errorf("fit when all fit: %v", got)
	}
}
