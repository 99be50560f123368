package picture

// Legend keys, in the order legends list them.
const (
	keyReplaces   = "replaces"
	keySkips      = "skips"
	keySkipRange  = "skipRange"
	keyHead       = "head"
	keyDefault    = "default"
	keyDeprecated = "deprecated"
	keyExternal   = "external"
	keyAdded      = "added"
	keyRemoved    = "removed"
	keyStranded   = "stranded"
)

// legendKeys lists what a legend of the graph explains: the three edge kinds and the head always,
// the rest when the graph has them.
func legendKeys(g *Graph) []string {
	has := map[string]bool{keyReplaces: true, keySkips: true, keySkipRange: true, keyHead: true}
	if g.Deprecation != "" {
		has[keyDeprecated] = true
	}
	for _, ch := range g.Channels {
		has[keyDefault] = has[keyDefault] || ch.Default || ch.WasDefault
		has[keyDeprecated] = has[keyDeprecated] || ch.Deprecation != ""
		for _, n := range ch.Nodes {
			has[keyDeprecated] = has[keyDeprecated] || n.Deprecation != ""
			has[keyExternal] = has[keyExternal] || n.External
			has[keyStranded] = has[keyStranded] || n.Stranded
			has[string(n.Status)] = true
		}
		for _, e := range ch.Edges {
			has[string(e.Status)] = true
		}
	}
	var out []string
	for _, k := range []string{keyReplaces, keySkips, keySkipRange, keyHead, keyDefault, keyDeprecated, keyExternal, keyAdded, keyRemoved, keyStranded} {
		if has[k] {
			out = append(out, k)
		}
	}
	return out
}

// legendText says in words how the Mermaid and DOT writers draw each key.
var legendText = map[string]string{
	keyReplaces:   "solid arrow: replaces",
	keySkips:      "dashed arrow: skips",
	keySkipRange:  "dotted arrow: skipRange",
	keyHead:       "bold border: channel head",
	keyDefault:    "(default): the package's default channel",
	keyDeprecated: "(deprecated): deprecated package, channel or bundle",
	keyExternal:   "grey dashed: replaced or skipped, not in the channel",
	keyAdded:      "green: added",
	keyRemoved:    "red: removed",
	keyStranded:   "orange: stranded (users can no longer reach the head)",
}

// channelNotes are the marks of a channel's title: default, deprecated, added or removed.
func channelNotes(ch Channel) []string {
	var notes []string
	if ch.Default {
		notes = append(notes, "default")
	}
	if ch.WasDefault {
		notes = append(notes, "was default")
	}
	if ch.Deprecation != "" {
		notes = append(notes, "deprecated")
	}
	if ch.Status != Unchanged {
		notes = append(notes, string(ch.Status))
	}
	return notes
}

// nodeNotes are the marks of a node: head, not in channel, added or removed, stranded, deprecated.
func nodeNotes(n Node) []string {
	var notes []string
	if n.Head {
		notes = append(notes, "head")
	}
	if n.External {
		notes = append(notes, "not in channel")
	}
	if n.Status != Unchanged {
		notes = append(notes, string(n.Status))
	}
	if n.Stranded {
		notes = append(notes, "stranded")
	}
	if n.Deprecation != "" {
		notes = append(notes, "deprecated")
	}
	return notes
}
