package compat

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/olmcat/olmcat/grpccompat/httpapi"
)

// HTTPOptions configure CheckHTTP. The zero value is usable.
type HTTPOptions struct {
	Concurrency int           // queries in flight (default 4 per CPU)
	MaxDetails  int           // differences reported in full (default 100)
	Timeout     time.Duration // deadline of each request (default one minute)
}

// HTTPReport is the outcome of comparing two catalogd APIs blob for blob.
type HTTPReport struct {
	Left, Right string
	All         SetDiff          `json:"all"`
	Queries     int              `json:"metasQueries"`
	EqualCount  int              `json:"metasEqual"`
	Different   []HTTPQueryDiff  `json:"metasDifferent,omitempty"`
	Failed      []HTTPQueryError `json:"metasFailed,omitempty"`
	DiffCount   int              `json:"metasDifferentCount"`
}

// SetDiff compares two answers as sets of blobs (canonical JSON, with multiplicity).
type SetDiff struct {
	LeftStatus, RightStatus int
	LeftBlobs, RightBlobs   int
	OnlyLeft                []string `json:",omitempty"` // blob keys, one per blob
	OnlyRight               []string `json:",omitempty"`
	Changed                 []string `json:",omitempty"` // keys on both sides with other content
}

// Equal reports the same status and the same blobs.
func (d SetDiff) Equal() bool {
	return d.LeftStatus == d.RightStatus && len(d.OnlyLeft)+len(d.OnlyRight)+len(d.Changed) == 0
}

type HTTPQueryDiff struct {
	Query string
	SetDiff
}

type HTTPQueryError struct{ Query, Error string }

// Equal reports that both sides answered everything the same.
func (r *HTTPReport) Equal() bool {
	return r.All.Equal() && r.DiffCount == 0 && len(r.Failed) == 0
}

// CheckHTTP compares /api/v1/all of both sides, then every metas query derived from the union of
// their blobs (by each schema, package, schema and package, schema, package and name, and values
// and a parameter that match nothing), each as a set of blobs.
func CheckHTTP(ctx context.Context, left, right HTTPTarget, o HTTPOptions) (*HTTPReport, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = 4 * runtime.GOMAXPROCS(0)
	}
	if o.MaxDetails <= 0 {
		o.MaxDetails = 100
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	r := &HTTPReport{Left: left.String(), Right: right.String()}
	var keys [2]map[httpapi.Key]bool
	all, err := compareQuery(ctx, left, right, "all", nil, o.Timeout, &keys)
	if err != nil {
		return nil, fmt.Errorf("/api/v1/all: %w", err)
	}
	r.All = all
	queries := metasPlan(keys[0], keys[1])
	r.Queries = len(queries)
	var mu sync.Mutex
	jobs := make(chan url.Values)
	var wg sync.WaitGroup
	for range o.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range jobs {
				d, err := compareQuery(ctx, left, right, "metas", q, o.Timeout, nil)
				mu.Lock()
				switch {
				case err != nil:
					r.Failed = append(r.Failed, HTTPQueryError{Query: q.Encode(), Error: err.Error()})
				case d.Equal():
					r.EqualCount++
				default:
					r.DiffCount++
					r.Different = append(r.Different, HTTPQueryDiff{Query: q.Encode(), SetDiff: d})
				}
				mu.Unlock()
			}
		}()
	}
	for _, q := range queries {
		jobs <- q
	}
	close(jobs)
	wg.Wait()
	sort.Slice(r.Different, func(i, j int) bool { return r.Different[i].Query < r.Different[j].Query })
	sort.Slice(r.Failed, func(i, j int) bool { return r.Failed[i].Query < r.Failed[j].Query })
	r.Different = r.Different[:min(len(r.Different), o.MaxDetails)]
	return r, ctx.Err()
}

type blobSet map[uint64]*setEntry

type setEntry struct {
	key httpapi.Key
	n   int
}

