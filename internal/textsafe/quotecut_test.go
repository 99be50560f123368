package textsafe

import (
	"errors"
	"strings"
	"testing"
)

func TestQuoteCut(t *testing.T) {
	if got := QuoteCut("a\nb"); got != `"a\nb"` {
		t.Errorf("short: %s", got)
	}
	long := strings.Repeat("x", 249<<10)
	got := QuoteCut(long)
	if len(got) > MaxQuoted+30 || !strings.HasSuffix(got, `..." (254976 bytes)`) || strings.Count(got, `"`) != 2 {
		t.Errorf("long: %s", got)
	}
	if got := QuoteCut(strings.Repeat("é", 150)); !strings.HasPrefix(got, `"é`) || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("cut inside a rune: %s", got)
	}
}

func TestErrorAbout(t *testing.T) {
	long := strings.Repeat("y", 1000)
	err := errors.New(`Could not get version from string: "` + long + `"`)
	if got := ErrorAbout(err, long); got != "Could not get version from string" {
		t.Errorf("long input: %q", got)
	}
	err = errors.New(`Invalid character(s) found in patch number "` + long + `"`)
	if got := ErrorAbout(err, long); got != "Invalid character(s) found in patch number" {
		t.Errorf("long input, no colon: %q", got)
	}
	short := errors.New(`Could not get version from string: "this"`)
	if got := ErrorAbout(short, "this is not a range"); got != short.Error() {
		t.Errorf("short input: %q", got)
	}
	if got := ErrorAbout(errors.New("bad \x1b[2K"+strings.Repeat("z", 500)), "x"); strings.Contains(got, "\x1b") || len(got) > MaxQuoted+3 {
		t.Errorf("escaped and cut: %q", got)
	}
}
