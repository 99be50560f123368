package bundledir

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
)

// The manifests decoded lately, by their bytes. The bundles of one template are mostly versions
// of one operator that repeat most of their files (a version's CRDs are those of the one before),
// and turning YAML into JSON is most of what rendering a bundle costs: a file seen before, byte
// for byte, is not decoded again. A file is found by a hash of its bytes and then compared with
// the bytes the memo kept, whole: no file can pass for another, whatever its hash (a SHA-256 of
// every file, the key this memo had first, cost more CPU than the decoding it saved on a machine
// without SHA instructions). The hash is maphash, seeded at random per process. Only objects are
// kept (a file that fails is decoded again, for its message), their JSON shared (never changed
// once decoded). The memo holds up to manifestMemoBytes of file and JSON bytes, then starts over:
// memory stays bounded however many bundles a process reads. It lives in this process only;
// nothing of it is written anywhere.
const manifestMemoBytes = 96 << 20

var manifestMemo struct {
	sync.Mutex
	seed maphash.Seed
	objs map[uint64][]memoObject // by maphash of the file; a list, as two files may share a hash
	size int
	// decoding are the files being decoded now: a template's bundles are read several at once,
	// and the first of them all hold the same CRDs, which one call decodes while the others wait
	// for it instead of decoding them too.
	decoding map[uint64][]*decoding
}

type memoObject struct {
	data  []byte // the file, compared whole on every hit
	obj   Object
	extra int
}

// decoding is a file one call is decoding; done is closed when its result is set.
type decoding struct {
	data  []byte
	done  chan struct{}
	obj   *Object
	extra int
	err   error
}

func init() { manifestMemo.seed = maphash.MakeSeed() }

// memoDecodes counts the files decodeObjectKeyed decoded (for tests).
var memoDecodes atomic.Int64

// memoLookup is the memo's object for data, whose hash is key, if it has one. The caller holds
// the lock.
func memoLookup(key uint64, data []byte) (memoObject, bool) {
	for _, m := range manifestMemo.objs[key] {
		if bytes.Equal(m.data, data) {
			return m, true
		}
	}
	return memoObject{}, false
}

// decodeObjectOnce is decodeObject, remembering the objects it decodes.
func decodeObjectOnce(data []byte) (*Object, int, error) {
	return decodeObjectKeyed(maphash.Bytes(manifestMemo.seed, data), data)
}

// decodeObjectKeyed is decodeObjectOnce for data whose hash is key (tests give two files one key).
func decodeObjectKeyed(key uint64, data []byte) (*Object, int, error) {
	manifestMemo.Lock()
	if m, ok := memoLookup(key, data); ok {
		manifestMemo.Unlock()
		obj := m.obj
		return &obj, m.extra, nil
	}
	for _, d := range manifestMemo.decoding[key] {
		if bytes.Equal(d.data, data) {
			manifestMemo.Unlock()
			<-d.done
			if d.err != nil {
				return nil, 0, d.err
			}
			obj := *d.obj
			return &obj, d.extra, nil
		}
	}
	d := &decoding{data: data, done: make(chan struct{})}
	if manifestMemo.decoding == nil {
		manifestMemo.decoding = map[uint64][]*decoding{}
	}
	manifestMemo.decoding[key] = append(manifestMemo.decoding[key], d)
	manifestMemo.Unlock()

	memoDecodes.Add(1)
	d.obj, d.extra, d.err = decodeObject(data)

	manifestMemo.Lock()
	defer manifestMemo.Unlock()
	defer close(d.done)
	waiting := manifestMemo.decoding[key]
	if i := slices.Index(waiting, d); i >= 0 {
		waiting = slices.Delete(waiting, i, i+1)
	}
	if len(waiting) == 0 {
		delete(manifestMemo.decoding, key)
	} else {
		manifestMemo.decoding[key] = waiting
	}
	if d.err != nil {
		return nil, 0, d.err
	}
	cost := len(data) + len(d.obj.JSON)
	if manifestMemo.objs == nil || manifestMemo.size+cost > manifestMemoBytes {
		manifestMemo.objs, manifestMemo.size = map[uint64][]memoObject{}, 0
	}
	if cost <= manifestMemoBytes {
		// The file is copied: the memo must not share bytes its caller may reuse.
		m := memoObject{data: bytes.Clone(data), obj: *d.obj, extra: d.extra}
		manifestMemo.objs[key] = append(manifestMemo.objs[key], m)
		manifestMemo.size += cost
	}
	obj := *d.obj
	return &obj, d.extra, nil
}
