package fbcbackend

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"slices"
	"unsafe"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/internal/bytepool"
)

// Body record encoding: a kind byte, then length-prefixed fields.
const (
	bodyManifests byte = 1
	bodyCSVMeta   byte = 2
)

func encodeBody(b body) []byte {
	size := 32 + len(b.CSVMeta) + len(b.Version)
	for _, o := range b.Objects {
		size += len(o) + binary.MaxVarintLen64
	}
	for _, ri := range b.Related {
		size += len(ri.Name) + len(ri.Image) + 2*binary.MaxVarintLen64
	}
	out := bytepool.Get(size)
	putString := func(s string) {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	if b.CSVMeta != nil {
		out = append(out, bodyCSVMeta)
		putString(string(b.CSVMeta))
		putString(b.Version)
		out = binary.AppendUvarint(out, uint64(len(b.Related)))
		for _, ri := range b.Related {
			putString(ri.Name)
			putString(ri.Image)
		}
		return out
	}
	out = append(out, bodyManifests)
	out = binary.AppendUvarint(out, uint64(b.CSVIndex+1))
	out = binary.AppendUvarint(out, uint64(len(b.Objects)))
	for _, o := range b.Objects {
		putString(o)
	}
	return out
}

var errBadBody = errors.New("malformed body record")

// decodeBody decodes a body record. Its strings and CSVMeta share data's memory: data must not be
// changed afterwards (the store reads every record into a buffer of its own).
func decodeBody(data []byte) (body, error) {
	b := body{CSVIndex: -1}
	if len(data) == 0 {
		return b, errBadBody
	}
	kind, rest := data[0], data[1:]
	num := func() (uint64, bool) {
		v, n := binary.Uvarint(rest)
		if n <= 0 {
			return 0, false
		}
		rest = rest[n:]
		return v, true
	}
	str := func() (string, bool) {
		l, ok := num()
		if !ok || l > uint64(len(rest)) {
			return "", false
		}
		var s string
		if l > 0 {
			s = unsafe.String(&rest[0], l)
		}
		rest = rest[l:]
		return s, true
	}
	switch kind {
	case bodyCSVMeta:
		meta, ok1 := str()
		ver, ok2 := str()
		n, ok3 := num()
		if !ok1 || !ok2 || !ok3 || n > uint64(len(rest)) {
			return b, errBadBody
		}
		b.CSVMeta, b.Version = []byte{}, ver // not nil even when empty: the kind says a CSV is synthesized
		if meta != "" {
			b.CSVMeta = unsafe.Slice(unsafe.StringData(meta), len(meta))
		}
		if n > 0 {
			b.Related = make([]csvmeta.RelatedImage, 0, n)
		}
		for i := uint64(0); i < n; i++ {
			name, ok1 := str()
			image, ok2 := str()
			if !ok1 || !ok2 {
				return b, errBadBody
			}
			b.Related = append(b.Related, csvmeta.RelatedImage{Name: name, Image: image})
		}
	case bodyManifests:
		idx, ok1 := num()
		n, ok2 := num()
		if !ok1 || !ok2 || n > uint64(len(rest)) || idx > n {
			return b, errBadBody
		}
		b.CSVIndex = int(idx) - 1
		b.Objects = make([]string, 0, n)
		for i := uint64(0); i < n; i++ {
			o, ok := str()
			if !ok {
				return b, errBadBody
			}
			b.Objects = append(b.Objects, o)
		}
	default:
		return b, errBadBody
	}
	return b, nil
}

// objectRecord builds a bodyManifests record while the objects are decoded: each object's base64
// data is decoded straight into the record, whose header (written last, when the CSV's index is
// known) goes into room left before the first object. The result is what encodeBody gives.
type objectRecord struct {
	buf  []byte   // headerRoom bytes, then length-prefixed objects
	objs [][2]int // each object's span in buf
}

const headerRoom = 1 + 2*binary.MaxVarintLen64

func newObjectRecord(sizeHint int) *objectRecord {
	return &objectRecord{buf: bytepool.Get(headerRoom + sizeHint)[:headerRoom]}
}

// add appends the manifest of an olm.bundle.object value: its base64 data decoded, kept byte for
// byte when it looks like a JSON object and read as YAML otherwise.
func (r *objectRecord) add(value []byte) error {
	var encoded []byte
	if err := eachField(value, func(k, v []byte) error {
		if !keyIs(k, "data") {
			return nil
		}
		var err error
		encoded, err = stringBytes(v)
		return err
	}); err != nil {
		return err
	}
	at, maxLen := len(r.buf), base64.StdEncoding.DecodedLen(len(encoded))
	room := uvarintLen(maxLen)
	r.buf = slices.Grow(r.buf, room+maxLen)[:at+room+maxLen]
	n, err := base64.StdEncoding.Decode(r.buf[at+room:], encoded)
	if err != nil {
		r.buf = r.buf[:at]
		return err
	}
	obj := r.buf[at+room : at+room+n]
	if !hasJSONObjectPrefix(obj) {
		j, err := yaml.YAMLToJSON(obj)
		r.buf = r.buf[:at]
		if err != nil {
			return err
		}
		r.buf = binary.AppendUvarint(r.buf, uint64(len(j)))
		r.objs = append(r.objs, [2]int{len(r.buf), len(r.buf) + len(j)})
		r.buf = append(r.buf, j...)
		return nil
	}
	if prefix := uvarintLen(n); prefix != room {
		copy(r.buf[at+prefix:], obj)
		room = prefix
	}
	binary.PutUvarint(r.buf[at:], uint64(n))
	r.objs = append(r.objs, [2]int{at + room, at + room + n})
	r.buf = r.buf[:at+room+n]
	return nil
}

// csvIndex finds the first object whose kind is ClusterServiceVersion.
func (r *objectRecord) csvIndex() int {
	for i, span := range r.objs {
		if topLevelKind(unsafe.String(&r.buf[span[0]], span[1]-span[0])) == "ClusterServiceVersion" {
			return i
		}
	}
	return -1
}

func (r *objectRecord) finish(csvIndex int) []byte {
	hdr := make([]byte, 0, headerRoom)
	hdr = append(hdr, bodyManifests)
	hdr = binary.AppendUvarint(hdr, uint64(csvIndex+1))
	hdr = binary.AppendUvarint(hdr, uint64(len(r.objs)))
	start := headerRoom - len(hdr)
	copy(r.buf[start:], hdr)
	return r.buf[start:]
}

func uvarintLen(n int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n))
}
