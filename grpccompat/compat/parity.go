package compat

import (
	"context"
	"strings"
)

// TB is the part of testing.TB that TestParity uses (so this package does not import testing).
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Context() context.Context
}

// TestParity runs Check from a Go test, as testing/fstest.TestFS does for file systems: it fails
// the test with the report when the sides answer differently, or when the comparison cannot be
// completed. It returns the report for further assertions.
//
//	left, _ := compat.OpenTarget(ctx, "testdata/index.db", compat.OpenOptions{})
//	right, _ := compat.OpenTarget(ctx, "testdata/catalog", compat.OpenOptions{})
//	compat.TestParity(t, left, right, compat.Options{})
func TestParity(t TB, left, right Target, o Options) *Report {
	t.Helper()
	r, err := Check(t.Context(), left, right, o)
	if r == nil {
		t.Fatalf("compat: %v", err)
		return nil
	}
	if err != nil || !r.Equal() {
		var b strings.Builder
		if werr := r.WriteText(&b); werr != nil {
			b.WriteString(r.Summary())
		}
		if err != nil {
			t.Errorf("compat: %v\n%s", err, b.String())
		} else {
			t.Errorf("compat: the two sides answer differently:\n%s", b.String())
		}
	}
	return r
}
