package filter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/source"
)

// corpus is ../shared/conformance/filter: oc-mirror v2's filter recorded on real packages.
func corpus(t *testing.T) string {
	t.Helper()
	root := "../../../shared/conformance/filter"
	if _, err := os.Stat(filepath.Join(root, "input")); err != nil {
		t.Skipf("filter conformance corpus not found at %s (%v): it lives in ../shared/conformance/filter beside the checkout", root, err)
	}
	return root
}

type recordedCase struct {
	ID         string `json:"id"`
	OracleExit int    `json:"oracle_exit"`
	Error      string `json:"error"`
	Kept       struct {
		Packages, Channels, Bundles int
	} `json:"kept"`
}

func cases(t *testing.T) (root string, out []recordedCase) {
	root = corpus(t)
	files, err := filepath.Glob(filepath.Join(root, "*", "CASE.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in %s (%v)", root, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c recordedCase
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, c)
	}
	return root, out
}

func openCatalog(t *testing.T, dir string) *source.Source {
	t.Helper()
	src, err := source.Open(context.Background(), dir, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func caseConfig(t *testing.T, root, id string) *Config {
	t.Helper()
	name := filepath.Join(root, id, "isc.yaml")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(data, name, Selector{Index: -1, Catalog: filepath.Join(root, "input")})
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return cfg
}

// blobs gives each blob as generic JSON keyed by schema/package/name, channel entries sorted:
// "blob for blob, key order and entry order aside".
func blobs(t *testing.T, c *fbc.Catalog) map[string]any {
	t.Helper()
	var buf strings.Builder
	if err := fbc.Write(&buf, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	dec := json.NewDecoder(strings.NewReader(buf.String()))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if entries, ok := m["entries"].([]any); ok && m["schema"] == fbc.SchemaChannel {
			sort.Slice(entries, func(i, j int) bool {
				return entries[i].(map[string]any)["name"].(string) < entries[j].(map[string]any)["name"].(string)
			})
		}
		key := strings.Join([]string{str(m["schema"]), str(m["package"]), str(m["name"])}, "/")
		if _, dup := out[key]; dup {
			t.Fatalf("blob %s twice", key)
		}
		out[key] = m
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }

// TestConformanceOCMirror runs every recorded case: where oc-mirror filtered, the same blobs and
// the same images; where it refused, an *Error naming the package and channel.
func TestConformanceOCMirror(t *testing.T) {
	root, all := cases(t)
	for _, rc := range all {
		t.Run(rc.ID, func(t *testing.T) {
			cfg := caseConfig(t, root, rc.ID)
			got, rep, err := Collect(context.Background(), openCatalog(t, filepath.Join(root, "input")), cfg)
			if rc.OracleExit != 0 {
				var fe *Error
				if !errors.As(err, &fe) {
					t.Fatalf("oc-mirror refused (%s); olmcat gave %v", rc.Error, err)
				}
				for _, want := range []string{fe.Package, "defaultChannel"} {
					if want == "" || !strings.Contains(fe.Error(), want) {
						t.Errorf("error %q does not name %q", fe, want)
					}
				}
				if !strings.Contains(rc.Error, `"`+fe.Package+`"`) || fe.Channel == "" || !strings.Contains(rc.Error, `"`+fe.Channel+`"`) {
					t.Errorf("error names package %q channel %q; oc-mirror's names others: %s", fe.Package, fe.Channel, rc.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := openCatalog(t, filepath.Join(root, rc.ID, "expected", "catalog")).Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(blobs(t, want), blobs(t, got)); diff != "" {
				t.Errorf("filtered catalog differs from oc-mirror's (-oc-mirror +olmcat):\n%s", diff)
			}
			if len(got.Packages) != rc.Kept.Packages || len(got.Channels) != rc.Kept.Channels || len(got.Bundles) != rc.Kept.Bundles {
				t.Errorf("kept %d packages, %d channels, %d bundles; CASE.json says %+v", len(got.Packages), len(got.Channels), len(got.Bundles), rc.Kept)
			}
			images, err := os.ReadFile(filepath.Join(root, rc.ID, "expected", "related-images.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.Fields(string(images)), rep.Images); diff != "" {
				t.Errorf("images differ from oc-mirror's (-oc-mirror +olmcat):\n%s", diff)
			}
			if issues := model.ValidateCatalog(got, model.Options{}).Errors(); len(issues) > 0 {
				t.Errorf("filtered catalog is invalid: %v", issues)
			}
			// OLM's resolver, run on oc-mirror's catalog, resolved every kept (channel, bundle):
			// the same count, and the same bundles not reaching their head.
			var reach struct {
				Resolutions     int               `json:"resolutions"`
				NotReachingHead []json.RawMessage `json:"not_reaching_head"`
			}
			data, err := os.ReadFile(filepath.Join(root, rc.ID, "reach.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &reach); err != nil {
				t.Fatal(err)
			}
			entries := 0
			for _, p := range rep.Packages {
				for _, c := range p.Channels {
					entries += c.Kept
				}
			}
			if entries != reach.Resolutions {
				t.Errorf("kept %d channel entries; OLM's resolver resolved %d", entries, reach.Resolutions)
			}
			if cut := rep.CutOff(); len(cut) != len(reach.NotReachingHead) {
				t.Errorf("kept bundles not reaching their head: olmcat %v, OLM's resolver %d", cut, len(reach.NotReachingHead))
			}
		})
	}
}

// TestIndexDBFiltersAsItsMigratedFBC filters every case from an index.db (the corpus's input
// written by olmcat migrate --to sqlite), whose bundles are built only where kept
// (tofbc.Options.DeferBundles), and from that index.db migrated to an FBC, whose bundles are all
// converted: the same files byte for byte, and the same report.
func TestIndexDBFiltersAsItsMigratedFBC(t *testing.T) {
	root, all := cases(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, fbcDir := filepath.Join(dir, "index.db"), filepath.Join(dir, "fbc")
	if _, err := convert.ToSQLiteFromSource(ctx, openCatalog(t, filepath.Join(root, "input")), db, convert.ToSQLiteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := convert.MigratePath(ctx, db, fbcDir, convert.MigrateOptions{}, source.Options{}); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, rc := range all {
		if rc.OracleExit != 0 {
			continue
		}
		t.Run(rc.ID, func(t *testing.T) {
			cfg := caseConfig(t, root, rc.ID)
			fromDB, fromFBC := filepath.Join(dir, rc.ID+"-db"), filepath.Join(dir, rc.ID+"-fbc")
			repDB, err := Write(ctx, openCatalog(t, db), cfg, fromDB, Options{})
			if err != nil {
				t.Fatal(err)
			}
			repFBC, err := Write(ctx, openCatalog(t, fbcDir), cfg, fromFBC, Options{})
			if err != nil {
				t.Fatal(err)
			}
			repDB.Input, repFBC.Input = "", ""
			if diff := cmp.Diff(repFBC, repDB, cmpopts.IgnoreUnexported(Report{})); diff != "" {
				t.Errorf("reports differ (-FBC +index.db):\n%s", diff)
			}
			files := 0
			err = filepath.WalkDir(fromFBC, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(fromFBC, path)
				want, _ := os.ReadFile(path)
				got, err := os.ReadFile(filepath.Join(fromDB, rel))
				if err != nil {
					t.Errorf("%s: written from the FBC, not from the index.db (%v)", rel, err)
					return nil
				}
				files++
				if !bytes.Equal(want, got) {
					t.Errorf("%s differs between the index.db and its FBC", rel)
				}
				return nil
			})
			if err != nil || files == 0 {
				t.Fatalf("no file compared (%v)", err)
			}
			compared++
		})
	}
	if compared == 0 {
		t.Fatal("no case compared")
	}
}
