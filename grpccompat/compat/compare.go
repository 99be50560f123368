package compat

import (
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
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
	diff    string   // VerdictDifferent: what differs, after normalization
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
	return comparison{verdict: VerdictDifferent, applied: applied, diff: truncateText(diffAnswers(left.ans, right.ans, p.codesOnly), c.maxDiff)}
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

var protoOpts = cmp.Options{protocmp.Transform()}

// maxListed bounds the stream elements a diff lists one by one.
const maxListed = 20

// diffAnswers describes how two answers differ: the status, then the messages (-left +right).
// Stream messages are matched by identity (package/channel/bundle, entry fields, name), so a
// missing bundle shows as one line, not as a shifted list.
func diffAnswers(l, r *Answer, codesOnly bool) string {
	var b strings.Builder
	if l.Code != r.Code || (!codesOnly && l.Message != r.Message) {
		fmt.Fprintf(&b, "status: -%s +%s\n", statusText(l), statusText(r))
	}
	if !l.stream && !r.stream {
		if len(l.Messages) == 1 && len(r.Messages) == 1 {
			b.WriteString(cmp.Diff(l.Messages[0], r.Messages[0], protoOpts))
		} else if len(l.Messages)+len(r.Messages) > 0 {
			fmt.Fprintf(&b, "response: -%s +%s\n", presence(l), presence(r))
		}
		return b.String()
	}
	lk, rk := indexByKey(l.Messages), indexByKey(r.Messages)
	listed := 0
	note := func(format string, args ...any) {
		if listed < maxListed {
			fmt.Fprintf(&b, format, args...)
		}
		listed++
	}
	for _, k := range lk.order {
		lm, rm := lk.byKey[k], rk.byKey[k]
		switch {
		case len(rm) == 0:
			note("- only left: %s\n", describeKey(lm[0]))
		case len(lm) != len(rm):
			note("~ %s: %d messages left, %d right\n", describeKey(lm[0]), len(lm), len(rm))
		default:
			for i := range lm {
				switch {
				case proto.Equal(lm[i], rm[i]):
				case listed >= maxListed:
					listed++ // counted, not described: cmp.Diff is costly on thousands of bundles
				default:
					note("~ %s:\n%s", describeKey(lm[i]), cmp.Diff(lm[i], rm[i], protoOpts))
				}
			}
		}
	}
	for _, k := range rk.order {
		if len(lk.byKey[k]) == 0 {
			note("+ only right: %s\n", describeKey(rk.byKey[k][0]))
		}
	}
	if listed > maxListed {
		fmt.Fprintf(&b, "... and %d more differing messages\n", listed-maxListed)
	}
	if listed == 0 && len(l.Messages) == len(r.Messages) {
		b.WriteString("same messages in a different order\n")
	}
	return b.String()
}

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

// describeKey names a stream message for a person.
func describeKey(m proto.Message) string {
	k := messageKey(m)
	if k == "" {
		return compactText(m)
	}
	return strings.ReplaceAll(k, "\x00", "/")
}

func compactText(m proto.Message) string {
	b, err := (&Answer{Messages: []proto.Message{m}}).MarshalJSON()
	if err != nil {
		return fmt.Sprint(m)
	}
	return string(b)
}

func statusText(a *Answer) string {
	if a.Message == "" {
		return a.Code.String()
	}
	return fmt.Sprintf("%s %q", a.Code, a.Message)
}

func presence(a *Answer) string {
	if len(a.Messages) == 0 {
		return "(none)"
	}
	return "(a message)"
}

func truncateText(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n... (%d more characters)", len(s)-n)
}
