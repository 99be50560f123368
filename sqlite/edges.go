package sqlite

import (
	"cmp"
	"database/sql"
	"math"
	"slices"
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

// chainBuilder collects (entry, replaces, depth) during the channel_entry scan, which reads the
// entries in entry_id order. It keeps two integers a row, in slices rather than maps: a map costs
// several times that, and the scan covers the whole table.
type chainBuilder struct {
	ids      []int64 // every entry, ascending
	replaces []int64 // replaces of ids[i]; noReplaces when NULL
	atTip    []int64
	tip      int64
	any      bool
	sorted   bool // ids arrived in ascending order
}

// noReplaces stands for a NULL replaces. SQLite never assigns a negative rowid itself; only a
// hand-written entry_id of exactly math.MinInt64, replaced by another entry, would lose that edge.
const noReplaces = math.MinInt64

func newChainBuilder() *chainBuilder {
	return &chainBuilder{tip: math.MaxInt64, sorted: true}
}

func (c *chainBuilder) add(id int64, replaces, depth sql.NullInt64) {
	if n := len(c.ids); n > 0 && id <= c.ids[n-1] {
		c.sorted = false
	}
	c.ids = append(c.ids, id)
	if replaces.Valid && replaces.Int64 != noReplaces {
		c.replaces = append(c.replaces, replaces.Int64)
	} else {
		c.replaces = append(c.replaces, noReplaces)
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

// chainIndex is the set of chain entries (step 2 above). Entry ids are rowids, dense in a file
// opm wrote: then the set is a bitmap over the ids' span, a bit per entry; otherwise the sorted ids
// with a flag each.
type chainIndex struct {
	base    int64
	bits    []uint64 // bit id-base set: on the chain (dense ids)
	ids     []int64  // sparse ids, ascending
	onChain []bool   // onChain[i]: ids[i] is on the chain
}

func (c *chainBuilder) build() *chainIndex {
	if !c.sorted {
		// The scan asks for entry_id order; should a file yield another, sort the pairs together.
		order := make([]int, len(c.ids))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(c.ids[a], c.ids[b]) })
		ids, reps := make([]int64, len(order)), make([]int64, len(order))
		for i, j := range order {
			ids[i], reps[i] = c.ids[j], c.replaces[j]
		}
		c.ids, c.replaces = ids, reps
	}
	onChain := make([]bool, len(c.ids))
	if c.any {
		queue := append([]int64(nil), c.atTip...)
		for len(queue) > 0 {
			id := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			i, ok := slices.BinarySearch(c.ids, id)
			if !ok || onChain[i] {
				continue // replaces points at no entry (the chain ends there), or seen
			}
			onChain[i] = true
			if next := c.replaces[i]; next != noReplaces {
				queue = append(queue, next)
			}
		}
	}
	n := len(c.ids)
	if n == 0 {
		return &chainIndex{}
	}
	if span := uint64(c.ids[n-1]) - uint64(c.ids[0]); span < uint64(4*n+1024) {
		idx := &chainIndex{base: c.ids[0], bits: make([]uint64, span/64+1)}
		for i, on := range onChain {
			if on {
				off := uint64(c.ids[i] - idx.base)
				idx.bits[off/64] |= 1 << (off % 64)
			}
		}
		return idx
	}
	return &chainIndex{ids: slices.Clip(c.ids), onChain: onChain}
}

func (c *chainIndex) has(id int64) bool {
	if c.bits != nil {
		off := uint64(id) - uint64(c.base)
		return id >= c.base && off/64 < uint64(len(c.bits)) && c.bits[off/64]&(1<<(off%64)) != 0
	}
	i, ok := slices.BinarySearch(c.ids, id)
	return ok && c.onChain[i]
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
