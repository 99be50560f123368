package convert

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/sqlite"
)

// FuzzToSQLite feeds arbitrary catalog streams (JSON or YAML) to the FBC → index.db conversion in
// permissive mode: whatever loads must be validated and turned into rows the database accepts
// (sqlite.PackageOut.Check), never panic. The SQLite writer itself is left out: the fuzzer's
// instrumentation of the SQLite engine would make each run take seconds; the conformance and
// property tests cover writing. Seeds: convert/testdata/fuzz/FuzzToSQLite and the fixture catalog.
func FuzzToSQLite(f *testing.F) {
	if b, err := os.ReadFile("../fixtures/catalog/operator-000/catalog.json"); err == nil {
		f.Add(b)
	}
	f.Fuzz(convertFuzzInput)
}

func convertFuzzInput(t *testing.T, data []byte) {
	{
		cat, _ := fbc.LoadReader(bytes.NewReader(data), "fuzz.json")
		c := &sqliteConversion{r: &SQLiteReport{}, opts: ToSQLiteOptions{Permissive: true}, owners: map[string]string{}}
		rows := make(chan *sqlite.PackageOut, 1)
		errc := make(chan error, 1)
		go func() {
			defer close(rows)
			for _, part := range fbc.SplitByPackage(cat) {
				if err := c.convert(context.Background(), part.Catalog, rows); err != nil {
					errc <- err
					return
				}
			}
		}()
		names := map[string]bool{}
		for p := range rows {
			if err := p.Check(); err != nil {
				t.Errorf("package %q: rows the database would refuse: %v", p.Name, err)
			}
			for _, b := range p.Bundles {
				if names[b.Name] {
					t.Errorf("bundle %q converted twice", b.Name)
				}
				names[b.Name] = true
			}
		}
		select {
		case err := <-errc:
			t.Logf("conversion error (allowed, no panic): %v", err)
		default:
		}
		if len(c.invalid) > 0 {
			t.Fatalf("Permissive left invalid issues: %v", c.invalid)
		}
	}
}
