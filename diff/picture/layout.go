package picture

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// Layout of a channel in SVG: one row per bundle, newest at the top; replaces edges are drawn in
// lanes left of the bundles, skips edges in lanes to the right. An edge group (a bus) is every edge
// of one kind and status into one bundle: a vertical line in its lane, a horizontal line from each
// source (a dot where lines join) and an arrow into the target. Right of the skips, a skipRange is
// a band over the versions it covers, joined to the bundle that declares it; right of the bands,
// each row says in words its skipRange and the findings that name its bundle.
const (
	rowH       = 30
	nodeH      = 22
	laneGap    = 10
	laneStart  = 14
	bandStart  = 16 // from the last skips lane to the first skipRange band
	bandGap    = 12
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
var departOff = map[string]int{EdgeReplaces: -4, EdgeSkips: -3, EdgeV1: -2}
var arriveOff = map[string]int{EdgeReplaces: 4, EdgeSkips: 3, EdgeV1: 2}

// bandArrive is where a skipRange's arrow meets the bundle that declares it.
const bandArrive = 7

type row struct {
	node *Node  // nil for a row standing for bundles not drawn
	gap  string // what a gap row says
}

type bus struct {
	kind       string
	status     Status
	ignored    bool  // OLM never takes these edges (Edge.Ignored)
	to         int   // row of the target
	from       []int // rows of the sources
	lane       int
	ymin, ymax int
}

// band is one skipRange: the rows of the versions it covers and the row of the bundle declaring it.
type band struct {
	row         int // the declaring bundle
	top, bottom int // first and last row covered (rows run newest first); -1 when none is drawn
	covers      int // versions covered in the channel, drawn or not
	status      Status
	lane        int
	ymin, ymax  int
}

type channelLayout struct {
	ch         Channel
	rows       []row
	buses      []bus
	bands      []band
	notes      []string
	leftLanes  int
	rightLanes int
	bandLanes  int
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
		key := fmt.Sprintf("%d\x00%s\x00%s\x00%v", to, e.Kind, e.Status, e.Ignored)
		if groups[key] == nil {
			groups[key] = &bus{kind: e.Kind, status: e.Status, ignored: e.Ignored, to: to}
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
	l.leftLanes = assignBusLanes(l.buses, EdgeReplaces)
	l.rightLanes = assignBusLanes(l.buses, EdgeSkips, EdgeV1)
	l.bands = skipRangeBands(ch, at, l.rowY)
	spans := make([][2]int, len(l.bands))
	for i, b := range l.bands {
		spans[i] = [2]int{b.ymin, b.ymax}
	}
	var lanes []int
	lanes, l.bandLanes = assignLanes(spans)
	for i := range l.bands {
		l.bands[i].lane = lanes[i]
	}
	for _, r := range l.rows {
		if r.node != nil {
			l.nodeW = max(l.nodeW, nodeWidth(*r.node))
		}
	}
	l.nodeW = max(l.nodeW, 160)
	return l
}

func assignBusLanes(buses []bus, kinds ...string) int {
	var idx []int
	var spans [][2]int
	for i, b := range buses {
		if slices.Contains(kinds, b.kind) {
			idx = append(idx, i)
			spans = append(spans, [2]int{b.ymin, b.ymax})
		}
	}
	lanes, n := assignLanes(spans)
	for j, i := range idx {
		buses[i].lane = lanes[j]
	}
	return n
}

// assignLanes gives each vertical span the lane nearest the bundles that is free over it, shorter
// spans first, and returns the lanes and how many there are.
func assignLanes(spans [][2]int) ([]int, int) {
	idx := make([]int, len(spans))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := spans[idx[a]], spans[idx[b]]
		if x[1]-x[0] != y[1]-y[0] {
			return x[1]-x[0] < y[1]-y[0]
		}
		return x[0] < y[0]
	})
	out := make([]int, len(spans))
	var lanes [][][2]int
	for _, i := range idx {
		s := spans[i]
		lane := 0
		for ; lane < len(lanes); lane++ {
			free := true
			for _, o := range lanes[lane] {
				if s[0] <= o[1]+1 && o[0] <= s[1]+1 {
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
		lanes[lane] = append(lanes[lane], s)
		out[i] = lane
	}
	return out, len(lanes)
}

// skipRangeBands lays out the skipRange of every drawn bundle, and in a comparison the old range
// of a bundle whose range changed.
func skipRangeBands(ch Channel, at map[string]int, rowY func(int) int) []band {
	var out []band
	add := func(n Node, skipRange string, status Status) {
		row := at[n.Name]
		cov, _ := covered(ch.Nodes, skipRange, n.Name)
		b := band{row: row, top: -1, bottom: -1, covers: len(cov), status: status}
		for _, i := range cov {
			if r, ok := at[ch.Nodes[i].Name]; ok {
				if b.top < 0 || r < b.top {
					b.top = r
				}
				b.bottom = max(b.bottom, r)
			}
		}
		y := rowY(row) + bandArrive
		b.ymin, b.ymax = y, y
		if b.top >= 0 {
			b.ymin, b.ymax = min(y, rowY(b.top)-nodeH/2), max(y, rowY(b.bottom)+nodeH/2)
		}
		out = append(out, b)
	}
	for i := len(ch.Nodes) - 1; i >= 0; i-- {
		n := ch.Nodes[i]
		if _, drawn := at[n.Name]; !drawn {
			continue
		}
		status := n.Status
		if n.SkipRangeChanged && status == Unchanged {
			status = Added
		}
		if n.SkipRange != "" {
			add(n, n.SkipRange, status)
		}
		if n.SkipRangeChanged && n.OldSkipRange != "" {
			add(n, n.OldSkipRange, Removed)
		}
	}
	return out
}

// keptNodes picks the nodes drawn. In a comparison of a long channel these are the bundles that
// changed, are or were the head, or that a breaking or warning finding names, the ends of changed
// edges, and contextRow neighbours of each.
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
			if n.Status != Unchanged || n.Stranded || n.Head || n.WasHead || n.SkipRangeChanged || n.Worst().Rank() >= diff.Warning.Rank() {
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

// textWidth is the width of s as the SVG shows it: with its control characters escaped (esc).
func textWidth(s string, perChar float64) int {
	return int(float64(utf8.RuneCountInString(textsafe.Terminal(s)))*perChar + 0.999)
}

func tagWidth(s string) int { return textWidth(s, tagCharW) + 10 }

func nodeWidth(n Node) int {
	w := nodePad + textWidth(label(n), charW) + nodePad
	for _, t := range nodeNotes(n) {
		w += tagWidth(t) + 4
	}
	return w
}
