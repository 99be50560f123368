package convert

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// servedRow is one ListBundles row as opm registry serve answered it.
type servedRow struct {
	CsvName     string   `json:"csvName"`
	PackageName string   `json:"packageName"`
	ChannelName string   `json:"channelName"`
	Replaces    string   `json:"replaces"`
	Skips       []string `json:"skips"`
}

// recordedListBundles reads the ListBundles answer of a case's grpc/ recording.
func recordedListBundles(t *testing.T, caseDir string) []servedRow {
	t.Helper()
	dir := filepath.Join(caseDir, "grpc")
	var plan []struct{ ID, Method string }
	readJSONFile(t, filepath.Join(dir, "plan.json"), &plan)
	id := ""
	for _, p := range plan {
		if p.Method == "api.Registry/ListBundles" {
			id = p.ID
		}
	}
	var answer struct{ Response []servedRow }
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
		if err := json.Unmarshal(all[id], &answer); err != nil {
			t.Fatal(err)
		}
	} else {
		readJSONFile(t, filepath.Join(dir, id+".json"), &answer)
	}
	return answer.Response
}

func readJSONFile(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// loadOutput reads a migrate output directory back.
func loadOutput(t *testing.T, dir string) *fbc.Catalog {
	t.Helper()
	c, err := fbc.Load(dir)
	if err != nil {
		t.Fatalf("read back %s: %v", dir, err)
	}
	return c
}

// TestMigrateSkips40 is the case opm migrate refuses (stranded bundles): olmcat must write a catalog
// that passes validation and keeps every edge opm registry serve answered from the same file, adding
// only edges the bundles' CSVs declare, each reported.
func TestMigrateSkips40(t *testing.T) {
	conformanceCases(t)
	caseDir := filepath.Join(sqliteConformanceDir, "synthetic-skips40")
	out := filepath.Join(t.TempDir(), "out")
	report, err := migrateIndex(filepath.Join(caseDir, "input.db"), out, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cat := loadOutput(t, out)
	if errs := model.ValidateCatalog(cat, model.Options{}).Errors(); len(errs) > 0 {
		t.Fatalf("olmcat's catalog does not validate:\n%v", errs)
	}
	entries := map[[3]string]fbc.ChannelEntry{}
	for _, ch := range cat.Channels {
		for _, e := range ch.Entries {
			entries[[3]string{ch.Package, ch.Name, e.Name}] = e
		}
	}
	served := recordedListBundles(t, caseDir)
	for _, row := range served {
		e, ok := entries[[3]string{row.PackageName, row.ChannelName, row.CsvName}]
		if !ok {
			t.Errorf("served bundle %s in %s/%s is missing", row.CsvName, row.PackageName, row.ChannelName)
			continue
		}
		if e.Replaces != row.Replaces {
			t.Errorf("%s/%s %s: replaces %q, served %q", row.PackageName, row.ChannelName, row.CsvName, e.Replaces, row.Replaces)
		}
		for _, s := range row.Skips {
			if !slices.Contains(e.Skips, s) {
				t.Errorf("%s/%s %s: served skip %s is missing", row.PackageName, row.ChannelName, row.CsvName, s)
			}
		}
	}
	if len(entries) != len(served) {
		t.Errorf("%d channel entries, %d served rows", len(entries), len(served))
	}

	// Every added edge is a reported departure, every one is declared by the CSV, and the stranded
	// lists olmcat reports are the ones opm printed.
	added := 0
	for _, row := range served {
		e := entries[[3]string{row.PackageName, row.ChannelName, row.CsvName}]
		added += len(e.Skips) - len(row.Skips)
	}
	reported := map[string][]string{}
	for _, d := range report.Departures {
		if d.Code != tofbc.CSVEdgeAdded {
			t.Errorf("unexpected departure %s", d)
			continue
		}
		reported[d.Package+"/"+d.Channel] = append(reported[d.Package+"/"+d.Channel], d.Opm)
	}
	if added != len(report.Departures) {
		t.Errorf("%d edges added, %d departures reported", added, len(report.Departures))
	}
	for ch, stranded := range opmStrandedLists(t, filepath.Join(caseDir, "migrate.error.txt")) {
		opms := reported[ch]
		if len(opms) == 0 {
			t.Errorf("%s: opm reported stranded bundles %s, olmcat repaired nothing", ch, stranded)
			continue
		}
		want := "stranded bundles: " + stranded + " ("
		for _, o := range opms {
			if !strings.Contains(o, want) {
				t.Errorf("%s: departure says %q, opm said %q", ch, o, stranded)
			}
		}
		delete(reported, ch)
	}
	for ch := range reported {
		t.Errorf("%s: olmcat repaired a channel opm did not complain about", ch)
	}
}

// opmStrandedLists parses opm's error tree: package/channel -> the stranded list it printed.
func opmStrandedLists(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), `\n`, "\n")
	pkgRe := regexp.MustCompile(`invalid package \\"([^\\]+)\\"`)
	chRe := regexp.MustCompile(`invalid channel \\"([^\\]+)\\"`)
	out := map[string]string{}
	pkg, ch := "", ""
	for _, line := range strings.Split(text, "\n") {
		if m := pkgRe.FindStringSubmatch(line); m != nil {
			pkg = m[1]
		}
		if m := chRe.FindStringSubmatch(line); m != nil {
			ch = m[1]
		}
		if i := strings.Index(line, "stranded bundles: "); i >= 0 {
			list := strings.TrimSuffix(strings.TrimSpace(line[i+len("stranded bundles: "):]), `"`)
			names := strings.Split(list, ", ")
			sort.Strings(names)
			out[pkg+"/"+ch] = strings.Join(names, ", ")
		}
	}
	if len(out) == 0 {
		t.Fatalf("no stranded lists found in %s", path)
	}
	return out
}
