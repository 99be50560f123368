package sqlite

import (
	"cmp"
	"hash/maphash"
	"slices"
)

// keyIndex maps bundle names to the rowids of their rows in one table (properties, dependencies,
// related_image), none of which has an index on operatorbundle_name. It keeps runs of consecutive
// rowids keyed by a hash of the name, sorted by hash: opm writes a bundle's rows together, so a
// bundle costs one 24-byte run, where a map from name to rowids cost several hundred bytes. The
// whole table is scanned to build it, so its size grows with the catalog; that is what lets a
// package's rows be read without scanning each table once per package.
//
// Two names may share a hash: a lookup then returns the other bundle's rowids too, and the readers
// pass over every row whose operatorbundle_name they did not ask for.
type keyIndex struct {
	seed maphash.Seed
	runs []keyRun // by hash, then rowid
}

type keyRun struct {
	hash  uint64
	start int64
	n     int64
}

func newKeyIndex(seed maphash.Seed) *keyIndex { return &keyIndex{seed: seed} }

// add records a row; rows arrive in rowid order.
func (k *keyIndex) add(name []byte, rowid int64) {
	h := maphash.Bytes(k.seed, name)
	if n := len(k.runs); n > 0 {
		last := &k.runs[n-1]
		if last.hash == h && last.start+last.n == rowid {
			last.n++
			return
		}
	}
	k.runs = append(k.runs, keyRun{hash: h, start: rowid, n: 1})
}

// finish sorts the runs for lookups; runs of one hash stay in rowid order.
func (k *keyIndex) finish() {
	slices.SortStableFunc(k.runs, func(a, b keyRun) int { return cmp.Compare(a.hash, b.hash) })
	k.runs = slices.Clip(k.runs)
}

// appendRowids appends the rowids recorded under name (and under any name of the same hash).
func (k *keyIndex) appendRowids(ids []int64, name string) []int64 {
	if k == nil {
		return ids
	}
	h := maphash.String(k.seed, name)
	i, _ := slices.BinarySearchFunc(k.runs, h, func(r keyRun, h uint64) int { return cmp.Compare(r.hash, h) })
	for ; i < len(k.runs) && k.runs[i].hash == h; i++ {
		for id := k.runs[i].start; id < k.runs[i].start+k.runs[i].n; id++ {
			ids = append(ids, id)
		}
	}
	return ids
}
