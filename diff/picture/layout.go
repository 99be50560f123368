package picture

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/olmcat/olmcat/internal/plural"
)

// Layout of a channel in SVG: one row per bundle, newest at the top; replaces edges are drawn in
// lanes left of the bundles, skips and skipRange edges in lanes to the right. An edge group (a bus)
// is every edge of one kind and status into one bundle: a vertical line in its lane, a horizontal
// line from each source (a dot where lines join) and an arrow into the target.
const (
	rowH       = 30
	nodeH      = 22
	laneGap    = 10
	laneStart  = 14
	charW      = 7.3 // 12px monospace
	tagCharW   = 6.1 // 10px monospace
	tagH       = 14
	nodePad    = 8
	maxNameLen = 64
	// Channels with more bundles than fullRows are cut: in a comparison to the changed bundles and
	// their neighbours, otherwise to the newest maxRows bundles.
	fullRows   = 40
	maxRows    = 120
	contextRow = 2
)

// Vertical offsets of edge ends from a row's centre: departures above, arrivals below, so that
// buses ending and starting at one bundle do not touch, and each kind its own, so that their
// dash patterns do not overlap.
var departOff = map[string]int{EdgeReplaces: -4, EdgeSkips: -3, EdgeSkipRange: -8}
var arriveOff = map[string]int{EdgeReplaces: 4, EdgeSkips: 3, EdgeSkipRange: 8}

type row struct {
	node *Node  // nil for a row standing for bundles not drawn
	gap  string // what a gap row says
}

type bus struct {
	kind       string
	status     Status
	to         int   // row of the target
	from       []int // rows of the sources
	lane       int
	ymin, ymax int
}

type channelLayout struct {
	ch         Channel
	rows       []row
	buses      []bus
	notes      []string
	leftLanes  int
	rightLanes int
	nodeW      int
}

func (l *channelLayout) rowY(i int) int { return i*rowH + rowH/2 }

// layoutChannel cuts the channel to what is drawn, orders rows newest first and gives buses lanes.
func layoutChannel(ch Channel, comparison bool) *channelLayout {
	l := &channelLayout{ch: ch}
	keep := keptNodes(ch, comparison)
	at := map[string]int{}
	hidden, start, hiddenAll := 0, -1, 0
	flush := func(lowest int) {
		hiddenAll += hidden
		if hidden > 0 {
			l.rows = append(l.rows, row{gap: fmt.Sprintf("⋯ %s not drawn (%s … %s)", plural.Of(hidden, "bundle"),
				shortName(ch.Nodes[lowest]), shortName(ch.Nodes[start]))})
		}
		hidden = 0
	}
	for i := len(ch.Nodes) - 1; i >= 0; i-- {
		if !keep[i] {
			if hidden == 0 {
				start = i
			}
			hidden++
			continue
		}
		flush(i + 1)
		at[ch.Nodes[i].Name] = len(l.rows)
		l.rows = append(l.rows, row{node: &ch.Nodes[i]})
	}
	flush(0)
	groups := map[string]*bus{}
	var order []string
	left := 0
	for _, e := range ch.Edges {
		from, ok1 := at[e.From]
		to, ok2 := at[e.To]
		if !ok1 || !ok2 {
			left++
			continue
		}
		key := fmt.Sprintf("%d\x00%s\x00%s", to, e.Kind, e.Status)
		if groups[key] == nil {
			groups[key] = &bus{kind: e.Kind, status: e.Status, to: to}
			order = append(order, key)
		}
		groups[key].from = append(groups[key].from, from)
	}
	switch {
	case hiddenAll > 0 && comparison:
		l.notes = append(l.notes, fmt.Sprintf("Only changed bundles, the head and their neighbours are drawn: %s and %s are not.",
			plural.Of(hiddenAll, "bundle"), plural.Of(left, "edge")))
	case hiddenAll > 0:
		l.notes = append(l.notes, fmt.Sprintf("Only the newest %d bundles are drawn: %s and %s are not.",
			maxRows, plural.Of(hiddenAll, "bundle"), plural.Of(left, "edge")))
	}
	for _, key := range order {
		b := groups[key]
		b.ymin, b.ymax = l.rowY(b.to)+arriveOff[b.kind], l.rowY(b.to)+arriveOff[b.kind]
		for _, f := range b.from {
			y := l.rowY(f) + departOff[b.kind]
			b.ymin, b.ymax = min(b.ymin, y), max(b.ymax, y)
		}
		l.buses = append(l.buses, *b)
	}
	l.leftLanes = assignLanes(l.buses, func(b *bus) bool { return b.kind == EdgeReplaces })
	l.rightLanes = assignLanes(l.buses, func(b *bus) bool { return b.kind != EdgeReplaces })
	for _, r := range l.rows {
		if r.node != nil {
			l.nodeW = max(l.nodeW, nodeWidth(*r.node))
		}
	}
	l.nodeW = max(l.nodeW, 160)
	return l
}

