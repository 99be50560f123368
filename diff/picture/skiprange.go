package picture

import (
	"github.com/blang/semver/v4"
)

// covered lists the nodes, by index, whose version is in skipRange, the node that declares it
// (self) left out; ok is false when the range does not parse, and OLM ignores it.
func covered(nodes []Node, skipRange, self string) (in []int, ok bool) {
	inRange, err := semver.ParseRange(skipRange)
	if err != nil {
		return nil, false
	}
	for i, n := range nodes {
		if n.Name == self {
			continue
		}
		if v := versionKey(n); v != nil && inRange(*v) {
			in = append(in, i)
		}
	}
	return in, true
}

// skipRangeText says what a node's skipRange is, and in a comparison what it was; a range that
// does not parse is said to be ignored, as OLM ignores it.
func skipRangeText(n Node) string {
	var text string
	switch {
	case !n.SkipRangeChanged && n.SkipRange == "":
		return ""
	case !n.SkipRangeChanged:
		text = "skipRange: " + n.SkipRange
	case n.SkipRange == "":
		return "skipRange removed (was " + n.OldSkipRange + ")"
	case n.OldSkipRange == "":
		text = "skipRange: " + n.SkipRange + " (added)"
	default:
		text = "skipRange: " + n.SkipRange + " (was " + n.OldSkipRange + ")"
	}
	if _, err := semver.ParseRange(n.SkipRange); err != nil {
		text += " (not a range: OLM ignores it)"
	}
	return text
}
