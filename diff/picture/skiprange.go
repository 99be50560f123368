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

// skipRangeText says what a node's skipRange is, and in a comparison what it was.
func skipRangeText(n Node) string {
	switch {
	case !n.SkipRangeChanged && n.SkipRange == "":
		return ""
	case !n.SkipRangeChanged:
		return "skipRange: " + n.SkipRange
	case n.SkipRange == "":
		return "skipRange removed (was " + n.OldSkipRange + ")"
	case n.OldSkipRange == "":
		return "skipRange: " + n.SkipRange + " (added)"
	}
	return "skipRange: " + n.SkipRange + " (was " + n.OldSkipRange + ")"
}
