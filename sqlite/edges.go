package sqlite

import (
	"database/sql"
	"math"
)

// opm's ListBundles query (listBundlesQuery in operator-registry v1.72) does not read the
// operatorbundle replaces/skips columns; it rebuilds every bundle's edges per channel from
// channel_entry:
//
//  1. tip = MIN(depth) over the whole channel_entry table, one number for the whole file;
//  2. the chain entries are every entry at depth tip plus, recursively, the entry each chain entry's
//     replaces column points to;
//  3. per (bundle, package, channel): replaces = the greatest bundle name among the targets of the
//     group's chain entries;
//  4. skips = the targets of the group's entries that are not chain entries, in the order SQLite's
//     group_concat met them, which is entry_id order.
//
// Entries whose bundle has no operatorbundle row produce no row. The same computation in Go, per
// package, is what Served holds.

// chainBuilder collects (entry, replaces, depth) during the channel_entry scan.
type chainBuilder struct {
	replaces map[int64]int64
	atTip    []int64
	tip      int64
	any      bool
}

func newChainBuilder() *chainBuilder {
	return &chainBuilder{replaces: map[int64]int64{}, tip: math.MaxInt64}
}

func (c *chainBuilder) add(id int64, replaces, depth sql.NullInt64) {
	if replaces.Valid {
		c.replaces[id] = replaces.Int64
	}
	if !depth.Valid {
		return
	}
	c.any = true
	if depth.Int64 < c.tip {
		c.tip = depth.Int64
		c.atTip = c.atTip[:0]
	}
	if depth.Int64 == c.tip {
		c.atTip = append(c.atTip, id)
	}
}

// chainIndex is the set of chain entries (step 2 above).
type chainIndex struct {
	onChain map[int64]struct{}
}

func (c *chainBuilder) build() *chainIndex {
	idx := &chainIndex{onChain: map[int64]struct{}{}}
	if !c.any {
		return idx
	}
	queue := append([]int64(nil), c.atTip...)
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if _, seen := idx.onChain[id]; seen {
			continue
		}
		idx.onChain[id] = struct{}{}
		if next, ok := c.replaces[id]; ok {
			queue = append(queue, next)
		}
	}
	return idx
}

func (c *chainIndex) has(id int64) bool {
	_, ok := c.onChain[id]
	return ok
}

// servedBundles computes ListBundles' rows for one package. targetName resolves an entry_id to its
// bundle name (false when no such entry exists or its name is NULL).
func servedBundles(entries []EntryRow, chain *chainIndex, targetName func(int64) (string, bool), exists func(string) bool) []ServedBundle {
	type key struct{ bundle, channel string }
	index := map[key]int{}
	var out []ServedBundle
	for _, e := range entries {
		k := key{e.Bundle, e.Channel}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, ServedBundle{Bundle: e.Bundle, Channel: e.Channel, Exists: exists(e.Bundle)})
		}
		if !e.Replaces.Valid {
			continue
		}
		target, ok := targetName(e.Replaces.Int64)
		if !ok {
			continue
		}
		if chain.has(e.ID) {
			if target > out[i].Replaces {
				out[i].Replaces = target
			}
			continue
		}
		out[i].Skips = append(out[i].Skips, target)
	}
	return out
}
