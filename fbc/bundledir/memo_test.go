package bundledir

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// A file decoded again is served from the memo as decodeObject decodes it; a file that differs by
// one byte is decoded for itself; the memo stays within its bound.
func TestDecodeObjectOnce(t *testing.T) {
	files := []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: \"<v>\"\n---\nkind: Second\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: \"<v>\"\n---\nkind: Second\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: \"<v>\"\n---\nkind: Second\n",
	}
	for round := range 2 {
		for i, f := range files {
			want, wantExtra, err := decodeObject([]byte(f))
			if err != nil {
				t.Fatal(err)
			}
			got, extra, err := decodeObjectOnce([]byte(f))
			if err != nil || !reflect.DeepEqual(got, want) || extra != wantExtra {
				t.Errorf("round %d, file %d: %+v, %d, %v; want %+v, %d", round, i, got, extra, err, want, wantExtra)
			}
		}
	}
	if _, _, err := decodeObjectOnce([]byte("kind: [\n")); err == nil {
		t.Error("a broken file decoded")
	}
	manifestMemo.Lock()
	defer manifestMemo.Unlock()
	if len(manifestMemo.objs) == 0 || manifestMemo.size > manifestMemoBytes {
		t.Errorf("memo of %d objects, %d bytes", len(manifestMemo.objs), manifestMemo.size)
	}
}

// Two files that share a hash are told apart by their bytes: neither is served the other's object.
func TestDecodeObjectKeyedCollision(t *testing.T) {
	a := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: collide-a\n")
	b := []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: collide-b\n")
	const key = 42
	for round := range 2 {
		for _, f := range [][]byte{a, b} {
			want, _, err := decodeObject(f)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := decodeObjectKeyed(key, f)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("round %d: %q gave %+v, %v; want %+v", round, f, got, err, want)
			}
		}
	}
	manifestMemo.Lock()
	defer manifestMemo.Unlock()
	if n := len(manifestMemo.objs[key]); n != 2 {
		t.Errorf("the memo holds %d objects under the shared hash, want 2", n)
	}
}

// Calls that decode one file at once decode it once: the others wait for it and get its object.
func TestDecodeObjectKeyedConcurrent(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: concurrent\ndata:\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "  key%d: value %d\n", i, i)
	}
	data := []byte(b.String())
	want, _, err := decodeObject(data)
	if err != nil {
		t.Fatal(err)
	}
	before := memoDecodes.Load()
	const calls = 8
	got := make([]*Object, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			got[i], _, _ = decodeObjectKeyed(7, bytes.Clone(data))
		})
	}
	wg.Wait()
	for i, o := range got {
		if !reflect.DeepEqual(o, want) {
			t.Errorf("call %d got another object", i)
		}
	}
	if n := memoDecodes.Load() - before; n != 1 {
		t.Errorf("the file was decoded %d times, want once", n)
	}
}
