package fbcbackend

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/replay"
)

const corpus = "../../../shared/conformance"

// TestReplaysOpmServe serves every FBC of the corpus (fbc/*/catalog, and the migrate/ output of
// each sqlite case) and replays the calls recorded from `opm serve` on it.
func TestReplaysOpmServe(t *testing.T) {
	type servedCase struct{ name, catalog, answers string }
	var cases []servedCase
	plans, _ := filepath.Glob(filepath.Join(corpus, "fbc", "*", "grpc", "plan.json"))
	for _, p := range plans {
		dir := filepath.Dir(filepath.Dir(p))
		cases = append(cases, servedCase{"fbc/" + filepath.Base(dir), filepath.Join(dir, "catalog"), filepath.Dir(p)})
	}
	plans, _ = filepath.Glob(filepath.Join(corpus, "sqlite", "*", "grpc-fbc", "plan.json"))
	for _, p := range plans {
		dir := filepath.Dir(filepath.Dir(p))
		cases = append(cases, servedCase{"sqlite/" + filepath.Base(dir), filepath.Join(dir, "migrate"), filepath.Dir(p)})
	}
	if len(cases) == 0 {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository)", corpus)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Open(context.Background(), Dir(c.catalog), Options{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer b.Close()
			replay.Run(t, b, c.answers, replay.Options{Experimental: true})
		})
	}
}
