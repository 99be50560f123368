package compat

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Field rewrites and orderings. Each returns whether it changed anything.

func normBundleForChannel(p *pair) bool {
	_, fbc := p.sqlFBC()
	if fbc == nil || p.call.Method != GetBundleForChannel {
		return false
	}
	changed := false
	for i, b := range bundlesOf(fbc.ans) {
		kept := &api.Bundle{CsvName: b.GetCsvName(), CsvJson: b.GetCsvJson()}
		if !proto.Equal(kept, b) {
			fbc.ans.Messages[i], changed = kept, true
		}
	}
	return changed
}

func normCSVNewline(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			if t := strings.TrimRight(b.CsvJson, " \t\r\n"); t != b.CsvJson {
				b.CsvJson, changed = t, true
			}
		}
		return changed
	})
}

func normPlural(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			for _, g := range append(slices.Clip(b.ProvidedApis), b.RequiredApis...) {
				if g.Plural != "" {
					g.Plural, changed = "", true
				}
			}
		}
		return changed
	})
}

func normRequiredProperties(p *pair) bool {
	sql, fbc := p.sqlFBC()
	if sql == nil {
		return false
	}
	// olm.constraint is a dependency on SQL; on an FBC rendered from bundle images it is also a
	// property. It is dropped from the FBC side unless the SQL side has such properties too.
	sqlConstraints := slices.ContainsFunc(bundlesOf(sql.ans), func(b *api.Bundle) bool { return hasProperty(b, "olm.constraint") })
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			n := len(b.Properties)
			b.Properties = slices.DeleteFunc(b.Properties, func(pr *api.Property) bool {
				return strings.HasSuffix(pr.GetType(), ".required") || (s == fbc && !sqlConstraints && pr.GetType() == "olm.constraint")
			})
			changed = changed || len(b.Properties) != n
		}
		return changed
	})
}

func normDependencyTypes(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			n := len(b.Dependencies)
			b.Dependencies = slices.DeleteFunc(b.Dependencies, func(d *api.Dependency) bool {
				return d.GetType() != "olm.gvk" && d.GetType() != "olm.package"
			})
			changed = changed || len(b.Dependencies) != n
		}
		return changed
	})
}

func normDeprecations(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, m := range s.ans.Messages {
			switch v := m.(type) {
			case *api.Bundle:
				changed = changed || v.Deprecation != nil
				v.Deprecation = nil
			case *api.Package:
				changed = changed || v.Deprecation != nil
				v.Deprecation = nil
				for _, c := range v.Channels {
					changed = changed || c.Deprecation != nil
					c.Deprecation = nil
				}
			}
		}
		return changed
	})
}

// rewriteValues applies fn to every property and dependency value of the answer's bundles.
func rewriteValues(p *pair, fn func(string) string) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			for _, pr := range b.Properties {
				if v := fn(pr.Value); v != pr.Value {
					pr.Value, changed = v, true
				}
			}
			for _, d := range b.Dependencies {
				if v := fn(d.Value); v != d.Value {
					d.Value, changed = v, true
				}
			}
		}
		return changed
	})
}

func normPropertyJSON(p *pair) bool {
	return rewriteValues(p, func(v string) string { return canonicalJSON(v, false) })
}

func normNumberPrecision(p *pair) bool {
	return rewriteValues(p, func(v string) string { return canonicalJSON(v, true) })
}

// canonicalJSON re-encodes a JSON text with sorted keys, no HTML escaping and numbers spelled as
// float64 would spell them when that does not change their value (always, with viaFloat). Text
// that is not JSON is returned unchanged.
func canonicalJSON(text string, viaFloat bool) string {
	if v, ok := canonicalCache.get(text, viaFloat); ok {
		return v
	}
	v := encodeCanonicalJSON(text, viaFloat)
	canonicalCache.put(text, viaFloat, v)
	return v
}

// canonicalCache remembers canonical forms: the same property values come back in every answer
// that holds their bundle (GetBundle per channel, each edge into it, ListBundles), on both sides.
var canonicalCache = &jsonCache{max: 64 << 20}

// jsonCache maps texts to their canonical form, up to max bytes of texts (then it starts over).
type jsonCache struct {
	mu    sync.Mutex
	max   int
	size  int
	texts [2]map[string]string // by viaFloat
}

func (c *jsonCache) get(text string, viaFloat bool) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.texts[b2i(viaFloat)][text]
	return v, ok
}

