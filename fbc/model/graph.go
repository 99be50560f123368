package model

import (
	"fmt"
	"sort"
	"strings"
)

// Heads returns the entries that no other entry of the channel replaces or skips, sorted by name.
// A valid channel has exactly one.
func (c *Channel) Heads() []string {
	incoming := make(map[string]bool, len(c.Entries))
	for _, e := range c.Entries {
		if e.Replaces != "" {
			incoming[e.Replaces] = true
		}
		for _, s := range e.Skips {
			incoming[s] = true
		}
	}
	var heads []string
	for name := range c.Entries {
		if !incoming[name] {
			heads = append(heads, name)
		}
	}
	sort.Strings(heads)
	return heads
}

// Head returns the channel head, with opm's errors when there is none or more than one.
func (c *Channel) Head() (*Entry, error) {
	heads := c.Heads()
	switch len(heads) {
	case 0:
		return nil, fmt.Errorf("no channel head found in graph")
	case 1:
		return c.Entries[heads[0]], nil
	default:
		return nil, fmt.Errorf("multiple channel heads found in graph: %s", strings.Join(heads, ", "))
	}
}

// ReplacesChain follows replaces from the head. It stops at a name that is not an entry of the
// channel (a dangling tail, which is allowed) and reports a cycle as the path that closes it.
func (c *Channel) ReplacesChain(head string) (chain []string, cycle []string) {
	seen := map[string]int{}
	cur := head
	for {
		if i, ok := seen[cur]; ok {
			return chain, append(append([]string(nil), chain[i:]...), cur)
		}
		e, ok := c.Entries[cur]
		if !ok {
			return chain, nil
		}
		seen[cur] = len(chain)
		chain = append(chain, cur)
		if e.Replaces == "" {
			return chain, nil
		}
		cur = e.Replaces
	}
}

// Stranded returns the entries that are neither on the replaces chain from the head nor skipped by
// any entry of the channel: opm's rule, which installed users of those bundles cannot leave. Like
// opm, the chain stops at a replaces target that some entry skips (OLM ignores that edge).
func (c *Channel) Stranded(head string) []string {
	skipped := map[string]bool{}
	for _, e := range c.Entries {
		for _, s := range e.Skips {
			skipped[s] = true
		}
	}
	onChain := map[string]bool{head: true}
	for cur := c.Entries[head]; cur != nil && cur.Replaces != "" && !skipped[cur.Replaces] && !onChain[cur.Replaces]; cur = c.Entries[cur.Replaces] {
		onChain[cur.Replaces] = true
	}
	var out []string
	for name := range c.Entries {
		if !onChain[name] && !skipped[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Cycles returns the cycles of the graph made by replaces and skips edges (each as a path that
// starts and ends at the same entry, rotated to start at its smallest name), sorted.
func (c *Channel) Cycles() [][]string {
	next := map[string][]string{}
	for _, e := range c.Entries {
		if e.Replaces != "" {
			if _, ok := c.Entries[e.Replaces]; ok {
				next[e.Name] = append(next[e.Name], e.Replaces)
			}
		}
		for _, s := range e.Skips {
			if _, ok := c.Entries[s]; ok {
				next[e.Name] = append(next[e.Name], s)
			}
		}
	}
	for k := range next {
		sort.Strings(next[k])
	}
	// Tarjan's strongly connected components: every component with more than one node, or a
	// self-loop, holds a cycle; one representative path per component is reported.
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var comps [][]string
	counter := 0
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = counter, counter
		counter++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range next[v] {
			if _, seen := index[w]; !seen {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			comps = append(comps, comp)
		}
	}
	names := make([]string, 0, len(c.Entries))
	for n := range c.Entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, seen := index[n]; !seen {
			strong(n)
		}
	}
	var cycles [][]string
	for _, comp := range comps {
		inComp := map[string]bool{}
		for _, n := range comp {
			inComp[n] = true
		}
		sort.Strings(comp)
		start := comp[0]
		if len(comp) == 1 && !contains(next[start], start) {
			continue
		}
		cycles = append(cycles, cyclePath(next, inComp, start))
	}
	sort.Slice(cycles, func(i, j int) bool { return strings.Join(cycles[i], ",") < strings.Join(cycles[j], ",") })
	return cycles
}

// cyclePath finds a path from start back to start inside one strongly connected component.
func cyclePath(next map[string][]string, inComp map[string]bool, start string) []string {
	prev := map[string]string{}
	queue := []string{start}
	visited := map[string]bool{}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, w := range next[cur] {
			if !inComp[w] {
				continue
			}
			if w == start {
				path := []string{start}
				for n := cur; n != start; n = prev[n] {
					path = append(path, n)
				}
				// path is start, then the nodes back to start's successor; reverse the tail
				for i, j := 1, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return append(path, start)
			}
			if !visited[w] {
				visited[w] = true
				prev[w] = cur
				queue = append(queue, w)
			}
		}
	}
	return []string{start, start}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