// assignLanes gives each bus of one side the lane nearest the bundles that is free over its span,
// shorter buses first, and returns how many lanes the side uses.
func assignLanes(buses []bus, side func(*bus) bool) int {
	var idx []int
	for i := range buses {
		if side(&buses[i]) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := buses[idx[a]], buses[idx[b]]
		if x.ymax-x.ymin != y.ymax-y.ymin {
			return x.ymax-x.ymin < y.ymax-y.ymin
		}
		return x.ymin < y.ymin
	})
	var lanes [][]*bus
	for _, i := range idx {
		b := &buses[i]
		lane := 0
		for ; lane < len(lanes); lane++ {
			free := true
			for _, o := range lanes[lane] {
				if b.ymin <= o.ymax+1 && o.ymin <= b.ymax+1 {
					free = false
					break
				}
			}
			if free {
				break
			}
		}
		if lane == len(lanes) {
			lanes = append(lanes, nil)
		}
		lanes[lane] = append(lanes[lane], b)
		b.lane = lane
	}
	return len(lanes)
}

// keptNodes picks the nodes drawn. In a comparison of a long channel these are the bundles that
// changed or are the head, the ends of changed edges, and contextRow neighbours of each.
func keptNodes(ch Channel, comparison bool) []bool {
	keep := make([]bool, len(ch.Nodes))
	if len(ch.Nodes) <= fullRows {
		for i := range keep {
			keep[i] = true
		}
		return keep
	}
	if comparison {
		pos := map[string]int{}
		for i, n := range ch.Nodes {
			pos[n.Name] = i
		}
		var marked []int
		for i, n := range ch.Nodes {
			if n.Status != Unchanged || n.Stranded || n.Head {
				marked = append(marked, i)
			}
		}
		for _, e := range ch.Edges {
			if e.Status != Unchanged {
				marked = append(marked, pos[e.From], pos[e.To])
			}
		}
		for _, i := range marked {
			for j := max(0, i-contextRow); j <= min(len(keep)-1, i+contextRow); j++ {
				keep[j] = true
			}
		}
	}
	kept := 0
	for i := len(keep) - 1; i >= 0; i-- {
		if !comparison {
			keep[i] = true
		}
		if keep[i] {
			kept++
			keep[i] = kept <= maxRows
		}
	}
	return keep
}

// label is what a node's box says: its name, and its version when the name does not carry it.
func label(n Node) string {
	s := n.Name
	if utf8.RuneCountInString(s) > maxNameLen {
		s = string([]rune(s)[:maxNameLen-1]) + "…"
	}
	if n.Version != "" && !strings.Contains(n.Name, n.Version) {
		s += " (" + n.Version + ")"
	}
	return s
}

func shortName(n Node) string {
	if n.Version != "" {
		return n.Version
	}
	return n.Name
}

func textWidth(s string, perChar float64) int {
	return int(float64(utf8.RuneCountInString(s))*perChar + 0.999)
}

func tagWidth(s string) int { return textWidth(s, tagCharW) + 10 }

func nodeWidth(n Node) int {
	w := nodePad + textWidth(label(n), charW) + nodePad
	for _, t := range nodeNotes(n) {
		w += tagWidth(t) + 4
	}
	return w
}
