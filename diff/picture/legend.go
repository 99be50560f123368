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
	keyFinding    = "finding"
	keyIgnored    = "ignored"
	keyV1         = "v1"
)

// legendKeys lists what a legend of the graphs explains: both edge kinds and the head always, the
// rest when the graphs have them.
func legendKeys(graphs ...*Graph) []string {
	has := map[string]bool{keyReplaces: true, keySkips: true, keyHead: true}
	for _, g := range graphs {
		addLegendKeys(has, g)
	}
	var out []string
	for _, k := range []string{keyReplaces, keySkips, keyV1, keyIgnored, keySkipRange, keyHead, keyDefault, keyDeprecated, keyExternal, keyAdded, keyRemoved, keyStranded, keyFinding} {
		if has[k] {
			out = append(out, k)
		}
	}
	return out
}

func addLegendKeys(has map[string]bool, g *Graph) {
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
			has[keySkipRange] = has[keySkipRange] || n.SkipRange != "" || n.OldSkipRange != ""
			has[keyFinding] = has[keyFinding] || len(n.Findings) > 0
			has[string(n.Status)] = true
		}
		for _, e := range ch.Edges {
			has[string(e.Status)] = true
			has[keyIgnored] = has[keyIgnored] || e.Ignored && e.Status != Removed
			has[keyV1] = has[keyV1] || e.Kind == EdgeV1
		}
	}
}

// legendText says in words how the Mermaid and DOT writers draw each key.
var legendText = map[string]string{
	keyReplaces:   "solid arrow: replaces",
	keySkips:      "dotted arrow: skips",
	keySkipRange:  "skipRange: written on the bundle that declares it",
	keyHead:       "bold border: channel head",
	keyDefault:    "(default): the package's default channel",
	keyDeprecated: "(deprecated): deprecated package, channel or bundle",
	keyExternal:   "grey dashed: replaced or skipped, not in the channel",
	keyAdded:      "green: added",
	keyRemoved:    "red: removed",
	keyStranded:   "orange: stranded (users can no longer reach the head)",
	keyFinding:    "red or amber border: a breaking or warning finding names the bundle",
	keyIgnored:    "light grey arrow: an edge OLM v0 never takes (into a skipped bundle, or one off the replaces chain)",
	keyV1:         "violet dashed arrow marked v1: where OLM v1 (a ClusterExtension of the channel) upgrades the users and OLM v0 does not (green/red mark: only in the new/old catalog)",
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
	if n.WasHead {
		notes = append(notes, "old head")
	}
	if n.External {
		notes = append(notes, "not in channel")
	}
	if n.Status != Unchanged && !n.ChannelStatus {
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