func (c *jsonCache) put(text string, viaFloat bool, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.size+len(text)+len(v) > c.max {
		c.texts, c.size = [2]map[string]string{}, 0
	}
	m := &c.texts[b2i(viaFloat)]
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[text] = v
	c.size += len(text) + len(v)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func encodeCanonicalJSON(text string, viaFloat bool) string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return text
	}
	v = canonicalNumbers(v, viaFloat)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return text
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func canonicalNumbers(v any, viaFloat bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = canonicalNumbers(e, viaFloat)
		}
	case []any:
		for i, e := range t {
			t[i] = canonicalNumbers(e, viaFloat)
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return t
		}
		spelled := json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		if fb, err := json.Marshal(f); err == nil {
			spelled = json.Number(fb)
		}
		if viaFloat || sameNumber(string(t), string(spelled)) {
			return spelled
		}
	}
	return v
}

func sameNumber(a, b string) bool {
	x, okA := new(big.Float).SetPrec(2048).SetString(a)
	y, okB := new(big.Float).SetPrec(2048).SetString(b)
	return okA && okB && x.Cmp(y) == 0
}

func normDedupe(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			seen := map[[2]string]bool{}
			n := len(b.Properties)
			b.Properties = slices.DeleteFunc(b.Properties, func(pr *api.Property) bool {
				k := [2]string{pr.Type, pr.Value}
				dup := seen[k]
				seen[k] = true
				return dup
			})
			clear(seen)
			m := len(b.Dependencies)
			b.Dependencies = slices.DeleteFunc(b.Dependencies, func(d *api.Dependency) bool {
				k := [2]string{d.Type, d.Value}
				dup := seen[k]
				seen[k] = true
				return dup
			})
			changed = changed || n != len(b.Properties) || m != len(b.Dependencies)
		}
		return changed
	})
}

// sortIfNeeded sorts s and reports whether it was out of order.
func sortIfNeeded[T any](s []T, compare func(a, b T) int) bool {
	if slices.IsSortedFunc(s, compare) {
		return false
	}
	slices.SortStableFunc(s, compare)
	return true
}

func normPropertyOrder(p *pair) bool {
	typed := func(t1, v1, t2, v2 string) int { return cmp.Or(cmp.Compare(t1, t2), cmp.Compare(v1, v2)) }
	byGVK := func(a, b *api.GroupVersionKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Plural, b.Plural))
	}
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			changed = sortIfNeeded(b.Properties, func(x, y *api.Property) int { return typed(x.Type, x.Value, y.Type, y.Value) }) || changed
			changed = sortIfNeeded(b.Dependencies, func(x, y *api.Dependency) int { return typed(x.Type, x.Value, y.Type, y.Value) }) || changed
			changed = sortIfNeeded(b.ProvidedApis, byGVK) || changed
			changed = sortIfNeeded(b.RequiredApis, byGVK) || changed
		}
		return changed
	})
}

func normObjectOrder(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			changed = sortIfNeeded(b.Object, strings.Compare) || changed
		}
		return changed
	})
}

func normSkipsOrder(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, b := range bundlesOf(s.ans) {
			changed = sortIfNeeded(b.Skips, strings.Compare) || changed
		}
		return changed
	})
}

func normChannelOrder(p *pair) bool {
	return p.both(func(s *side) bool {
		changed := false
		for _, m := range s.ans.Messages {
			if pkg, ok := m.(*api.Package); ok {
				changed = sortIfNeeded(pkg.Channels, func(a, b *api.Channel) int { return cmp.Compare(a.Name, b.Name) }) || changed
			}
		}
		return changed
	})
}

func normStreamOrder(p *pair) bool {
	if !methods[p.call.Method].stream {
		return false
	}
	return p.both(func(s *side) bool { return sortIfNeeded(s.ans.Messages, compareMessages) })
}

// compareMessages orders stream messages by their identity (bundles by package, channel, name;
// entries by all fields), then by their deterministic encoding.
func compareMessages(a, b proto.Message) int {
	if c := cmp.Compare(messageKey(a), messageKey(b)); c != 0 {
		return c
	}
	return bytes.Compare(deterministic(a), deterministic(b))
}

func messageKey(m proto.Message) string {
	switch v := m.(type) {
	case *api.PackageName:
		return v.Name
	case *api.Bundle:
		return v.PackageName + "\x00" + v.ChannelName + "\x00" + v.CsvName
	case *api.ChannelEntry:
		return v.PackageName + "\x00" + v.ChannelName + "\x00" + v.BundleName + "\x00" + v.Replaces
	}
	return ""
}

func deterministic(m proto.Message) []byte {
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	return b
}

func normErrorMessages(p *pair) bool {
	l, r := p.sides[0].ans, p.sides[1].ans
	if l.Code == r.Code && l.Code != codes.OK && l.Message != r.Message {
		p.codesOnly = true
		return true
	}
	return false
}
