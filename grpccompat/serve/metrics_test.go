package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// scrape reads the metrics at url into families by name.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return parseMetrics(t, url, resp.Body)
}

func parseMetrics(t *testing.T, url string, r io.Reader) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return families
}

// lint checks the names, units and help of every family against Prometheus's conventions, as
// promtool check metrics does: base units in the name (seconds, bytes), _total on counters only.
func lint(t *testing.T, where string, families map[string]*dto.MetricFamily) {
	t.Helper()
	mfs := make([]*dto.MetricFamily, 0, len(families))
	for _, f := range families {
		mfs = append(mfs, f)
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s: %s", where, p.Metric, p.Text)
	}
}

// value is the value of the one sample of family name whose labels include want (counter, gauge,
// or a histogram's count), and whether there is one.
func value(families map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := families[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func expectValue(t *testing.T, families map[string]*dto.MetricFamily, where, name string, labels map[string]string, want float64) {
	t.Helper()
	got, ok := value(families, name, labels)
	if !ok {
		t.Errorf("%s: no %s%v", where, name, labels)
	} else if got != want {
		t.Errorf("%s: %s%v = %v, want %v", where, name, labels, got, want)
	}
}

// After a few gRPC and HTTP calls, /metrics (on --metrics-addr and on the HTTP address) counts
// exactly those calls, and the catalog gauges are the catalog's own counts.
func TestMetrics(t *testing.T) {
	catalog := needCorpus(t, "fbc/community-v4.20-csvmetadata-subset/catalog")
	var metricsAddr string
	base, grpcAddr, stopServer := runHTTP(t, Options{Path: catalog, MetricsAddr: "127.0.0.1:0",
		MetricsReady: func(a net.Addr) { metricsAddr = a.String() }, Version: "v9.9.9-test", Revision: "0123abc"})
	stop := sync.OnceValue(stopServer)
	defer stop()

	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := api.NewRegistryClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const listPackages = 3
	var pkgs []string
	for range listPackages {
		stream, err := client.ListPackages(ctx, &api.ListPackageRequest{})
		if err != nil {
			t.Fatal(err)
		}
		pkgs = pkgs[:0]
		for {
			p, err := stream.Recv()
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			pkgs = append(pkgs, p.Name)
		}
	}
	_, err = client.GetPackage(ctx, &api.GetPackageRequest{Name: "no-such-package"})
	if err == nil {
		t.Fatal("GetPackage of an unknown package answered")
	}
	notFound := status.Code(err).String() // opm's: Unknown

	all := getBody(t, base+"/api/v1/all")
	getBody(t, base+"/catalogs/any/api/v1/all")
	packageBlobs := getBody(t, base+"/api/v1/metas?schema=olm.package")
	bundles := strings.Count(getBody(t, base+"/api/v1/metas?schema=olm.bundle"), "\n")
	if resp, err := http.Get(base + "/nope"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if bundles == 0 || len(pkgs) != strings.Count(packageBlobs, "\n") {
		t.Fatalf("catalog: %d bundles, %d packages over gRPC, %d over HTTP", bundles, len(pkgs), strings.Count(packageBlobs, "\n"))
	}

	for where, url := range map[string]string{"--metrics-addr": "http://" + metricsAddr + "/metrics", "HTTP address": base + "/metrics"} {
		families := scrape(t, url)
		lint(t, where, families)
		registry := map[string]string{"grpc_service": "api.Registry", "grpc_method": "ListPackages"}
		expectValue(t, families, where, "grpc_server_started_total", registry, listPackages)
		expectValue(t, families, where, "grpc_server_handled_total", map[string]string{"grpc_method": "ListPackages", "grpc_code": "OK"}, listPackages)
		expectValue(t, families, where, "grpc_server_handling_seconds", registry, listPackages)
		expectValue(t, families, where, "grpc_server_handled_total", map[string]string{"grpc_method": "GetPackage", "grpc_code": notFound}, 1)
		expectValue(t, families, where, "grpc_server_handled_total", map[string]string{"grpc_method": "ListBundles", "grpc_code": "OK"}, 0)
		expectValue(t, families, where, "olmcat_grpc_calls_in_flight", registry, 0)

		expectValue(t, families, where, "olmcat_http_requests_total", map[string]string{"route": "all", "method": "get", "code": "200"}, 2)
		expectValue(t, families, where, "olmcat_http_requests_total", map[string]string{"route": "metas", "method": "get", "code": "200"}, 2)
		expectValue(t, families, where, "olmcat_http_requests_total", map[string]string{"route": "other", "code": "404"}, 1)
		expectValue(t, families, where, "olmcat_http_request_duration_seconds", map[string]string{"route": "all", "method": "get"}, 2)
		expectValue(t, families, where, "olmcat_http_requests_in_flight", map[string]string{"route": "all"}, 0)
		if h := families["olmcat_http_response_size_bytes"]; h == nil {
			t.Errorf("%s: no olmcat_http_response_size_bytes", where)
		} else {
			for _, m := range h.Metric {
				if m.Label[0].GetValue() == "all" && m.Histogram.GetSampleSum() != float64(2*len(all)) {
					t.Errorf("%s: %v bytes sent on /all, want %d", where, m.Histogram.GetSampleSum(), 2*len(all))
				}
			}
		}

		expectValue(t, families, where, "olmcat_catalog_packages", nil, float64(len(pkgs)))
		expectValue(t, families, where, "olmcat_catalog_bundles", nil, float64(bundles))
		expectValue(t, families, where, "olmcat_http_catalog_blobs", nil, float64(strings.Count(all, "\n")))
		expectValue(t, families, where, "olmcat_cache_hits_total", nil, 0)
		expectValue(t, families, where, "olmcat_cache_rebuilds_total", nil, 0)
		expectValue(t, families, where, "olmcat_build_info", map[string]string{"version": "v9.9.9-test", "revision": "0123abc"}, 1)
		if load, ok := value(families, "olmcat_catalog_load_seconds", nil); !ok || load <= 0 {
			t.Errorf("%s: olmcat_catalog_load_seconds %v", where, load)
		}
		for _, name := range []string{"go_build_info", "go_goroutines", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
			if families[name] == nil {
				t.Errorf("%s: no %s", where, name)
			}
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// The cache counters: the first start with --cache-dir builds the cache, the second reuses it.
func TestMetricsCache(t *testing.T) {
	catalog := needCorpus(t, "fbc/deprecations-konflux/catalog")
	cache := t.TempDir()
	for i, want := range []struct{ hits, rebuilds float64 }{{0, 1}, {1, 0}} {
		var metricsAddr string
		_, _, stop := runHTTP(t, Options{Path: catalog, CacheDir: cache, MetricsAddr: "127.0.0.1:0",
			MetricsReady: func(a net.Addr) { metricsAddr = a.String() }})
		families := scrape(t, "http://"+metricsAddr+"/metrics")
		where := []string{"first start", "second start"}[i]
		expectValue(t, families, where, "olmcat_cache_hits_total", nil, want.hits)
		expectValue(t, families, where, "olmcat_cache_rebuilds_total", nil, want.rebuilds)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// plainClient asks for no compression, so that bytes sent are the body's bytes.
var plainClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := plainClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return string(body)
}

// An index.db's packages and bundles are counted in SQL; they are the ones its rendering holds.
func TestMetricsIndexDB(t *testing.T) {
	db := needCorpus(t, "sqlite/kube-green-replaces/input.db")
	base, _, stop := runHTTP(t, Options{Path: db})
	defer stop()
	bundles := strings.Count(getBody(t, base+"/api/v1/metas?schema=olm.bundle"), "\n")
	packages := strings.Count(getBody(t, base+"/api/v1/metas?schema=olm.package"), "\n")
	if bundles == 0 || packages == 0 {
		t.Fatalf("%d bundles, %d packages", bundles, packages)
	}
	families := scrape(t, base+"/metrics")
	expectValue(t, families, "index.db", "olmcat_catalog_bundles", nil, float64(bundles))
	expectValue(t, families, "index.db", "olmcat_catalog_packages", nil, float64(packages))
}
