package httpapi

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Paths and methods are client input: requests to 1,000 random paths with random methods keep the
// route label to its fixed set and the method label to promhttp's known methods, and a second
// 1,000 add no series (each would be kept for the life of the process).
func TestRandomRequestsAddNoMetricSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := NewServer(Options{Registerer: reg, Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})})
	s.SetStore(testStore(t, 16))
	h := s.Handler()
	rng := rand.New(rand.NewPCG(19, 22))
	word := func() string { return fmt.Sprintf("%x", rng.Uint64()) }
	paths := []func() string{
		func() string { return "/" + word() },
		func() string { return "/catalogs/" + word() + "/api/v1/" + word() },
		func() string { return "/api/v1/all/" + word() },
		func() string { return "/catalogs/c" + word() + "/api/v1/all" },
		func() string { return "/api/v1/metas?" + word() + "=1" },
		func() string { return "/healthz/" + word() },
	}
	methods := []func() string{
		func() string { return "GET" }, func() string { return "HEAD" }, func() string { return "POST" },
		func() string { return "PROPFIND" }, func() string { return "M" + word() },
	}
	series := func() (n int, labels map[string][]string) {
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		labels = map[string][]string{}
		for _, f := range families {
			n += len(f.Metric)
			for _, m := range f.Metric {
				for _, l := range m.Label {
					if !slices.Contains(labels[l.GetName()], l.GetValue()) {
						labels[l.GetName()] = append(labels[l.GetName()], l.GetValue())
					}
				}
			}
		}
		return n, labels
	}
	batch := func() (int, map[string][]string) {
		for range 1000 {
			do(t, h, methods[rng.IntN(len(methods))](), paths[rng.IntN(len(paths))]())
		}
		return series()
	}
	first, labels := batch()
	for _, route := range labels["route"] {
		if !slices.Contains(routeLabels, route) {
			t.Errorf("route label %q", route)
		}
	}
	for _, method := range labels["method"] {
		if !slices.Contains([]string{"get", "head", "post", "unknown"}, method) {
			t.Errorf("method label %q", method)
		}
	}
	if second, _ := batch(); second != first {
		t.Errorf("%d metric series after 1,000 more random requests, %d before", second, first)
	}
}
