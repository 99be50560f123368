package sqlite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/backendtest"
)

// The SQL backend passes the suite every backend must pass, on real opm-built databases.
func TestQuerierBackendSuite(t *testing.T) {
	for _, name := range []string{"community-5ops-replaces", "opm-testdata-bundles-substitutesfor"} {
		db := filepath.Join(queryConformanceDir, name, "input.db")
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(db); err != nil {
				t.Skipf("conformance corpus not found at %s", db)
			}
			backendtest.Run(t, func(t *testing.T) api.Backend {
				q, err := NewQuerier(db)
				if err != nil {
					t.Fatalf("NewQuerier: %v", err)
				}
				return q
			})
		})
	}
}
