// Package ops edits catalogs: adding rendered bundles to channels, removing bundles (and stitching
// the graph back together), channels and packages, rebuilding channel graphs from versions
// (replaces, semver and semver-skippatch modes), writing deprecations, and describing packages
// for `inspect`.
//
// Every operation works on a serialized *fbc.Catalog, changing only the blobs it must, so that
// untouched blobs keep their entry order and unknown fields; the semantic model (fbc/model) is
// used to read the graph and to check the result. An operation that fails returns an error and
// leaves the catalog as it was.
package ops

import (
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
)

// Mode says how a channel's upgrade graph is built.
type Mode string

const (
	// ModeReplaces follows each bundle's replaces/skips (a new bundle replaces the channel head).
	ModeReplaces Mode = "replaces"
	// ModeSemver chains every version to the next higher one.
	ModeSemver Mode = "semver"
	// ModeSemverSkipPatch makes the latest patch of each major.minor replace the previous minor's
	// latest patch and skip the older patches of its own minor.
	ModeSemverSkipPatch Mode = "semver-skippatch"
)

// Modes lists the modes, for help texts.
var Modes = []Mode{ModeReplaces, ModeSemver, ModeSemverSkipPatch}

// ParseMode accepts replaces, semver or semver-skippatch.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown graph mode %q: use one of %s", s, strings.Join(names, ", "))
}

// IsSemver reports whether the mode derives the graph from versions.
func (m Mode) IsSemver() bool { return m == ModeSemver || m == ModeSemverSkipPatch }

// compareVersions orders versions by semver precedence and, when that ties, by build metadata
// compared like pre-release identifiers (as opm's semver modes do), so 1.0.0+2 is newer than 1.0.0+1.
func compareVersions(a, b semver.Version) int {
	if c := a.Compare(b); c != 0 {
		return c
	}
	return compareBuild(a.Build, b.Build)
}

func compareBuild(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return -1
	case len(b) == 0:
		return 1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		pa, errA := semver.NewPRVersion(a[i])
		pb, errB := semver.NewPRVersion(b[i])
		if errA != nil || errB != nil {
			if c := strings.Compare(a[i], b[i]); c != 0 {
				return c
			}
			continue
		}
		if c := pa.Compare(pb); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}
