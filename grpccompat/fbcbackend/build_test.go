package fbcbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
)

// A temporary cache is never reused: no catalog digest is computed and no index file written.
func TestTemporaryCacheSkipsDigestAndIndex(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	in := Dir(writeCatalog(t, generate.Small))
	in.Digest = func() (string, error) { return "", errors.New("the digest of a temporary cache was computed") }
	b, err := Open(context.Background(), in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	index, _ := filepath.Glob(filepath.Join(os.TempDir(), tempCachePrefix+"*", "*", indexFile))
	index2, _ := filepath.Glob(filepath.Join(os.TempDir(), tempCachePrefix+"*", indexFile))
	if len(index)+len(index2) > 0 {
		t.Errorf("a temporary cache wrote %v", append(index, index2...))
	}
}

// Records appended from many goroutines land where their refs say, and the sum covers the file.
func TestStoreWriterKeepsRefsUnderConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), bodiesFile)
	w, err := createStore(path, true)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 300
	refs := make([][]ref, writers)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				refs[g] = append(refs[g], w.append(bytes.Repeat([]byte(fmt.Sprintf("%d.%d;", g, i)), i%50+1)))
			}
		})
	}
	wg.Wait()
	size, sum, err := w.finish(false)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != size || xxhash.Sum64(data) != sum {
		t.Fatalf("finish says %d bytes, sum %x; the file has %d bytes, sum %x", size, sum, len(data), xxhash.Sum64(data))
	}
	r, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for g := range writers {
		for i, ref := range refs[g] {
			got, err := r.read(ref)
			if want := bytes.Repeat([]byte(fmt.Sprintf("%d.%d;", g, i)), i%50+1); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("record %d.%d reads %q (%v)", g, i, got, err)
			}
		}
	}
}

func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// The build collects less often than GOGC=100 would, and the process's settings are back after.
// A pace set by the user (GOGC) or by the program (compat sets its own) is left alone.
func TestBuildBoostsGCAndRestoresIt(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the build keeps them")
	}
	root := writeCatalog(t, generate.Small)
	for _, setBy := range []string{"", "user", "program"} {
		switch setBy {
		case "user":
			t.Setenv("GOGC", "100")
		case "program":
			defer debug.SetGCPercent(debug.SetGCPercent(70))
		}
		before, beforeLimit := gcSettings()
		var during int
		var duringLimit int64
		in := Dir(root)
		walk := in.Walk
		in.Walk = func(ctx context.Context, fn func(fbc.Blob) error) error {
			during, duringLimit = gcSettings()
			return walk(ctx, fn)
		}
		b, err := Open(context.Background(), in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b.Close()
		if after, afterLimit := gcSettings(); after != before || afterLimit != beforeLimit {
			t.Errorf("pace set by %q: GOGC %d, memory limit %d after the build; %d, %d before", setBy, after, afterLimit, before, beforeLimit)
		}
		boosted := during > before && duringLimit < math.MaxInt64
		if boosted != (setBy == "") {
			t.Errorf("pace set by %q: GOGC %d, memory limit %d during the build", setBy, during, duringLimit)
		}
	}
}

// Once the live heap passes boostLive the build goes on at largeBuildPercent, without the limit
// (which would collect continuously), and the settings are back after.
func TestLargeBuildKeepsItsHeadroom(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the build keeps them")
	}
	defer func(saved uint64) { boostLive = saved }(boostLive)
	boostLive = 1 // every build is a large one
	root := writeCatalog(t, generate.Options{Packages: 10, BundlesPerPackage: 10, Seed: 4})
	before, beforeLimit := gcSettings()
	var last struct {
		percent int
		limit   int64
	}
	in := Dir(root)
	walk := in.Walk
	in.Walk = func(ctx context.Context, fn func(fbc.Blob) error) error {
		return walk(ctx, func(b fbc.Blob) error {
			err := fn(b)
			last.percent, last.limit = gcSettings()
			return err
		})
	}
	b, err := Open(context.Background(), in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if last.percent != largeBuildPercent || last.limit != beforeLimit {
		t.Errorf("at the end of a large build: GOGC %d, memory limit %d; want %d, %d", last.percent, last.limit, largeBuildPercent, beforeLimit)
	}
	if after, afterLimit := gcSettings(); after != before || afterLimit != beforeLimit {
		t.Errorf("GOGC %d, memory limit %d after the build; %d, %d before", after, afterLimit, before, beforeLimit)
	}
}

// Converting a bundle decodes its manifests straight into the record it stores: the manifests
// are not allocated once more as strings, nor copied into the record afterwards.
func TestConvertBundleAllocatesManifestsOnce(t *testing.T) {
	var blobs [][]byte
	big := generate.Options{Packages: 2, BundlesPerPackage: 6, CRDsPerBundle: 3, DescriptionBytes: 16 << 10, Seed: 9}
	if err := fbc.Walk(writeCatalog(t, big), func(b fbc.Blob) error {
		if b.Schema == fbc.SchemaBundle {
			blobs = append(blobs, b.Data)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	records := uint64(0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, data := range blobs {
		c, err := convertBundle(data)
		if err != nil {
			t.Fatal(err)
		}
		records += uint64(len(c.record))
	}
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > records*3/2+uint64(len(blobs))*(8<<10) {
		t.Errorf("converting %d bundles allocated %d bytes for %d bytes of records", len(blobs), allocated, records)
	}
}

// The build hands each bundle blob back to bytepool once converted, so nothing converted may
// share the blob's memory: scribbling over the blob must change neither the in-memory answer
// nor the stored record, on every bundle of the conformance catalogs.
func TestConvertedBundleSharesNothingWithItsBlob(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(corpus, "*", "*", "catalog"))
	if len(dirs) == 0 {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository)", corpus)
	}
	bundles := 0
	for _, dir := range dirs {
		_ = fbc.Walk(dir, func(b fbc.Blob) error {
			if b.Schema != fbc.SchemaBundle {
				return nil
			}
			c, err := convertBundle(b.Data)
			if err != nil {
				return nil // broken catalogs: the error is tested elsewhere
			}
			bundles++
			light, _ := proto.Marshal(c.light)
			record := bytes.Clone(c.record)
			provided := fmt.Sprint(c.provided)
			for i := range b.Data {
				b.Data[i] = 'x'
			}
			lightAfter, _ := proto.Marshal(c.light)
			if !bytes.Equal(light, lightAfter) || !bytes.Equal(record, c.record) || provided != fmt.Sprint(c.provided) || c.name == strings.Repeat("x", len(c.name)) {
				t.Errorf("%s: bundle %s: the converted bundle changed when its blob was overwritten", b.Loc, b.Name)
			}
			return nil
		})
	}
	if bundles < 100 {
		t.Fatalf("only %d bundles converted from %s", bundles, corpus)
	}
}
