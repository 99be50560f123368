package compat

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/olmcat/olmcat/internal/source"
)

type planLine struct {
	ID, Method string
	Request    map[string]any
	Metadata   map[string]string
}

func planLines(t *testing.T, p Plan) []planLine {
	t.Helper()
	out := make([]planLine, 0, len(p))
	for _, c := range p {
		l := planLine{ID: c.ID, Method: c.Method, Metadata: c.Metadata}
		if err := json.Unmarshal(c.Request, &l.Request); err != nil {
			t.Fatalf("call %s: %v", c.ID, err)
		}
		out = append(out, l)
	}
	return out
}

func comparePlans(t *testing.T, want, got Plan) {
	t.Helper()
	if diff := cmp.Diff(planLines(t, want), planLines(t, got)); diff != "" {
		if len(diff) > 4000 {
			diff = diff[:4000] + "\n..."
		}
		t.Errorf("plan differs from the corpus plan (-corpus +ours):\n%s", diff)
	}
}

// The plan derived from what opm's servers answered equals the plan the corpus was recorded with:
// for index.db cases the union over registry serve and serve of the migrated FBC.
func TestPlanEqualsCorpusPlanFromRecordedAnswers(t *testing.T) {
	for _, dir := range sqliteCases(t, false) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, err := LoadPlan(filepath.Join(dir, "grpc", "plan.json"))
			if err != nil {
				t.Fatal(err)
			}
			sides := []*facts{surveyOf(t, recording(t, filepath.Join(dir, "grpc"), KindSQLite))}
			if fbcDir := filepath.Join(dir, "grpc-fbc"); isRecordingDir(fbcDir) {
				sides = append(sides, surveyOf(t, recording(t, fbcDir, KindFBC)))
			}
			comparePlans(t, want, buildPlan(sides...))
		})
	}
	fbcCases, _ := filepath.Glob(filepath.Join(corpus(t), "fbc", "*"))
	for _, dir := range fbcCases {
		t.Run("fbc/"+filepath.Base(dir), func(t *testing.T) {
			want, err := LoadPlan(filepath.Join(dir, "grpc", "plan.json"))
			if err != nil {
				t.Fatal(err)
			}
			// Custom-schema calls are hand-written in the corpus: the API cannot list schemas.
			var registryOnly Plan
			for _, c := range want {
				if !strings.HasPrefix(c.Method, "api.ExperimentalRegistry/") {
					registryOnly = append(registryOnly, c)
				}
			}
			comparePlans(t, registryOnly, buildPlan(surveyOf(t, recording(t, filepath.Join(dir, "grpc"), KindFBC))))
		})
	}
}

// Our own servers, in-process on input.db and on opm's migrate output, lead to the same plan.
func TestPlanEqualsCorpusPlanFromLocalServers(t *testing.T) {
	for _, dir := range sqliteCases(t, true) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, err := LoadPlan(filepath.Join(dir, "grpc", "plan.json"))
			if err != nil {
				t.Fatal(err)
			}
			db := surveyOf(t, openServable(t, filepath.Join(dir, "input.db")))
			fbc := surveyOf(t, openCatalogTarget(t, filepath.Join(dir, "migrate")))
			comparePlans(t, want, buildPlan(db, fbc))
		})
	}
}

func TestPlanWriteReadRoundTrip(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-foo-index-v0.2.0")
	p, err := BuildPlan(t.Context(), time.Minute, recording(t, filepath.Join(dir, "grpc"), KindSQLite))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlan(&buf, "buffer")
	if err != nil {
		t.Fatal(err)
	}
	comparePlans(t, p, back)
}

func TestPlanSampleIsDeterministicAndKeepsListings(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "synthetic-20x10")
	p := buildPlan(surveyOf(t, recording(t, filepath.Join(dir, "grpc"), KindSQLite)))
	a, b, c := p.Sample(100, 7), p.Sample(100, 7), p.Sample(100, 8)
	if len(a) != 100 {
		t.Fatalf("sample has %d calls, want 100", len(a))
	}
	if diff := cmp.Diff(planLines(t, a), planLines(t, b)); diff != "" {
		t.Errorf("same seed, different samples:\n%s", diff)
	}
	if cmp.Equal(planLines(t, a), planLines(t, c)) {
		t.Errorf("seeds 7 and 8 gave the same sample")
	}
	if a[0].Method != ListPackages || a[1].Method != ListBundles {
		t.Errorf("sample does not start with the listings: %s, %s", a[0].Method, a[1].Method)
	}
	for i := 1; i < len(a); i++ {
		if a[i-1].ID >= a[i].ID {
			t.Fatalf("sample not in plan order at %s, %s", a[i-1].ID, a[i].ID)
		}
	}
}

func TestReadPlanRejectsBadPlans(t *testing.T) {
	for name, text := range map[string]string{
		"not json":       `[{"id": "0001", "method": `,
		"not an array":   `{"id": "0001"}`,
		"unknown method": `[{"id": "0001", "method": "api.Registry/Nope", "request": {}}]`,
		"bad request":    `[{"id": "0001", "method": "api.Registry/GetPackage", "request": {"nom": "x"}}]`,
		"duplicate id":   `[{"id": "1", "method": "api.Registry/ListPackages"}, {"id": "1", "method": "api.Registry/ListBundles"}]`,
		"missing id":     `[{"method": "api.Registry/ListPackages"}]`,
		"trailing data":  `[] []`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadPlan(strings.NewReader(text), "plan.json")
			if err == nil {
				t.Fatalf("plan accepted")
			}
			if !strings.Contains(err.Error(), "plan.json") {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func isRecordingDir(dir string) bool {
	ref, err := source.Parse(dir)
	return err == nil && ref.Form == source.FormRecording
}