func readSet(body io.Reader, keys map[httpapi.Key]bool) (blobSet, int, error) {
	set, n := blobSet{}, 0
	err := httpapi.DecodeStream(body, func(k httpapi.Key, canonical []byte) error {
		n++
		h := xxhash.Sum64(canonical)
		if e := set[h]; e != nil {
			e.n++
		} else {
			set[h] = &setEntry{key: k, n: 1}
		}
		if keys != nil {
			keys[k] = true
		}
		return nil
	})
	return set, n, err
}

func compareQuery(ctx context.Context, left, right HTTPTarget, path string, q url.Values, timeout time.Duration, keys *[2]map[httpapi.Key]bool) (SetDiff, error) {
	var d SetDiff
	var sets [2]blobSet
	for i, side := range []HTTPTarget{left, right} {
		var k map[httpapi.Key]bool
		if keys != nil {
			k = map[httpapi.Key]bool{}
			keys[i] = k
		}
		status, n, set, err := fetchSet(ctx, side, path, q, timeout, k)
		if err != nil {
			return d, fmt.Errorf("%s: %w", side, err)
		}
		sets[i] = set
		if i == 0 {
			d.LeftStatus, d.LeftBlobs = status, n
		} else {
			d.RightStatus, d.RightBlobs = status, n
		}
	}
	onlyL, onlyR := map[httpapi.Key]int{}, map[httpapi.Key]int{}
	for h, e := range sets[0] {
		if extra := e.n - count(sets[1], h); extra > 0 {
			onlyL[e.key] += extra
		}
	}
	for h, e := range sets[1] {
		if extra := e.n - count(sets[0], h); extra > 0 {
			onlyR[e.key] += extra
		}
	}
	for k, n := range onlyL {
		if m := onlyR[k]; m > 0 {
			d.Changed = append(d.Changed, k.String())
			n, onlyR[k] = n-min(n, m), m-min(n, m)
		}
		for range n {
			d.OnlyLeft = append(d.OnlyLeft, k.String())
		}
	}
	for k, n := range onlyR {
		for range n {
			d.OnlyRight = append(d.OnlyRight, k.String())
		}
	}
	sort.Strings(d.OnlyLeft)
	sort.Strings(d.OnlyRight)
	sort.Strings(d.Changed)
	return d, nil
}

func count(s blobSet, h uint64) int {
	if e := s[h]; e != nil {
		return e.n
	}
	return 0
}

func fetchSet(ctx context.Context, side HTTPTarget, path string, q url.Values, timeout time.Duration, keys map[httpapi.Key]bool) (int, int, blobSet, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	status, body, err := side.Get(ctx, path, q)
	if err != nil {
		return 0, 0, nil, err
	}
	defer body.Close()
	if status != http.StatusOK {
		io.Copy(io.Discard, body)
		return status, 0, blobSet{}, nil
	}
	set, n, err := readSet(body, keys)
	return status, n, set, err
}

// metasPlan is every query the union of both sides' blobs calls for, in a stable order.
func metasPlan(a, b map[httpapi.Key]bool) []url.Values {
	seen := map[string]bool{}
	var out []url.Values
	add := func(kv ...string) {
		q := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] != "" {
				q.Set(kv[i], kv[i+1])
			}
		}
		if e := q.Encode(); !seen[e] {
			seen[e] = true
			out = append(out, q)
		}
	}
	add() // no parameter: the whole catalog
	add("schema", "olmcat.compat.none")
	add("package", "olmcat.compat.none")
	add("name", "olmcat.compat.none")
	add("olmcat-unknown-parameter", "1")
	var all []httpapi.Key
	for _, m := range []map[httpapi.Key]bool{a, b} {
		for k := range m {
			all = append(all, k)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].String() < all[j].String() })
	for _, k := range all {
		add("schema", k.Schema)
		add("package", k.Package)
		add("schema", k.Schema, "package", k.Package)
		add("schema", k.Schema, "package", k.Package, "name", k.Name)
	}
	return out
}
