package convert

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/replay"
)

// TestSynthesizedCSVMatchesOpmServe checks the CSV synthesized for olm.csv.metadata bundles byte
// for byte against the csvJson opm serve answered for the same catalog: the csv column is that JSON
// plus opm's trailing newline, and the bundle column holds it as the only object.
func TestSynthesizedCSVMatchesOpmServe(t *testing.T) {
	requireConformance(t)
	dir := filepath.Join(toSQLiteConformance, "fbc", "community-v4.20-csvmetadata-subset")
	out, report := writeDB(t, loadCatalog(t, filepath.Join(dir, "catalog")), ToSQLiteOptions{})
	rec, err := replay.Load(filepath.Join(dir, "grpc"))
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t, out)
	checked := 0
	for _, c := range rec.Plan {
		a := rec.Answers[c.ID]
		if !strings.HasSuffix(c.Method, "/GetBundle") || a.Code != "OK" {
			continue
		}
		var resp struct {
			CsvName string   `json:"csvName"`
			CsvJSON string   `json:"csvJson"`
			Object  []string `json:"object"`
		}
		if err := json.Unmarshal(a.Response, &resp); err != nil {
			t.Fatal(err)
		}
		var csv, bundle []byte
		if err := db.QueryRow("SELECT csv, bundle FROM operatorbundle WHERE name = ?", resp.CsvName).Scan(&csv, &bundle); err != nil {
			t.Fatalf("%s: %v", resp.CsvName, err)
		}
		if string(csv) != resp.CsvJSON+"\n" {
			t.Errorf("%s: csv column differs from opm serve's csvJson:\n ours: %.600s\nopm's: %.600s", resp.CsvName, csv, resp.CsvJSON)
		}
		if len(resp.Object) != 1 || string(bundle) != resp.Object[0]+"\n" {
			t.Errorf("%s: bundle column is not opm serve's single object", resp.CsvName)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no GetBundle answers to compare with")
	}
	synthesized := 0
	for _, f := range report.Changes {
		if f.Kind == KindCSVSynthesized {
			synthesized++
		}
	}
	if synthesized != report.Written.Bundles {
		t.Errorf("%d csv-synthesized changes reported for %d bundles", synthesized, report.Written.Bundles)
	}
}
