package bundledir

import (
	"crypto/sha256"
	"sync"
)

// The manifests decoded lately, by the SHA-256 of their bytes. The bundles of one template are
// mostly versions of one operator that repeat most of their files (a version's CRDs are those of
// the one before), and turning YAML into JSON is most of what rendering a bundle costs: a file
// seen before, byte for byte, is not decoded again. The key is a cryptographic hash of the whole
// file, so that no file can pass for another; only objects are kept (a file that fails is decoded
// again, for its message), their JSON shared (never changed once decoded). The memo holds up to
// manifestMemoBytes of JSON, then starts over: memory stays bounded however many bundles a
// process reads. It lives in this process only; nothing of it is written anywhere.
const manifestMemoBytes = 64 << 20

var manifestMemo struct {
	sync.Mutex
	objs map[[sha256.Size]byte]memoObject
	size int
}

type memoObject struct {
	obj   Object
	extra int
}

// decodeObjectOnce is decodeObject, remembering the objects it decodes.
func decodeObjectOnce(data []byte) (*Object, int, error) {
	key := sha256.Sum256(data)
	manifestMemo.Lock()
	m, ok := manifestMemo.objs[key]
	manifestMemo.Unlock()
	if ok {
		obj := m.obj
		return &obj, m.extra, nil
	}
	obj, extra, err := decodeObject(data)
	if err != nil {
		return nil, 0, err
	}
	manifestMemo.Lock()
	defer manifestMemo.Unlock()
	if manifestMemo.objs == nil || manifestMemo.size+len(obj.JSON) > manifestMemoBytes {
		manifestMemo.objs, manifestMemo.size = map[[sha256.Size]byte]memoObject{}, 0
	}
	if len(obj.JSON) <= manifestMemoBytes {
		manifestMemo.objs[key] = memoObject{obj: *obj, extra: extra}
		manifestMemo.size += len(obj.JSON)
	}
	return obj, extra, nil
}
