package compat

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Verdicts of one call.
const (
	VerdictEqual      = "equal"      // the same answers, as received
	VerdictNormalized = "normalized" // the same once the enabled normalizations were applied
	VerdictDifferent  = "different"
	VerdictError      = "error" // a side could not answer (unreachable, timeout, not recorded)
)

// comparison is the outcome of comparing one call.
type comparison struct {
	verdict string
	applied []string // normalizations that changed something
	diff    string   // VerdictDifferent: what differs after normalization, one line each (see diffAnswers)
}

// comparer applies the enabled normalizations and compares.
type comparer struct {
	enabled   []*Normalization
	crossKind bool
	maxDiff   int // characters of diff text kept per call
}

func (c *comparer) compare(call *Call, left, right *side) comparison {
	if answersEqual(left.ans, right.ans, false) {
		return comparison{verdict: VerdictEqual}
	}
	req, _ := call.decodeRequest()
	p := &pair{call: call, req: req, sides: [2]*side{left, right}}
	var applied []string
	for _, n := range c.enabled {
		if n.CrossKind && !c.crossKind {
			continue
		}
		if n.apply(p) {
			applied = append(applied, n.Name)
		}
		if p.decided != "" {
			return comparison{verdict: VerdictNormalized, applied: applied}
		}
	}
	if answersEqual(left.ans, right.ans, p.codesOnly) {
		return comparison{verdict: VerdictNormalized, applied: applied}
	}
	diff := diffAnswers(callLabel(call, req), left.ans, right.ans, p.codesOnly)
	return comparison{verdict: VerdictDifferent, applied: applied, diff: capLines(diff, c.maxDiff)}
}

func answersEqual(l, r *Answer, codesOnly bool) bool {
	if l.Code != r.Code || (!codesOnly && l.Message != r.Message) || len(l.Messages) != len(r.Messages) {
		return false
	}
	for i := range l.Messages {
		if !proto.Equal(l.Messages[i], r.Messages[i]) {
			return false
		}
	}
	return true
}

// maxListed bounds the differing stream messages (ListBundles groups) a diff describes.
const maxListed = 20

type keyIndex struct {
	order []string
	byKey map[string][]proto.Message
}

func indexByKey(ms []proto.Message) keyIndex {
	ix := keyIndex{byKey: map[string][]proto.Message{}}
	for _, m := range ms {
		k := messageKey(m)
		if k == "" {
			k = string(deterministic(m))
		}
		if ix.byKey[k] == nil {
			ix.order = append(ix.order, k)
		}
		ix.byKey[k] = append(ix.byKey[k], m)
	}
	return ix
}

func statusText(a *Answer) string {
	if a.Message == "" {
		return a.Code.String()
	}
	return fmt.Sprintf("%s %q", a.Code, a.Message)
}
