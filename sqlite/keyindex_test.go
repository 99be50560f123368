package sqlite

import (
	"context"
	"database/sql"
	"hash/maphash"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestKeyIndexRunsAndLookups(t *testing.T) {
	k := newKeyIndex(maphash.MakeSeed())
	// Rows in rowid order: a's rows together, then b and a interleaved, then a gap in c's rows.
	rows := []struct {
		name  string
		rowid int64
	}{{"a", 1}, {"a", 2}, {"a", 3}, {"b", 4}, {"a", 5}, {"b", 6}, {"c", 9}, {"c", 10}, {"c", 12}}
	for _, r := range rows {
		k.add([]byte(r.name), r.rowid)
	}
	k.finish()
	if len(k.runs) != 6 { // a:1-3, b:4, a:5, b:6, c:9-10, c:12
		t.Errorf("%d runs, want 6: %+v", len(k.runs), k.runs)
	}
	for name, want := range map[string][]int64{"a": {1, 2, 3, 5}, "b": {4, 6}, "c": {9, 10, 12}, "d": nil} {
		if got := k.appendRowids(nil, name); !slices.Equal(got, want) {
			t.Errorf("rowids of %s = %v, want %v", name, got, want)
		}
	}
	var none *keyIndex
	if got := none.appendRowids([]int64{7}, "a"); !slices.Equal(got, []int64{7}) {
		t.Errorf("a nil index added rowids: %v", got)
	}
}

// TestChainIndexDenseAndSparse builds the same chain over dense entry ids (a bitmap) and over ids
// spread far apart (sorted ids), in and out of order, and asks both every id.
func TestChainIndexDenseAndSparse(t *testing.T) {
	type entry struct{ id, replaces, depth int64 }
	// Two channels: 1 <- 2 <- 3 (3 at depth 0) and 4 <- 5 (5 at depth 0); 6 replaces 1 at depth 1,
	// off the chain; 7 replaces an id no entry has.
	entries := []entry{{1, 0, 2}, {2, 1, 1}, {3, 2, 0}, {4, 0, 1}, {5, 4, 0}, {6, 1, 1}, {7, 99, 0}}
	onChain := map[int64]bool{1: true, 2: true, 3: true, 4: true, 5: true, 7: true}
	for _, scale := range []int64{1, 1 << 40} {
		for _, reverse := range []bool{false, true} {
			c := newChainBuilder()
			order := slices.Clone(entries)
			if reverse {
				slices.Reverse(order)
			}
			for _, e := range order {
				rep := sql.NullInt64{Int64: e.replaces * scale, Valid: e.replaces != 0}
				c.add(e.id*scale, rep, sql.NullInt64{Int64: e.depth, Valid: true})
			}
			idx := c.build()
			if dense := idx.bits != nil; dense != (scale == 1) {
				t.Errorf("scale %d: bitmap %v", scale, dense)
			}
			for id := int64(0); id <= 8; id++ {
				if got := idx.has(id * scale); got != onChain[id] {
					t.Errorf("scale %d reverse %v: entry %d on chain = %v, want %v", scale, reverse, id, got, onChain[id])
				}
			}
			if idx.has(-1) || idx.has(1<<62) {
				t.Errorf("scale %d: an id outside the entries is on the chain", scale)
			}
		}
	}
}

// TestReadersPassOverCollidingRows makes the properties, dependencies and related_image rows of
// one bundle answer to another bundle's hash, as two names of one hash would, and checks that the
// other bundle's contents read as before.
func TestReadersPassOverCollidingRows(t *testing.T) {
	cases := readerCases(t)
	db, err := Open(filepath.Join(readerConformanceDir, cases[0], "input.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	refs, err := db.Packages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var (
		p     *PackageData
		names []string
	)
	for _, ref := range refs {
		if p, err = db.ReadPackage(ctx, ref); err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for name := range p.Bundles {
			names = append(names, name)
		}
		if len(names) >= 2 {
			break
		}
	}
	if len(names) < 2 {
		t.Fatalf("%s: no package has two bundles", cases[0])
	}
	slices.Sort(names)
	victim, other := names[0], names[1]
	idx, err := db.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	collide := func(k *keyIndex) *keyIndex {
		if k == nil {
			return nil
		}
		out := &keyIndex{seed: k.seed, runs: slices.Clone(k.runs)}
		from, to := maphash.String(k.seed, other), maphash.String(k.seed, victim)
		for i := range out.runs {
			if out.runs[i].hash == from {
				out.runs[i].hash = to
			}
		}
		out.finish()
		return out
	}
	want := *p.Bundles[victim]
	got := BundleRow{Name: want.Name}
	forged := &rowIndex{properties: collide(idx.properties), dependencies: collide(idx.dependencies), images: collide(idx.images)}
	sub := &PackageData{PackageRef: p.PackageRef, Bundles: map[string]*BundleRow{victim: &got}}
	if err := db.readBundleRelations(ctx, forged, sub); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Properties, want.Properties) || !reflect.DeepEqual(got.Dependencies, want.Dependencies) || !reflect.DeepEqual(got.RelatedImages, want.RelatedImages) {
		t.Errorf("bundle %s read with %s's rows under its hash:\n got %+v %+v %v\nwant %+v %+v %v", victim, other,
			got.Properties, got.Dependencies, got.RelatedImages, want.Properties, want.Dependencies, want.RelatedImages)
	}
	if len(forged.properties.appendRowids(nil, victim)) <= len(idx.properties.appendRowids(nil, victim)) && db.SchemaVersion() >= 9 {
		t.Errorf("the forged index does not hand %s's rows to %s: the test proves nothing", other, victim)
	}
}
