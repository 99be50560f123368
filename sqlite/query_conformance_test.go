package sqlite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/replay"
)

const queryConformanceDir = "../../shared/conformance/sqlite"

// TestQuerierReplaysOpmRegistryServe replays every call recorded from `opm registry serve` on each
// corpus index.db and requires the same answers, field by field.
func TestQuerierReplaysOpmRegistryServe(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join(queryConformanceDir, "*", "grpc", "plan.json"))
	if len(cases) == 0 {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository)", queryConformanceDir)
	}
	for _, plan := range cases {
		caseDir := filepath.Dir(filepath.Dir(plan))
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			db := filepath.Join(caseDir, "input.db")
			before, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			q, err := NewQuerier(db)
			if err != nil {
				t.Fatalf("NewQuerier: %v", err)
			}
			defer q.Close()
			// An index opm upgraded from a schema before 9 got its properties in Go map order.
			replay.Run(t, q, filepath.Dir(plan), replay.Options{UnorderedBundleLists: q.removeCopy != nil})
			after, _ := os.ReadFile(db)
			if string(before) != string(after) {
				t.Fatalf("%s was modified by serving it", db)
			}
		})
	}
}
