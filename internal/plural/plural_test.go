package plural

import "testing"

func TestOf(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "package", "0 packages"},
		{1, "package", "1 package"},
		{2, "channel entry", "2 channel entries"},
		{1, "channel entry", "1 channel entry"},
		{3, "key", "3 keys"},
		{2, "departure", "2 departures"},
		{4, "index", "4 indexes"},
		{5, "class", "5 classes"},
	} {
		if got := Of(c.n, c.noun); got != c.want {
			t.Errorf("Of(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
