package filter

import "github.com/olmcat/olmcat/fbc/model"

// keepPinned is the selection of a range whose minVersion and maxVersion are the same version:
// the entries of that version alone, as oc-mirror v1 keeps them (its range takes the bundles in
// range and no head above them). catalog-filter, which oc-mirror v2 uses, counts from the head
// down the replaces chain, so that a pinned version the head skips (hulft 10.5.0: 10.6.0 replaces
// 10.3.0 and skips 10.5.0) keeps the head 10.6.0 too, above maxVersion, and mirrors its images;
// a channel of the pinned version alone is valid and is what was asked for. nil when the range
// is not pinned, when no entry has the version (the range then keeps nothing either), or when
// the entries of the version would not make one channel head (then the range is kept as
// catalog-filter keeps it).
func keepPinned(ch *model.Channel, rng Range) map[string]bool {
	if !rng.pinned {
		return nil
	}
	kept := map[string]bool{}
	for name, e := range ch.Entries {
		if e.Bundle != nil && e.Bundle.VersionErr == nil && rng.Contains(e.Bundle.Version) {
			kept[name] = true
		}
	}
	if len(kept) == 0 || len(model.NewUpgradeGraph(subChannel(ch, kept)).Heads()) != 1 {
		return nil
	}
	return kept
}
