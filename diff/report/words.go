package report

import (
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/plural"
)

// where locates a finding inside its package: channel, bundle and the narrower field, one per
// line. A finding about the package itself (no channel, no bundle) starts with "package P".
func where(f diff.Finding) string {
	var parts []string
	if f.Channel == "" && f.Bundle == "" && f.Package != "" {
		parts = append(parts, "package "+f.Package)
	}
	if f.Channel != "" {
		parts = append(parts, "channel "+f.Channel)
	}
	if f.Bundle != "" {
		parts = append(parts, "bundle "+f.Bundle)
	}
	switch {
	case f.Field == "" || f.Field == fbc.SchemaPackage && f.Channel == "" && f.Bundle == "":
	case f.Category == diff.CategoryValidation:
		parts = append(parts, "rule "+f.Field)
	default:
		parts = append(parts, f.Field)
	}
	return strings.Join(parts, "\n")
}

// whereInCatalog is where, led by the package when the finding is not about the whole package.
func whereInCatalog(f diff.Finding) string {
	w := where(f)
	switch {
	case f.Package == "" && w == "":
		return displayName("")
	case f.Package == "":
		return displayName("") + "\n" + w
	case strings.HasPrefix(w, "package "):
		return w
	}
	return "package " + f.Package + "\n" + w
}

// change says what happened in words: the message, completed with the old and new values when it
// does not hold them, and sentences of their own for edges and upgrade paths.
func change(f diff.Finding) string {
	switch f.Kind {
	case diff.ReplacesChanged:
		return edgeChange("replaces", f.Old, f.New)
	case diff.SkipRangeChanged:
		return edgeChange("has skipRange", f.Old, f.New)
	case diff.SkipsChanged:
		return skipsChange(f.Old, f.New)
	case diff.EntryAdded, diff.EntryRemoved:
		if v := f.Old + f.New; v != "" {
			return f.Message + " (" + v + ")"
		}
	case diff.ChannelAdded, diff.ChannelRemoved:
		return channelChange(f)
	case diff.PackageRemoved:
		if f.Old != "" {
			return fmt.Sprintf("%s (default channel %q)", f.Message, f.Old)
		}
	case diff.DescriptionChanged:
		return f.Message // it quotes what changed, which the values, cut to their start, may not show
	case diff.HeadChanged:
		return strings.Replace(f.Message, "channel head changed from", "head moved from", 1)
	case diff.HeadMovedBackwards:
		return strings.Replace(f.Message, "channel head changed from", "head moved back from", 1) + ", a lower version"
	case diff.Stranded:
		if f.Generations() == "v1" {
			return f.Message // OLM v1's own: its message says where both generations take the users
		}
		return strandedChange(f)
	case diff.NewPath:
		if f.Generations() == "v1" {
			return f.Message
		}
		msg, generations := cutGenerations(f.Message)
		return fmt.Sprintf("%s; before, %s%s", msg, pastReach(f.Old), generations)
	case diff.V1InstallChanged, diff.V1InstallPrerelease, diff.V1InstallLowered, diff.V1InstallLost,
		diff.V1UpgradeChanged, diff.V1UpgradePrerelease, diff.V1UpgradeLowered, diff.V1UpgradeLost:
		return f.Message // it names the bundles before and after
	case diff.LongerPath, diff.ShorterPath:
		return fmt.Sprintf("users of %s now need %s (before, %s)", f.Bundle, f.New, f.Old)
	case diff.RemovedFromPath:
		var hops int
		var head string
		if n, _ := fmt.Sscanf(f.Old, "%d hops to %s", &hops, &head); n == 2 {
			return fmt.Sprintf("%s (it was %s from the head %s)", f.Message, plural.Of(hops, "upgrade"), head)
		}
	case diff.CycleIntroduced:
		if steps := strings.Split(f.New, " -> "); len(steps) > 1 {
			return "upgrade cycle introduced: " + strings.Join(steps[:len(steps)-1], ", then ") + ", and back to " + steps[len(steps)-1]
		}
	case diff.ProblemIntroduced, diff.ProblemFixed, diff.ProblemPersists, diff.ProblemChanged:
		if loc := firstNonEmpty(f.New, f.Old); loc != "" {
			return f.Message + " (" + loc + ")"
		}
		return f.Message
	}
	return withValues(f)
}

