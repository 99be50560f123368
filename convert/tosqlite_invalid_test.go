package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvalidCatalogs: every catalog opm validate refuses is refused with the validation issues
// and nothing is written; with Permissive the valid part is written and the rest reported.
func TestInvalidCatalogs(t *testing.T) {
	requireConformance(t)
	dirs, _ := filepath.Glob(filepath.Join(toSQLiteConformance, "invalid", "*", "catalog"))
	if len(dirs) == 0 {
		t.Fatal("no invalid cases")
	}
	for _, dir := range dirs {
		name := filepath.Base(filepath.Dir(dir))
		t.Run(name, func(t *testing.T) {
			verdict, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), "validate.txt"))
			opmRefuses := strings.Contains(string(verdict), "exit code: 1")
			out := filepath.Join(t.TempDir(), "index.db")
			r, err := ToSQLiteFromPath(context.Background(), dir, out, ToSQLiteOptions{})
			var invalid *InvalidCatalogError
			switch {
			case opmRefuses && !errors.As(err, &invalid):
				t.Fatalf("opm validate refuses the catalog; ToSQLite returned %v", err)
			case opmRefuses:
				if len(invalid.Issues) == 0 || !strings.Contains(invalid.Error(), "--permissive") {
					t.Errorf("the error does not carry the validation report: %v", invalid)
				}
				if _, serr := os.Stat(out); !os.IsNotExist(serr) {
					t.Errorf("a refused catalog left %s behind", out)
				}
			case err != nil:
				t.Fatalf("opm validate accepts the catalog; ToSQLite: %v", err)
			default:
				if len(r.Losses) == 0 {
					t.Errorf("the custom blob is not reported as lost")
				}
				return
			}

			r, err = ToSQLiteFromPath(context.Background(), dir, out, ToSQLiteOptions{Permissive: true})
			if err != nil {
				t.Fatalf("Permissive: %v", err)
			}
			if len(r.Skipped) == 0 {
				t.Errorf("Permissive: nothing reported as skipped")
			}
			if _, err := os.Stat(out); err != nil {
				t.Errorf("Permissive: no index.db written: %v", err)
			}
			t.Logf("written %+v; skipped: %d issues, first: %s", r.Written, len(r.Skipped), r.Skipped[0].Error())
		})
	}
}
