package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// differingIDs lists the ids of the differing calls.
func differingIDs(r *Report) []string {
	var ids []string
	for _, d := range r.Differences {
		ids = append(ids, d.ID)
	}
	return ids
}

// knownDifferent are the corpus index.db cases whose migrated FBC does not answer the same once
// every documented difference is normalized, and why.
var knownDifferent = map[string]string{
	// opm's schema upgrade stores properties.value as BLOB, so every SQL provider query fails,
	// while the migrated FBC answers them (conformance README, "Old schema-5 db").
	"real-indexer-testdata-schema5": "GetChannelEntriesThatProvide",
}

// The verdict of the harness on opm's recorded answers (registry serve vs serve of the migrated
// FBC) is the verdict on our own two servers (input.db vs migrate/, in-process), call by call.
func TestCorpusVerdictOnLocalServersEqualsVerdictOnRecordedAnswers(t *testing.T) {
	for _, dir := range sqliteCases(t, true) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			plan, err := LoadPlan(filepath.Join(dir, "grpc", "plan.json"))
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := Check(t.Context(), recording(t, filepath.Join(dir, "grpc"), KindUnknown),
				recording(t, filepath.Join(dir, "grpc-fbc"), KindUnknown), Options{Plan: plan})
			if err != nil {
				t.Fatalf("check recorded answers: %v", err)
			}
			if !recorded.CrossKind || recorded.Left.Kind != "sqlite" || recorded.Right.Kind != "fbc" {
				t.Errorf("kinds detected from the recordings: %s/%s, want sqlite/fbc", recorded.Left.Kind, recorded.Right.Kind)
			}
			if method, ok := knownDifferent[name]; ok {
				if recorded.Equal() || !slices.ContainsFunc(recorded.Differences, func(d Difference) bool { return d.Method == "api.Registry/"+method }) {
					t.Errorf("recorded answers: want differences in %s, got:\n%s", method, recorded.Summary())
				}
			} else if !recorded.Equal() {
				var b bytes.Buffer
				recorded.WriteText(&b)
				t.Errorf("opm's two servers differ beyond the documented differences:\n%s", b.String())
			}

			local, err := Check(t.Context(), openServable(t, filepath.Join(dir, "input.db")),
				openCatalogTarget(t, filepath.Join(dir, "migrate")), Options{})
			if err != nil {
				t.Fatalf("check local servers: %v", err)
			}
			comparePlans(t, plan, local.Plan)
			if local.Verdict() != recorded.Verdict() || local.Total.Different != recorded.Total.Different {
				t.Errorf("verdict on local servers %q (%d different), on opm's answers %q (%d different)",
					local.Verdict(), local.Total.Different, recorded.Verdict(), recorded.Total.Different)
			}
			if diff := cmp.Diff(differingIDs(recorded), differingIDs(local)); diff != "" {
				t.Errorf("differing calls (-opm +olmcat):\n%s", diff)
			}
		})
	}
}

// Without normalizations, the same pairs differ: the normalizations are what makes them equal.
func TestStrictFindsTheDocumentedDifferences(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-foo-index-v0.2.0")
	left, right := recording(t, filepath.Join(dir, "grpc"), KindUnknown), recording(t, filepath.Join(dir, "grpc-fbc"), KindUnknown)
	strict, err := Check(t.Context(), left, right, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if strict.Equal() || len(strict.Normalizations) != 0 || strict.Total.Normalized != 0 {
		t.Fatalf("strict comparison: %s, normalizations %v", strict.Summary(), strict.Normalizations)
	}
	// Leaving one normalization out brings back exactly the calls it was needed for.
	all, err := Check(t.Context(), left, right, Options{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := ParseNormalizations("all,-plural")
	if err != nil {
		t.Fatal(err)
	}
	noPlural, err := Check(t.Context(), left, right, Options{Normalize: names})
	if err != nil {
		t.Fatal(err)
	}
	pluralCalls := 0
	for _, n := range all.Normalizations {
		if n.Name == "plural" {
			pluralCalls = n.Calls
		}
	}
	if pluralCalls == 0 || noPlural.Total.Different != pluralCalls {
		t.Errorf("without plural: %d different, plural was applied to %d calls", noPlural.Total.Different, pluralCalls)
	}
	for _, d := range noPlural.Differences {
		if !strings.Contains(d.Diff, "plural") {
			t.Errorf("call %s differs for another reason than plural:\n%s", d.ID, d.Diff)
		}
	}
}

func TestParseNormalizations(t *testing.T) {
	all, _ := ParseNormalizations("all")
	if len(all) != len(Normalizations()) {
		t.Errorf("all = %d names, want %d", len(all), len(Normalizations()))
	}
	got, err := ParseNormalizations("stream-order, plural ,none,property-json")
	if err != nil || !slices.Equal(got, []string{"property-json"}) {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := ParseNormalizations("plurals"); err == nil || !strings.Contains(err.Error(), "plural") {
		t.Errorf("unknown name: %v", err)
	}
	for _, n := range Normalizations() {
		if n.Doc == "" || n.Refs == "" || !strings.Contains("NPSW", n.Class) {
			t.Errorf("normalization %s is not documented: %+v", n.Name, n)
		}
	}
}

// The JSON report is stable and carries the verdict.
func TestReportFormats(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-foo-index-v0.2.0")
	r, err := Check(context.Background(), recording(t, filepath.Join(dir, "grpc"), KindUnknown),
		recording(t, filepath.Join(dir, "grpc-fbc"), KindUnknown), Options{Normalize: []string{"stream-order"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{FormatText, FormatJSON, FormatMarkdown} {
		var b bytes.Buffer
		if err := r.Write(&b, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := b.String()
		if !strings.Contains(out, "GetBundleForChannel") || !strings.Contains(out, "different") {
			t.Errorf("%s report lacks the method table or verdict:\n%s", format, out)
		}
		if format == FormatJSON {
			var back struct {
				Verdict     string
				Total       MethodStats
				Differences []Difference
			}
			if err := json.Unmarshal(b.Bytes(), &back); err != nil {
				t.Fatalf("JSON report does not parse: %v", err)
			}
			if back.Verdict != "different" || back.Total.Calls != 28 || len(back.Differences) != r.Total.Different {
				t.Errorf("JSON report: %+v", back)
			}
		}
	}
	if err := r.Write(&bytes.Buffer{}, "xml"); err == nil {
		t.Errorf("unknown format accepted")
	}
}

// opm serve's recorded answers on the corpus FBC catalogs (custom-schema calls included, with
// their metadata) equal olmcat's FBC server's, with no SQLite-vs-FBC normalization at all.
func TestFBCCorpusRecordedEqualsLocalServer(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(corpus(t), "fbc", "*"))
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rec := recording(t, filepath.Join(dir, "grpc"), KindUnknown)
			r := TestParity(t, rec, openCatalogTarget(t, filepath.Join(dir, "catalog")), Options{Plan: rec.(*recordedTarget).Plan()})
			if r.CrossKind || r.Left.Kind != "fbc" {
				t.Errorf("kinds: %s vs %s", r.Left.Kind, r.Right.Kind)
			}
		})
	}
}