// withValues adds the values a message does not already name. A value "changed" that one side
// does not have was added or removed, and is said so: "changed: OLD" would read as the new value.
func withValues(f diff.Finding) string {
	msg := f.Message
	hasOld := f.Old == "" || strings.Contains(msg, f.Old)
	hasNew := f.New == "" || strings.Contains(msg, f.New)
	switch {
	case hasOld && hasNew:
		return msg
	case f.Old != "" && f.New != "":
		return fmt.Sprintf("%s: from %s to %s", msg, f.Old, f.New)
	case f.New == "" && strings.HasSuffix(msg, " changed"):
		return strings.TrimSuffix(msg, " changed") + " removed (it was " + f.Old + ")"
	case f.Old == "" && strings.HasSuffix(msg, " changed"):
		return strings.TrimSuffix(msg, " changed") + " added: " + f.New
	}
	return msg + ": " + f.Old + f.New
}

func edgeChange(verb, old, new string) string {
	switch {
	case old == "":
		return fmt.Sprintf("now %s %s", verb, new)
	case new == "":
		return fmt.Sprintf("no longer %s %s", verb, old)
	}
	if verb == "has skipRange" {
		return fmt.Sprintf("skipRange changed from %s to %s", old, new)
	}
	return fmt.Sprintf("%s changed from %s to %s", verb, old, new)
}

// skipsChange reads the space-separated skips lists of a skips-changed finding.
func skipsChange(old, new string) string {
	had, has := setOf(old), setOf(new)
	var added, removed []string
	for _, s := range strings.Fields(new) {
		if !had[s] {
			added = append(added, s)
		}
	}
	for _, s := range strings.Fields(old) {
		if !has[s] {
			removed = append(removed, s)
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "now skips "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "no longer skips "+strings.Join(removed, ", "))
	}
	return strings.Join(parts, "; ")
}

func setOf(list string) map[string]bool {
	out := map[string]bool{}
	for _, s := range strings.Fields(list) {
		out[s] = true
	}
	return out
}

func channelChange(f diff.Finding) string {
	heads := f.New
	tense := "is"
	if f.Kind == diff.ChannelRemoved {
		heads, tense = f.Old, "was"
	}
	switch n := len(strings.Split(heads, ", ")); {
	case heads == "", strings.Contains(f.Message, "its head "+heads):
		return f.Message // a removed channel's message names its head where its subscribers can go
	case n > 1:
		return fmt.Sprintf("%s; its heads %s %s", f.Message, map[string]string{"is": "are", "was": "were"}[tense], heads)
	}
	return fmt.Sprintf("%s; its head %s %s", f.Message, tense, heads)
}

// strandedChange reads the stranded message (`users of "B" can no longer upgrade to the head H;
// upgrades end at E`) and the old reach.
func strandedChange(f diff.Finding) string {
	msg, generations := cutGenerations(f.Message)
	_, rest, ok := strings.Cut(msg, "can no longer upgrade to the head ")
	head, end, ok2 := strings.Cut(rest, "; upgrades end at ")
	if !ok || !ok2 {
		return f.Message
	}
	before := pastReach(f.Old)
	if f.Old == "is the head "+f.Bundle {
		before = "it was the head itself"
	}
	now := "upgrades now end at " + end
	if end == f.Bundle { // "upgrades end at" the bundle itself reads as if it were somewhere to go
		now = "OLM v0 offers them no upgrade now"
	}
	return fmt.Sprintf("users of %s can no longer upgrade to the head %s: %s; before, %s%s", f.Bundle, head, now, before, generations)
}

// cutGenerations splits off the " (OLM v0; ...)" that diff adds to a path finding's message when
// it weighs both generations.
func cutGenerations(msg string) (string, string) {
	if i := strings.Index(msg, " (OLM v0; "); i >= 0 {
		return msg[:i], msg[i:]
	}
	return msg, ""
}

// pastReach turns a reach of the schema ("is the head H", "reaches H in N upgrades", "upgrades end
// at B") into the past tense.
func pastReach(s string) string {
	switch {
	case strings.HasPrefix(s, "is the head "):
		return "it was the head " + strings.TrimPrefix(s, "is the head ")
	case strings.HasPrefix(s, "reaches "):
		return "it reached " + strings.TrimPrefix(s, "reaches ")
	case strings.HasPrefix(s, "upgrades end at "):
		return "its upgrades ended at " + strings.TrimPrefix(s, "upgrades end at ")
	}
	return s
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
