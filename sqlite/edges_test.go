package sqlite

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const readerConformanceDir = "../../shared/conformance/sqlite"

func readerCases(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(readerConformanceDir)
	if err != nil {
		t.Skipf("conformance corpus not found at %s (%v); it lives in /work/shared/conformance", readerConformanceDir, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

type recordedRow struct {
	CsvName     string   `json:"csvName"`
	PackageName string   `json:"packageName"`
	ChannelName string   `json:"channelName"`
	Replaces    string   `json:"replaces"`
	Skips       []string `json:"skips"`
}

func recordedRows(t *testing.T, caseDir string) []recordedRow {
	t.Helper()
	dir := filepath.Join(caseDir, "grpc")
	var plan []struct{ ID, Method string }
	data, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &plan); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, p := range plan {
		if p.Method == "api.Registry/ListBundles" {
			id = p.ID
		}
	}
	var raw json.RawMessage
	if f, err := os.Open(filepath.Join(dir, "answers.json.gz")); err == nil {
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var all map[string]json.RawMessage
		if err := json.NewDecoder(zr).Decode(&all); err != nil {
			t.Fatal(err)
		}
		raw = all[id]
	} else if raw, err = os.ReadFile(filepath.Join(dir, id+".json")); err != nil {
		t.Fatal(err)
	}
	var answer struct{ Response []recordedRow }
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	return answer.Response
}

// TestServedEdgesMatchRegistryServe checks the Go version of opm's ListBundles query against what
// opm registry serve answered from every corpus index: the same rows, the same replaces, and the same
// skips in the same order.
func TestServedEdgesMatchRegistryServe(t *testing.T) {
	for _, name := range readerCases(t) {
		t.Run(name, func(t *testing.T) {
			caseDir := filepath.Join(readerConformanceDir, name)
			db, err := Open(filepath.Join(caseDir, "input.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			refs, err := db.Packages(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]recordedRow{}
			for _, ref := range refs {
				p, err := db.ReadPackage(ctx, ref)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range p.Served {
					b := p.Bundles[s.Bundle]
					if !s.Exists || !b.Version.Valid || !b.BundlePath.Valid {
						continue // opm's SendBundles skips these rows
					}
					got[ref.Name+"/"+s.Channel+"/"+s.Bundle] = recordedRow{CsvName: s.Bundle, PackageName: ref.Name,
						ChannelName: s.Channel, Replaces: s.Replaces, Skips: s.Skips}
				}
			}
			want := recordedRows(t, caseDir)
			if len(got) != len(want) {
				t.Errorf("%d rows, opm served %d", len(got), len(want))
			}
			for _, w := range want {
				key := w.PackageName + "/" + w.ChannelName + "/" + w.CsvName
				g, ok := got[key]
				if !ok {
					t.Errorf("%s: served by opm, not produced", key)
					continue
				}
				if g.Replaces != w.Replaces || !slices.Equal(g.Skips, w.Skips) {
					t.Errorf("%s: replaces %q skips [%s], opm served replaces %q skips [%s]", key,
						g.Replaces, strings.Join(g.Skips, ","), w.Replaces, strings.Join(w.Skips, ","))
				}
			}
		})
	}
}
