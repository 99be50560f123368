package report_test

import (
	"strings"
	"testing"
)

// TestTableBreaksNamesBeforeTheVersion: at 80 columns the hive-operator pair's new bundle name is
// wider than its cell. It used to break after its first dash, over three lines ("hive-",
// "operator.v1.2.5274-", "c04833d"); it breaks before its version now, and a CSV's kind between
// its words.
func TestTableBreaksNamesBeforeTheVersion(t *testing.T) {
	// column returns the lines of one column of the table (3: WHERE, 4: CHANGE), top to bottom.
	column := func(out string, col int) string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Split(l, "│"); len(f) == 6 {
				lines = append(lines, strings.TrimSpace(f[col]))
			}
		}
		return strings.Join(lines, "\n")
	}
	r, opts := openPair(t, "fbc/hive-operator-v4.18-consecutive")
	opts.Width = 80
	got := column(render(t, r, opts), 3)
	if !strings.Contains(got, "hive-operator.\nv1.2.5274-c04833d") || strings.Contains(got, "\nhive-\n") {
		t.Errorf("hive-operator.v1.2.5274-c04833d is not broken before its version:\n%s", got)
	}
	r, opts = openPair(t, "sqlite/infrawatch-new-default-channel")
	opts.Width = 80
	if got := column(render(t, r, opts), 4); !strings.Contains(got, "ClusterService\nVersion/") {
		t.Errorf("ClusterServiceVersion is not broken between its words:\n%s", got)
	}
}
