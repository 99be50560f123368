package picture

import (
	"sort"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc/model"
)

// SortNodes puts nodes in ascending semver order: 0.1.2 before 0.1.10. A node without a version of
// its own is placed by the version its name carries (name.v1.2.3); nodes with neither come last, by
// name, and equal versions are ordered by name.
func SortNodes(nodes []Node) {
	keys := make(map[string]*semver.Version, len(nodes))
	for _, n := range nodes {
		keys[n.Name] = versionKey(n)
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		a, b := keys[nodes[i].Name], keys[nodes[j].Name]
		switch {
		case a != nil && b != nil:
			if c := a.Compare(*b); c != 0 {
				return c < 0
			}
		case a != nil || b != nil:
			return a != nil
		}
		return nodes[i].Name < nodes[j].Name
	})
}

func versionKey(n Node) *semver.Version {
	if n.Version != "" {
		if v, err := semver.ParseTolerant(n.Version); err == nil {
			return &v
		}
	}
	name := n.Name
	for i := 0; i+1 < len(name); i++ {
		if (name[i] == 'v' || name[i] == 'V') && isDigit(name[i+1]) && (i == 0 || name[i-1] == '.' || name[i-1] == '-' || name[i-1] == '_') {
			if v, err := semver.ParseTolerant(name[i+1:]); err == nil {
				return &v
			}
		}
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// sortEdges orders edges by target, then source, in node order, then by kind.
func sortEdges(nodes []Node, edges []Edge) {
	pos := make(map[string]int, len(nodes))
	for i, n := range nodes {
		pos[n.Name] = i
	}
	kinds := map[string]int{EdgeReplaces: 0, EdgeSkips: 1, EdgeV1: 2}
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		switch {
		case pos[a.To] != pos[b.To]:
			return pos[a.To] < pos[b.To]
		case pos[a.From] != pos[b.From]:
			return pos[a.From] < pos[b.From]
		}
		return kinds[a.Kind] < kinds[b.Kind]
	})
}

// Packages lists the package names of the models, sorted and without repeats.
func Packages(models ...*model.Model) []string {
	set := map[string]bool{}
	for _, m := range models {
		for name := range m.Packages {
			set[name] = true
		}
	}
	return sortedKeys(set)
}

func message(d *model.Deprecation) string {
	if d == nil {
		return ""
	}
	if d.Message == "" {
		return "deprecated"
	}
	return d.Message
}

func nodesByName(c Channel) map[string]Node {
	out := make(map[string]Node, len(c.Nodes))
	for _, n := range c.Nodes {
		out[n.Name] = n
	}
	return out
}

func unionNames(a, b map[string]Node) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	return sortedKeys(set)
}

func sortedCopy(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
