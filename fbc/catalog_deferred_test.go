package fbc

import (
	"errors"
	"slices"
	"testing"
)

// countingBuilder builds a bundle named n with image "img:"+n, recording each call.
type countingBuilder struct {
	calls [][]string
	fail  error
	short bool
}

func (c *countingBuilder) BuildBundles(names []string) ([]Bundle, error) {
	c.calls = append(c.calls, slices.Clone(names))
	if c.fail != nil {
		return nil, c.fail
	}
	var out []Bundle
	for _, n := range names {
		out = append(out, Bundle{Schema: SchemaBundle, Name: n, Package: "p", Image: "img:" + n})
	}
	if c.short {
		out = out[1:]
	}
	return out, nil
}

func TestDecodeBundlesBuildsEachBuilderOnce(t *testing.T) {
	one, two := &countingBuilder{}, &countingBuilder{}
	at := Location{File: "index.db"}
	bs := []Bundle{
		DeferredBundle("a", "p", at, one),
		{Schema: SchemaBundle, Name: "built", Package: "p", Image: "x"},
		DeferredBundle("b", "q", at, two),
		DeferredBundle("c", "p", at, one),
		{Schema: SchemaBundle, Name: "blob", Package: "p", deferred: []byte(`{"schema":"olm.bundle","name":"blob","package":"p","image":"y"}`)},
	}
	var ptrs []*Bundle
	for i := range bs {
		if bs[i].Name != "built" && !bs[i].Deferred() {
			t.Fatalf("%s is not deferred", bs[i].Name)
		}
		ptrs = append(ptrs, &bs[i])
	}
	if err := DecodeBundles(ptrs); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(one.calls, [][]string{{"a", "c"}}, slices.Equal) || !slices.EqualFunc(two.calls, [][]string{{"b"}}, slices.Equal) {
		t.Errorf("calls %v and %v, want [[a c]] and [[b]]", one.calls, two.calls)
	}
	for _, b := range bs {
		if b.Deferred() {
			t.Errorf("%s still deferred", b.Name)
		}
	}
	if bs[0].Image != "img:a" || bs[0].Loc != at || bs[3].Image != "img:c" || bs[4].Image != "y" || bs[1].Image != "x" {
		t.Errorf("bundles %+v", bs)
	}
	// Decoding again builds nothing.
	if err := bs[0].Decode(); err != nil || len(one.calls) != 1 {
		t.Errorf("a second decode: %v, calls %v", err, one.calls)
	}
}

func TestDecodeBundlesFailureLeavesBundlesDeferred(t *testing.T) {
	boom := errors.New("boom")
	for name, by := range map[string]*countingBuilder{"error": {fail: boom}, "too few": {short: true}} {
		b := DeferredBundle("a", "p", Location{}, by)
		c := DeferredBundle("c", "p", Location{}, by)
		err := DecodeBundles([]*Bundle{&b, &c})
		if err == nil || (by.fail != nil && !errors.Is(err, boom)) {
			t.Errorf("%s: error %v", name, err)
		}
		if !b.Deferred() || !c.Deferred() {
			t.Errorf("%s: a bundle was decoded in part", name)
		}
	}
}
