package compat

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/internal/spool"
)

// ListBundles is the one answer as large as the catalog: tens of thousands of bundles per side.
// Holding both streams decoded, and normalizing them as two lists, would make a parity check's
// memory that of two catalogs. Instead each side's stream is kept as wire bytes in a spool (on
// disk beyond a few MB) with its keys, and compared key by key: each (package, channel, bundle)
// group is decoded, normalized and compared as a stream of its own, then dropped. The verdict is
// the one the whole-stream comparison gives, since every normalization of ListBundles acts on
// single bundles or on the order of the stream.

const listBundlesMethod = "api.Registry/ListBundles"

// keyedSpoolMemory is the memory each side's kept stream may use before it goes to disk.
const keyedSpoolMemory = 4 << 20

// keyedStream is a stream answer kept as deterministic wire bytes, with each message's key.
type keyedStream struct {
	ans  *Answer // status only
	keys []string
	wire *spool.Spool
	err  error // of keeping the stream
	kind func() proto.Message
}

// keyedComparison reports whether the call is compared key by key: ListBundles, when both targets
// hand streams over message by message and stream order is normalized anyway.
func (r *runner) keyedComparison(c *Call) bool {
	if c.Method != listBundlesMethod || r.opts.wholeStreams || !r.cmp.enabledName("stream-order") {
		return false
	}
	_, l := r.left.(streamer)
	_, rr := r.right.(streamer)
	return l && rr
}

// collectKeyed performs the call and keeps the stream; close the result.
func collectKeyed(ctx context.Context, t Target, c *Call) (*keyedStream, error) {
	ks := &keyedStream{kind: func() proto.Message { return &api.Bundle{} }, wire: spool.New(keyedSpoolMemory)}
	a, err := t.(streamer).invokeStream(ctx, c, func(m proto.Message) {
		if ks.err == nil {
			ks.keys = append(ks.keys, messageKey(m))
			ks.err = ks.wire.Add(deterministic(m))
		}
	})
	if err == nil {
		err = ks.err
	}
	if err == nil {
		err = ks.wire.Finish()
	}
	ks.ans = a
	return ks, err
}

func (ks *keyedStream) close() {
	if ks != nil {
		ks.wire.Close()
	}
}

// same reports whether two kept streams hold the same bytes in the same order.
func (ks *keyedStream) same(o *keyedStream) bool {
	if !slices.Equal(ks.keys, o.keys) {
		return false
	}
	for i := range ks.keys {
		a, err := ks.wire.Get(i)
		if err != nil {
			return false
		}
		b, err := o.wire.Get(i)
		if err != nil || !bytes.Equal(a, b) {
			return false
		}
	}
	return true
}

// decode returns the messages at the given positions (all of them for nil).
func (ks *keyedStream) decode(at []int) []proto.Message {
	if at == nil {
		at = make([]int, ks.wire.Len())
		for i := range at {
			at[i] = i
		}
	}
	out := make([]proto.Message, 0, len(at))
	for _, i := range at {
		m := ks.kind()
		if data, err := ks.wire.Get(i); err == nil && proto.Unmarshal(data, m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func (ks *keyedStream) groups() (order []string, byKey map[string][]int) {
	byKey = map[string][]int{}
	for i, k := range ks.keys {
		if byKey[k] == nil {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	return order, byKey
}

// whole is the stream as an ordinary answer, for the cases compared as a whole.
func (ks *keyedStream) whole() *Answer {
	a := *ks.ans
	a.Messages = ks.decode(nil)
	return &a
}

func (c *comparer) enabledName(name string) bool {
	return slices.ContainsFunc(c.enabled, func(n *Normalization) bool { return n.Name == name })
}

// compareKeyed compares two kept streams; left and right carry the sides' kinds and facts.
func (c *comparer) compareKeyed(call *Call, left, right *side, lk, rk *keyedStream) comparison {
	if lk.ans.Code != codes.OK || rk.ans.Code != codes.OK {
		left.ans, right.ans = lk.whole(), rk.whole()
		return c.compare(call, left, right)
	}
	if lk.same(rk) {
		return comparison{verdict: VerdictEqual}
	}
	lorder, lby := lk.groups()
	rorder, rby := rk.groups()
	keys := lorder
	for _, k := range rorder {
		if lby[k] == nil {
			keys = append(keys, k)
		}
	}
	verdict := VerdictEqual
	applied := map[string]bool{}
	var diff strings.Builder
	listed := 0
	for _, k := range keys {
		ls := &side{kind: left.kind, facts: left.facts, ans: &Answer{stream: true, Messages: lk.decode(lby[k])}}
		rs := &side{kind: right.kind, facts: right.facts, ans: &Answer{stream: true, Messages: rk.decode(rby[k])}}
		if lby[k] == nil {
			ls.ans.Messages = nil
		}
		if rby[k] == nil {
			rs.ans.Messages = nil
		}
		out := c.compare(call, ls, rs)
		for _, n := range out.applied {
			applied[n] = true
		}
		switch out.verdict {
		case VerdictDifferent:
			verdict = VerdictDifferent
			if listed < maxListed {
				diff.WriteString(out.diff)
			}
			listed++
		case VerdictNormalized:
			if verdict == VerdictEqual {
				verdict = VerdictNormalized
			}
		}
	}
	if !slices.Equal(lorder, rorder) {
		applied["stream-order"] = true
		if verdict == VerdictEqual {
			verdict = VerdictNormalized
		}
	}
	if listed > maxListed {
		fmt.Fprintf(&diff, "... and %d more differing bundles\n", listed-maxListed)
	}
	res := comparison{verdict: verdict}
	for _, n := range c.enabled { // in the order normalizations apply
		if applied[n.Name] {
			res.applied = append(res.applied, n.Name)
		}
	}
	if verdict == VerdictDifferent {
		res.diff = capLines(diff.String(), c.maxDiff)
	}
	return res
}
