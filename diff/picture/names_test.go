package picture

import "testing"

// A finding's message names a bundle only by its whole name: not a longer name it begins, nor one
// it ends; a sentence's full stop or a quote may follow it.
func TestMessageNamesBundle(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{`no upgrade path leads to v1.5.0 from: op.v1.3.2, op.v1.3.3`, "op.v1.3.2", true},
		{`no upgrade path leads to v1.5.0 from: op.v1.3.2, op.v1.3.3`, "op.v1.3.3", true},
		{`its head was op.v1.3.2.`, "op.v1.3.2", true},
		{`bundle "op.v1.3.2" is skipped`, "op.v1.3.2", true},
		{`from: op.v1.3.20, op.v1.3.2-rc.1`, "op.v1.3.2", false},
		{`from: op.v1.3.2.1`, "op.v1.3.2", false},
		{`from: myop.v1.3.2`, "op.v1.3.2", false},
		{`op.v1.3.2`, "op.v1.3.2", true},
	} {
		if got := names(c.text, c.name); got != c.want {
			t.Errorf("names(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}

func TestSkipRangeText(t *testing.T) {
	for _, c := range []struct {
		n    Node
		want string
	}{
		{Node{}, ""},
		{Node{SkipRange: ">=1.0.0 <1.2.0"}, "skipRange: >=1.0.0 <1.2.0"},
		{Node{SkipRange: "<1.2.0", SkipRangeChanged: true}, "skipRange: <1.2.0 (added)"},
		{Node{SkipRange: "<1.3.0", OldSkipRange: "<1.2.0", SkipRangeChanged: true}, "skipRange: <1.3.0 (was <1.2.0)"},
		{Node{OldSkipRange: "<1.2.0", SkipRangeChanged: true}, "skipRange removed (was <1.2.0)"},
		{Node{SkipRange: "1.x and up"}, "skipRange: 1.x and up (not a range: OLM ignores it)"},
	} {
		if got := skipRangeText(c.n); got != c.want {
			t.Errorf("%+v: %q, want %q", c.n, got, c.want)
		}
	}
}
