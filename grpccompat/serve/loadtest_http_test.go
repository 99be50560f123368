package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"
)

// httpLoad is TestLoad's HTTP phase (OLMCAT_HTTP=1, the server started with --http-addr), run
// right after gRPC health says SERVING:
//   - the first byte of /api/v1/all, from ready (goal on s5k: 50 ms), and the whole stream;
//   - 1,000 metas queries for one package, one after another: p50/p99 (goal on s5k: 5 ms p99);
//   - clients clients for d (at most 100,000 requests), each on its own connection, mixing 2%
//     /api/v1/all (a quarter of them gzip), 6% /api/v1/all If-Modified-Since (304) with metas by package, by schema and package, and by
//     schema, package and name: p50/p99 per endpoint and errors. Errors fail the test.
func httpLoad(t *testing.T, addr string, ready time.Time, clients int, d time.Duration) {
	base := "http://" + addr
	var firstByte time.Duration
	var lastModified string
	for {
		resp, err := http.Get(base + "/api/v1/all")
		if err != nil {
			t.Fatalf("/api/v1/all: %v", err)
		}
		if resp.StatusCode == http.StatusServiceUnavailable && time.Since(ready) < 10*time.Second {
			resp.Body.Close()
			continue
		}
		br := bufio.NewReader(resp.Body)
		if _, err := br.Peek(1); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("/api/v1/all: %s %v", resp.Status, err)
		}
		firstByte = time.Since(ready)
		lastModified = resp.Header.Get("Last-Modified")
		n, err := io.Copy(io.Discard, br)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("HTTP /api/v1/all: first byte %v after ready, %d MB in %v", firstByte.Round(100*time.Microsecond), n>>20, (time.Since(ready) - firstByte).Round(time.Millisecond))
		break
	}
	keys := httpKeys(t, base)
	pkg := keys[len(keys)/2].Package
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, c := range []struct {
		label, query string
		gz           bool
	}{
		{"metas?package (one client, 1000 queries)", "package=" + url.QueryEscape(pkg), false},
		{"  the same, gzip", "package=" + url.QueryEscape(pkg), true},
		{"metas?schema=olm.package&name (1000)", "schema=olm.package&name=" + url.QueryEscape(pkg), false},
	} {
		var serial []time.Duration
		size := 0
		for range 1000 {
			begin := time.Now()
			n, err := httpGet(client, base+"/api/v1/metas?"+c.query, c.gz, "")
			if err != nil {
				t.Fatal(err)
			}
			serial, size = append(serial, time.Since(begin)), n
		}
		logPercentiles(t, fmt.Sprintf("%s, %d kB", c.label, size>>10), serial)
	}
	if d <= 0 {
		return
	}

	var mu sync.Mutex
	byEndpoint := map[string][]time.Duration{}
	errs, total := 0, 0
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			cl := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			r := rand.New(rand.NewSource(seed))
			local := map[string][]time.Duration{}
			localErrs := 0
			for n := 0; time.Now().Before(deadline) && n < 100000/clients; n++ {
				k := keys[r.Intn(len(keys))]
				var endpoint, u string
				gz, ims := false, ""
				switch p := r.Intn(200); {
				case p < 4:
					endpoint, u, gz = "all", base+"/api/v1/all", p == 0
				case p < 16:
					endpoint, u, ims = "all If-Modified-Since (304)", base+"/api/v1/all", lastModified
				case p < 80:
					endpoint, u = "metas?package", base+"/api/v1/metas?"+url.Values{"package": {k.Package}}.Encode()
				case p < 140:
					endpoint, u = "metas?schema&package", base+"/api/v1/metas?"+url.Values{"schema": {k.Schema}, "package": {k.Package}}.Encode()
				default:
					endpoint, u = "metas?schema&package&name", base+"/api/v1/metas?"+url.Values{"schema": {k.Schema}, "package": {k.Package}, "name": {k.Name}}.Encode()
				}
				begin := time.Now()
				if _, err := httpGet(cl, u, gz, ims); err != nil {
					if localErrs == 0 {
						t.Errorf("%s under load: %v", endpoint, err)
					}
					localErrs++
					continue
				}
				local[endpoint] = append(local[endpoint], time.Since(begin))
			}
			cl.CloseIdleConnections()
			mu.Lock()
			defer mu.Unlock()
			for e, ds := range local {
				byEndpoint[e] = append(byEndpoint[e], ds...)
				total += len(ds)
			}
			errs += localErrs
		}(int64(c))
	}
	wg.Wait()
	t.Logf("HTTP load: %d clients for %v: %d requests (%.0f/s), %d errors", clients, d, total+errs, float64(total+errs)/d.Seconds(), errs)
	for _, e := range []string{"all", "all If-Modified-Since (304)", "metas?package", "metas?schema&package", "metas?schema&package&name"} {
		logPercentiles(t, "  "+e, byEndpoint[e])
	}
}

type blobKey struct{ Schema, Package, Name string }

// httpKeys lists every blob's schema, package and name, from the olm.bundle and olm.channel blobs.
func httpKeys(t *testing.T, base string) []blobKey {
	var keys []blobKey
	for _, schema := range []string{"olm.bundle", "olm.channel"} {
		resp, err := http.Get(base + "/api/v1/metas?schema=" + schema)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(resp.Body)
		for {
			var k blobKey
			if err := dec.Decode(&k); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		resp.Body.Close()
	}
	if len(keys) == 0 {
		t.Fatal("no bundle or channel blob served")
	}
	return keys
}

// httpGet reads the whole answer (compressed, with gz) and returns its size; an answer other than
// 200 (304 with ims) is an error.
func httpGet(c *http.Client, u string, gz bool, ims string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	want := http.StatusOK
	if ims != "" {
		req.Header.Set("If-Modified-Since", ims)
		want = http.StatusNotModified
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return int(n), err
	}
	if resp.StatusCode != want {
		return int(n), fmt.Errorf("%s: %s", u, resp.Status)
	}
	return int(n), nil
}

func logPercentiles(t *testing.T, label string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	t.Logf("%-40s n=%-7d p50=%-10v p99=%v", label, len(ds), ds[len(ds)/2].Round(time.Microsecond), ds[len(ds)*99/100].Round(time.Microsecond))
}
