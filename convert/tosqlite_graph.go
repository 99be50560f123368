package convert

import (
	"fmt"
	"sort"

	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite"
)

// entryRowsBuilder builds one channel's channel_entry rows the way opm's replaces-mode loader
// (addPackageChannels) does, from the FBC entries' per-channel replaces and skips:
//
//	row(head, depth 0); cur = head; d = 1
//	for each skip s of cur: row(s, d) = S; row(cur, d) = T; T.replaces = S; d++
//	r = cur.replaces; stop if empty
//	row(r, d) = R; prev.replaces = R; stop if r is not an entry (dangling tail)
//	cur = r; prev = R; d++
//
// That walk only writes the edges of entries on the replaces chain from the head. An entry
// reachable only through a skip gets a row (the skipped one) but its own edges would be lost, as
// they are when opm's loader builds the same channel from bundles. They are added after the walk as
// synthetic pairs, the only form that does not disturb the chain; opm reads every edge off the
// chain as a skip. Its skips therefore come back unchanged. Its replaces comes back as a skip
// (reported as a change), which makes the replaced entry a skipped one; where that would change
// opm's reading of the channel (the replaces chain stops at a skipped entry, so the entries below
// it would be stranded, and OLM ignores a skipped bundle's own upgrade edges), the edge is not
// written and reported as lost instead.
type entryRowsBuilder struct {
	rows []sqlite.EntryOut
}

func (l *entryRowsBuilder) add(name string, depth int) int {
	l.rows = append(l.rows, sqlite.EntryOut{Bundle: name, Depth: depth, Replaces: sqlite.NoReplaces})
	return len(l.rows) - 1
}

// pair writes the two rows by which opm encodes "from can upgrade from to" off the chain.
func (l *entryRowsBuilder) pair(from, to string, depth int) {
	target := l.add(to, depth)
	source := l.add(from, depth)
	l.rows[source].Replaces = target
}

// sqliteChannelEntries returns the channel's rows. head must be an entry of the channel; a cycle in
// replaces (which validation rejects) is an error rather than a loop.
func sqliteChannelEntries(ch *model.Channel, head string, r *SQLiteReport) ([]sqlite.EntryOut, error) {
	l := &entryRowsBuilder{}
	onChain := map[string]bool{head: true}
	cur, curRow := head, l.add(head, 0)
	depth := 1
	for {
		e := ch.Entries[cur]
		for _, s := range e.Skips {
			l.pair(cur, s, depth)
			depth++
		}
		if e.Replaces == "" {
			break
		}
		next := l.add(e.Replaces, depth)
		l.rows[curRow].Replaces = next
		if _, ok := ch.Entries[e.Replaces]; !ok {
			break // dangling tail: allowed, the row names a bundle that is not in the channel
		}
		if onChain[e.Replaces] {
			return nil, fmt.Errorf("replaces chain from %q runs in a cycle at %q", head, e.Replaces)
		}
		onChain[e.Replaces] = true
		cur, curRow = e.Replaces, next
		depth++
	}

	hasRow := map[string]bool{}
	for _, row := range l.rows {
		hasRow[row.Bundle] = true
	}
	skipped := map[string]bool{}
	for _, e := range ch.Entries {
		for _, s := range e.Skips {
			skipped[s] = true
		}
	}
	for _, e := range ch.SortedEntries() {
		if onChain[e.Name] {
			continue
		}
		if e.Replaces != "" {
			at := Finding{Package: ch.Package.Name, Channel: ch.Name, Bundle: e.Name}
			if safeSkipTarget(ch, skipped, e.Replaces) {
				l.pair(e.Name, e.Replaces, depth)
				depth++
				at.Kind, at.Detail = KindReplacesAsSkip, fmt.Sprintf("the entry is reachable only through a skip, so its replaces %q cannot be on the index.db's replaces chain; it is stored as an upgrade edge that reads back as a skip", e.Replaces)
				r.change(at)
			} else {
				at.Kind, at.Detail = KindReplacesDropped, fmt.Sprintf("the entry is reachable only through a skip, so its replaces %q cannot be on the index.db's replaces chain, and storing it as a skip would make %q a skipped entry whose own upgrade edges opm and OLM then ignore; opm's loader drops this edge too", e.Replaces, e.Replaces)
				r.loss(at)
			}
		}
		for _, s := range e.Skips {
			l.pair(e.Name, s, depth)
			depth++
		}
		if !hasRow[e.Name] && e.Replaces == "" && len(e.Skips) == 0 {
			// Neither reachable nor skipped (validation calls this stranded): a row of its own keeps
			// it a member of the channel.
			l.add(e.Name, depth)
			depth++
		}
	}
	return l.rows, nil
}

// safeSkipTarget tells whether name may become the target of a skip without changing how opm reads the
// channel: it is no entry of the channel, or already skipped, or an entry without edges of its own.
func safeSkipTarget(ch *model.Channel, skipped map[string]bool, name string) bool {
	e, ok := ch.Entries[name]
	return !ok || skipped[name] || (e.Replaces == "" && len(e.Skips) == 0)
}

// channelsWithEntry lists, sorted, the channels of pkg with an entry for the bundle.
func channelsWithEntry(pkg *model.Package, bundle string) []*model.Channel {
	var out []*model.Channel
	for _, ch := range pkg.Channels {
		if _, ok := ch.Entries[bundle]; ok {
			out = append(out, ch)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
