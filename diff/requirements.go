package diff

import (
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc/model"
)

// headRequirementFindings reports each channel head of the new side (of a channel the old side has:
// new channels have no installed users) that requires a package or an
// API no bundle of the new catalog provides, when the channel's old head did not already lack it
// in the old catalog (model.Provision reads requirements as OLM's resolver does). OLM then upgrades
// the channel's users to that head only on clusters where another catalog provides it.
func headRequirementFindings(pkg string, oldIdx, newIdx *index) []Finding {
	np := newIdx.packages[pkg]
	if np == nil || np.model == nil {
		return nil
	}
	op := oldIdx.packages[pkg]
	if op == nil || op.model == nil {
		return nil // a new package has no installed users
	}
	var out []Finding
	for _, nc := range np.model.SortedChannels() {
		oc := op.model.Channels[nc.Name]
		if oc == nil {
			continue // nor has a new channel
		}
		head := model.NewUpgradeGraph(nc).Head()
		e := nc.Entries[head]
		if e == nil || e.Bundle == nil {
			continue
		}
		had := map[string]bool{}
		if oe := oc.Entries[model.NewUpgradeGraph(oc).Head()]; oe != nil && oe.Bundle != nil {
			for _, u := range oldIdx.provides.Unmet(oe.Bundle) {
				had[u] = true
			}
		}
		var gained []string
		for _, u := range newIdx.provides.Unmet(e.Bundle) {
			if !had[u] {
				gained = append(gained, u)
			}
		}
		if len(gained) == 0 {
			continue
		}
		f := newFinding(HeadRequirementUnmet, pkg, nc.Name, head)
		f.New = strings.Join(gained, " and ")
		f.OLM = ForOLMv0
		f.Message = fmt.Sprintf("the channel head %q requires %s, which no bundle of the new catalog provides: OLM v0 upgrades the channel's users to it only where another catalog of the cluster provides that, and otherwise keeps them on their installed version",
			head, f.New)
		out = append(out, f)
	}
	return out
}
