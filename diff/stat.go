package diff

import "sort"

// PackageStat sums up the change of one package.
type PackageStat struct {
	Name            string `json:"name"`
	Status          string `json:"status"` // added, removed, changed or unchanged
	ChannelsAdded   int    `json:"channelsAdded"`
	ChannelsRemoved int    `json:"channelsRemoved"`
	// ChannelsChanged counts the channels both sides have with a catalog or graph finding, of
	// which HeadsMoved those whose head changed (a release, a rollback).
	ChannelsChanged int    `json:"channelsChanged"`
	HeadsMoved      int    `json:"headsMoved"`
	BundlesAdded    int    `json:"bundlesAdded"`
	BundlesRemoved  int    `json:"bundlesRemoved"`
	BundlesChanged  int    `json:"bundlesChanged"`
	Findings        Counts `json:"findings"`
}

// The values of PackageStat.Status.
const (
	StatusAdded     = "added"
	StatusRemoved   = "removed"
	StatusChanged   = "changed"
	StatusUnchanged = "unchanged"
)

func packageStat(name string, op, np *pkgIndex, findings []Finding) PackageStat {
	s := PackageStat{Name: name, Status: StatusUnchanged}
	var oldChannels, newChannels, oldBundles, newBundles int
	if op != nil {
		oldChannels, oldBundles = len(op.channels), len(op.bundles)
	}
	if np != nil {
		newChannels, newBundles = len(np.channels), len(np.bundles)
	}
	changedBundles, changedChannels, movedHeads := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range findings {
		s.Findings.add(f.Severity)
		switch f.Kind {
		case ChannelAdded:
			s.ChannelsAdded++
		case ChannelRemoved:
			s.ChannelsRemoved++
		case BundleAdded:
			s.BundlesAdded++
		case BundleRemoved:
			s.BundlesRemoved++
		case PackageAdded:
			s.Status = StatusAdded
			s.ChannelsAdded, s.BundlesAdded = newChannels, newBundles
		case PackageRemoved:
			s.Status = StatusRemoved
			s.ChannelsRemoved, s.BundlesRemoved = oldChannels, oldBundles
		}
		if f.Category == CategoryCatalog && f.Bundle != "" && f.Channel == "" && f.Kind != BundleAdded && f.Kind != BundleRemoved {
			changedBundles[f.Bundle] = true
		}
		if f.Category != CategoryValidation && f.Channel != "" && op != nil && op.channels[f.Channel] != nil && np != nil && np.channels[f.Channel] != nil {
			changedChannels[f.Channel] = true
			if f.Kind == HeadChanged || f.Kind == HeadMovedBackwards {
				movedHeads[f.Channel] = true
			}
		}
	}
	s.BundlesChanged, s.ChannelsChanged, s.HeadsMoved = len(changedBundles), len(changedChannels), len(movedHeads)
	if s.Status == StatusUnchanged && len(findings) > 0 {
		s.Status = StatusChanged
	}
	return s
}

// ByPackage groups findings by package, packages sorted by name.
func ByPackage(fs []Finding) (names []string, groups map[string][]Finding) {
	groups = map[string][]Finding{}
	for _, f := range fs {
		if _, ok := groups[f.Package]; !ok {
			names = append(names, f.Package)
		}
		groups[f.Package] = append(groups[f.Package], f)
	}
	sort.Strings(names)
	return names, groups
}

func sortedCopy(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}
