package model

import (
	"fmt"
	"slices"
	"strings"
)

// Generation is one generation of OLM whose behaviour a finding speaks for.
type Generation string

const (
	// OLMv0 is the catalog operator of operator-lifecycle-manager: Subscriptions, the channel head
	// and the replaces chain, dependencies installed from any catalog of the cluster.
	OLMv0 Generation = "v0"
	// OLMv1 is operator-controller: ClusterExtensions, the highest version among the successors,
	// no dependency resolution.
	OLMv1 Generation = "v1"
)

// Generations are the generations of OLM a command is asked about (validate --olm, diff --olm).
// The zero value is both.
type Generations uint8

const (
	BothOLM   Generations = iota // OLM v0 and OLM v1 (the default)
	OnlyOLMv0                    // --olm v0
	OnlyOLMv1                    // --olm v1
)

// ParseGenerations reads a --olm value: "v0", "v1", "both", or "" (both).
func ParseGenerations(s string) (Generations, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "both":
		return BothOLM, nil
	case "v0":
		return OnlyOLMv0, nil
	case "v1":
		return OnlyOLMv1, nil
	}
	return BothOLM, fmt.Errorf("unknown OLM generation %q: use v0, v1 or both", s)
}

// String is the --olm spelling of the generations asked.
func (g Generations) String() string {
	switch g {
	case OnlyOLMv0:
		return "v0"
	case OnlyOLMv1:
		return "v1"
	}
	return "both"
}

// Includes says whether generation gen is asked about.
func (g Generations) Includes(gen Generation) bool {
	switch g {
	case OnlyOLMv0:
		return gen == OLMv0
	case OnlyOLMv1:
		return gen == OLMv1
	}
	return gen == OLMv0 || gen == OLMv1
}

// Holds says whether the issue is reported when the generations g are asked: an issue that does
// not depend on the generation always is; one that holds for some generations only when one of
// them is asked.
func (g Generations) Holds(i *Issue) bool {
	if len(i.OLM) == 0 {
		return true
	}
	for _, gen := range i.OLM {
		if g.Includes(gen) {
			return true
		}
	}
	return false
}

// ForOLM marks the issue as holding for the given generations only (OLMv0, OLMv1 or both, in
// that order whatever the order given), and returns it. With no generation the issue is one that
// does not depend on the generation.
func (i *Issue) ForOLM(gens ...Generation) *Issue {
	if len(gens) == 0 {
		i.OLM = nil
		return i
	}
	out := make([]Generation, 0, 2)
	for _, gen := range []Generation{OLMv0, OLMv1} {
		if slices.Contains(gens, gen) {
			out = append(out, gen)
		}
	}
	i.OLM = out
	return i
}

// OLMLabel names the generations an issue holds for: "OLM v0", "OLM v1", "OLM v0 and v1", or ""
// when the issue does not depend on the generation (for reports that show it apart from the
// message; Error does not, since the messages name their generation).
func (i *Issue) OLMLabel() string {
	switch len(i.OLM) {
	case 0:
		return ""
	case 1:
		return "OLM " + string(i.OLM[0])
	}
	parts := make([]string, len(i.OLM))
	for n, g := range i.OLM {
		parts[n] = string(g)
	}
	return "OLM " + strings.Join(parts, " and ")
}

// KeepFor returns the issues reported when the generations g are asked (see Generations.Holds).
func (is Issues) KeepFor(g Generations) Issues {
	out := is[:0:0]
	for _, i := range is {
		if g.Holds(i) {
			out = append(out, i)
		}
	}
	return out
}
